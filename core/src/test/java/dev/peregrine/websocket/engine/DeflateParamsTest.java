package dev.peregrine.websocket.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeflateParamsTest {
    @Test
    void acceptsWhatItCanHonour() {
        DeflateParams p = DeflateParams.negotiate("permessage-deflate; client_max_window_bits");
        assertEquals("permessage-deflate", p.response);
        assertTrue(p.serverCompresses);
        p = DeflateParams.negotiate("permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=9");
        assertEquals("permessage-deflate; server_no_context_takeover; client_no_context_takeover", p.response);
        assertTrue(p.serverNoContextTakeover);
        p = DeflateParams.negotiate("permessage-deflate; server_max_window_bits=\"15\"");
        assertEquals("permessage-deflate; server_max_window_bits=15", p.response);
        assertTrue(p.serverCompresses);
        p = DeflateParams.negotiate("permessage-deflate; server_max_window_bits=8");
        assertEquals("permessage-deflate; server_max_window_bits=8", p.response);
        assertFalse(p.serverCompresses); // Deflater's window is 15 bits: honoured by not compressing
    }

    @Test
    void declinesMalformedOffersAndTakesTheNext() {
        assertNull(DeflateParams.negotiate(null));
        assertNull(DeflateParams.negotiate("x-webkit-deflate-frame"));
        assertNull(DeflateParams.negotiate("permessage-deflate; server_max_window_bits"));     // needs a value
        assertNull(DeflateParams.negotiate("permessage-deflate; server_max_window_bits=7"));   // 8..15
        assertNull(DeflateParams.negotiate("permessage-deflate; server_max_window_bits=016"));
        assertNull(DeflateParams.negotiate("permessage-deflate; client_max_window_bits=16"));
        assertNull(DeflateParams.negotiate("permessage-deflate; client_no_context_takeover; client_no_context_takeover"));
        assertNull(DeflateParams.negotiate("permessage-deflate; server_no_context_takeover=1"));
        assertNull(DeflateParams.negotiate("permessage-deflate; unknown"));
        assertEquals("permessage-deflate", DeflateParams.negotiate("permessage-deflate; foo, permessage-deflate").response);
    }

    @Test
    void theClientReadsTheServersAnswerFromItsEnd() {
        assertNull(DeflateParams.fromResponse(null)); // declined: no compression, not a failure
        DeflateParams p = DeflateParams.fromResponse("permessage-deflate");
        assertTrue(p.clientCompresses);
        assertFalse(p.clientNoContextTakeover);
        p = DeflateParams.fromResponse("permessage-deflate; client_no_context_takeover; server_max_window_bits=10");
        assertTrue(p.clientNoContextTakeover); // the client resets its compressor per message
        assertTrue(p.clientCompresses);        // the server's window limit concerns only its Inflater-side peer
        p = DeflateParams.fromResponse("permessage-deflate; client_max_window_bits=9");
        assertFalse(p.clientCompresses);       // Deflater cannot use 9 bits: the client sends uncompressed
        assertTrue(DeflateParams.fromResponse("permessage-deflate; client_max_window_bits=15").clientCompresses);
    }

    @Test
    void anAnswerTheClientCannotAcceptFailsTheHandshake() {
        for (String bad : new String[]{"x-webkit-deflate-frame", "permessage-deflate, permessage-deflate",
                "permessage-deflate; client_max_window_bits", "permessage-deflate; server_max_window_bits=7",
                "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
                "permessage-deflate; client_no_context_takeover=1", "permessage-deflate; unknown"}) {
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> DeflateParams.fromResponse(bad), bad);
        }
    }
}
