package dev.peregrine.client;

import dev.peregrine.Server;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The client's loops are configured by the client's builder alone: a server setting in the process's
 * properties (or, alike, a {@code PEREGRINE_*} variable) that would stop a server from starting does
 * not reach a client.
 */
class ClientLoopConfigTest {
    @Test
    void aMalformedServerSettingDoesNotBreakAClient() throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1)
                .get("/hi", (req, res) -> res.text("hi")).start()) {
            HttpClient client;
            System.setProperty("peregrine.maxBodySize", "not-a-size");
            System.setProperty("peregrine.threads", "zero");
            try {
                // The same setting does stop a server: the property really is read, and malformed.
                assertThrows(RuntimeException.class, () -> Server.builder().port(0).start().close());
                client = HttpClient.builder().build();
            } finally {
                System.clearProperty("peregrine.maxBodySize");
                System.clearProperty("peregrine.threads");
            }
            try (HttpClient c = client) {
                ClientResponse r = c.get("http://127.0.0.1:" + server.port() + "/hi");
                assertEquals(200, r.status());
                assertEquals("hi", r.text());
            }
        }
    }
}
