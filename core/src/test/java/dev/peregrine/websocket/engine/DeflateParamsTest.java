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
}
