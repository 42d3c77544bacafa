package dev.peregrine.examples;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The examples app's command line refuses what it does not know, before anything starts. */
class PlaintextAppArgumentsTest {
    @Test
    void knownFlagsInBothFormsPass() {
        assertNull(PlaintextApp.unknownArgument(new String[0]));
        assertNull(PlaintextApp.unknownArgument(new String[] {"--port", "0", "--threads=1", "--https-port", "8443",
                "--static", "/srv", "--http2=0", "--metrics", "1"}));
    }

    @Test
    void aTypoOrAMissingValueIsNamed() {
        assertEquals("unknown argument '--htps-port'", PlaintextApp.unknownArgument(new String[] {"--htps-port", "8443"}));
        assertEquals("unknown argument 'serve'", PlaintextApp.unknownArgument(new String[] {"serve"}));
        assertEquals("unknown argument '--portt=1'", PlaintextApp.unknownArgument(new String[] {"--port", "1", "--portt=1"}));
        assertEquals("--port needs a value", PlaintextApp.unknownArgument(new String[] {"--threads", "1", "--port"}));
    }
}
