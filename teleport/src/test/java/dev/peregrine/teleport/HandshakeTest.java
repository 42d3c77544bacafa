package dev.peregrine.teleport;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HandshakeTest {
    private static ByteBuffer hello(int version, int compression, int maxFrame, int inFlight) {
        ByteBuffer b = ByteBuffer.allocate(Handshake.HELLO);
        b.put(new byte[] {'P', 'G', 'T', 'P'}).put((byte) version).put((byte) compression).putInt(maxFrame).putInt(inFlight);
        return b;
    }

    @Test
    void aGoodHelloRoundTripsAtEverySplit() {
        ByteBuffer b = ByteBuffer.allocate(Handshake.HELLO);
        Handshake.Hello h = new Handshake.Hello(1, TeleportCompression.NONE, 65536, 1000);
        Handshake.write(b, h);
        for (int end = 0; end < Handshake.HELLO; end++) {
            assertEquals(Handshake.NEED_MORE, Handshake.check(b, 0, end, TeleportCompression.NONE), "prefix " + end);
        }
        assertEquals(Handshake.ACCEPTED, Handshake.check(b, 0, Handshake.HELLO, TeleportCompression.NONE));
        assertEquals(h, Handshake.read(b, 0));
    }

    @Test
    void aWrongMagicIsRefusedAtItsFirstWrongByte() {
        ByteBuffer b = ByteBuffer.wrap("GET / HTTP/1.1\r\n".getBytes());
        assertEquals(Handshake.REASON_BAD_MAGIC, Handshake.check(b, 0, 1, TeleportCompression.NONE));
        ByteBuffer p = ByteBuffer.wrap("PGTX".getBytes());
        assertEquals(Handshake.NEED_MORE, Handshake.check(p, 0, 3, TeleportCompression.NONE));
        assertEquals(Handshake.REASON_BAD_MAGIC, Handshake.check(p, 0, 4, TeleportCompression.NONE));
    }

    @Test
    void theMatrixOfMismatches() {
        assertEquals(Handshake.REASON_BAD_VERSION, Handshake.check(hello(0, 0, 4096, 1), 0, 14, TeleportCompression.NONE));
        assertEquals(Handshake.REASON_BAD_VERSION, Handshake.check(hello(2, 0, 4096, 1), 0, 14, TeleportCompression.NONE));
        assertEquals(Handshake.REASON_UNSUPPORTED_COMPRESSION, Handshake.check(hello(1, 1, 4096, 1), 0, 14, TeleportCompression.NONE));
        assertEquals(Handshake.REASON_UNSUPPORTED_COMPRESSION, Handshake.check(hello(1, 2, 4096, 1), 0, 14, TeleportCompression.NONE));
        assertEquals(Handshake.REASON_UNSUPPORTED_COMPRESSION, Handshake.check(hello(1, 9, 4096, 1), 0, 14, TeleportCompression.values()));
        assertEquals(Handshake.ACCEPTED, Handshake.check(hello(1, 1, 4096, 1), 0, 14, TeleportCompression.values()));
        assertEquals(Handshake.REASON_BAD_LIMITS, Handshake.check(hello(1, 0, 1023, 1), 0, 14, TeleportCompression.NONE));
        assertEquals(Handshake.REASON_BAD_LIMITS, Handshake.check(hello(1, 0, (1 << 30) + 1, 1), 0, 14, TeleportCompression.NONE));
        assertEquals(Handshake.REASON_BAD_LIMITS, Handshake.check(hello(1, 0, -1, 1), 0, 14, TeleportCompression.NONE));
        assertEquals(Handshake.REASON_BAD_LIMITS, Handshake.check(hello(1, 0, 4096, 0), 0, 14, TeleportCompression.NONE));
        assertEquals(Handshake.REASON_BAD_LIMITS, Handshake.check(hello(1, 0, 4096, -1), 0, 14, TeleportCompression.NONE));
    }
}
