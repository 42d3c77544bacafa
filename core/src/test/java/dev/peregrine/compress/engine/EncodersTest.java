package dev.peregrine.compress.engine;

import dev.peregrine.compress.Coding;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every coding round-trips whole and streamed bodies of every size through reused encoders. */
class EncodersTest {
    private static final int[] SIZES = {0, 1, 100, 1024, 65_536, 100_003, 1_000_000};

    @Test
    void bothLibrariesLoadHere() {
        // br and zstd are on this module's test class path: if they did not load, the tests below would
        // silently cover only gzip and deflate.
        assertTrue(Coding.BR.available(), "Brotli4j should load here");
        assertTrue(Coding.ZSTD.available(), "zstd-jni should load here");
        for (Coding c : Coding.values()) {
            assertTrue(c.available(), c::toString);
            assertEquals(c, Coding.of(c.token().toUpperCase(java.util.Locale.ROOT)));
        }
    }

    @Test
    void wholeBodiesRoundTripWithOneEncoderPerCoding() throws Exception {
        Encoders encoders = new Encoders(6, 4, 22, 3);
        for (Coding c : Coding.values()) {
            Encoder e = encoders.whole(c);
            for (int size : SIZES) {
                for (byte[] data : new byte[][] {text(size), random(size)}) {
                    e.begin();
                    e.write(data, 0, data.length);
                    e.finish();
                    byte[] z = Arrays.copyOf(e.out(), e.outLength());
                    assertArrayEquals(data, StreamDecoder.decode(c, z), c + " " + size);
                }
            }
            assertTrue(encoders.whole(c) == e, "one whole-body encoder per coding");
        }
        encoders.close();
    }

    @Test
    void everyFlushMakesAllInputSoFarDecodable() throws Exception {
        Encoders encoders = new Encoders(6, 4, 22, 3);
        Random r = new Random(7);
        for (Coding c : Coding.values()) {
            for (int round = 0; round < 3; round++) { // the same encoders, stream after stream
                Encoder e = encoders.borrow(c);
                StreamDecoder d = new StreamDecoder(c);
                ByteArrayOutputStream sent = new ByteArrayOutputStream();
                ByteArrayOutputStream decoded = new ByteArrayOutputStream();
                for (int piece = 0; piece < 20; piece++) {
                    byte[] data = piece % 3 == 0 ? random(1 + r.nextInt(40_000)) : text(1 + r.nextInt(5_000));
                    e.write(data, 0, data.length);
                    e.flush();
                    sent.write(data);
                    decoded.write(d.feed(e.out(), 0, e.outLength()));
                    e.clearOut();
                    assertArrayEquals(sent.toByteArray(), decoded.toByteArray(), c + ": piece " + piece + " decodable at its flush");
                    assertFalse(d.done());
                }
                e.finish();
                decoded.write(d.feed(e.out(), 0, e.outLength()));
                assertTrue(d.done(), c + ": the finish ends the coding");
                assertArrayEquals(sent.toByteArray(), decoded.toByteArray());
                encoders.giveBack(e);
            }
        }
        assertEquals(0, encoders.lent());
        encoders.close();
    }

    @Test
    void anUnfinishedStreamIsDroppedByTheNextBegin() throws Exception {
        Encoders encoders = new Encoders(6, 4, 22, 3);
        for (Coding c : Coding.values()) {
            Encoder e = encoders.whole(c);
            e.begin();
            byte[] junk = text(5000);
            e.write(junk, 0, junk.length);
            e.flush();
            byte[] data = text(3000);
            e.begin();
            e.write(data, 0, data.length);
            e.finish();
            assertArrayEquals(data, StreamDecoder.decode(c, Arrays.copyOf(e.out(), e.outLength())), c::toString);
        }
        encoders.close();
    }

    @Test
    void idleStreamEncodersAreBoundedPerCoding() {
        Encoders encoders = new Encoders(6, 4, 22, 3);
        Encoder[] lent = new Encoder[Encoders.IDLE_PER_CODING + 3];
        for (int i = 0; i < lent.length; i++) {
            lent[i] = encoders.borrow(Coding.ZSTD);
        }
        assertEquals(lent.length, encoders.lent());
        for (Encoder e : lent) {
            encoders.giveBack(e);
        }
        assertEquals(0, encoders.lent());
        Encoder again = encoders.borrow(Coding.ZSTD);
        assertTrue(Arrays.asList(lent).contains(again), "a given-back encoder is reused");
        encoders.giveBack(again);
        encoders.close();
    }

    static byte[] text(int size) {
        byte[] line = "Peregrine streams compressed chunks; every flush decodes. 0123456789\n".getBytes(StandardCharsets.US_ASCII);
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = line[i % line.length];
        }
        return b;
    }

    static byte[] random(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }
}
