package dev.peregrine.h2.hpack;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The encoder against the decoder it must stay in step with: blocks coded against a connection's
 * table decode, block after block, to the fields given (through eviction, names and values of every
 * length, size updates as the peer's SETTINGS_HEADER_TABLE_SIZE moves); repeated fields shrink to
 * one byte; the stateless mode indexes nothing.
 */
class HpackEncoderTest {
    private static ByteBuffer direct(HpackEncoder e) {
        return ByteBuffer.allocateDirect(e.length()).put(e.block(), 0, e.length()).flip();
    }

    private static List<String> decode(HpackDecoder d, HpackEncoder e) {
        List<String> got = HpackDecoderTest.decode(d, direct(e));
        assertTrue(got.isEmpty() || !got.get(0).startsWith("ERROR"), () -> "the block did not decode: " + got);
        return got;
    }

    private static void response(HpackEncoder e, String date, int length) {
        e.status(200);
        e.field(54, "Peregrine".getBytes(StandardCharsets.US_ASCII), 0, 9);
        byte[] d = ("Date: " + date + "\r\n").getBytes(StandardCharsets.US_ASCII);
        e.field(33, d, 6, d.length - 8);
        e.field(31, "text/plain");
        e.field("X-Request-Id", "id-" + length);
        byte[] digits = Integer.toString(length).getBytes(StandardCharsets.US_ASCII);
        e.field(28, digits, 0, digits.length);
    }

    @Test
    void repeatedFieldsAreOneByteEachFromTheSecondResponseOn() {
        HpackEncoder e = new HpackEncoder();
        HpackTable t = new HpackTable(HpackEncoder.TABLE_SIZE);
        HpackDecoder d = new HpackDecoder(4096, 16384);
        String date = "Thu, 26 Nov 2026 23:00:00 GMT";
        e.reset(t, 4096, 4096);
        response(e, date, 13);
        List<String> expected = List.of(":status: 200", "server: Peregrine", "date: " + date, "content-type: text/plain",
                "x-request-id: id-13", "content-length: 13");
        assertEquals(expected, decode(d, e));
        int first = e.length();
        e.reset(t, 4096, 4096);
        response(e, date, 13);
        assertEquals(expected, decode(d, e));
        // :status, server, date, content-type, content-length indexed; x-request-id a literal (never indexed)
        HpackEncoder literal = new HpackEncoder();
        literal.reset();
        literal.field("X-Request-Id", "id-13");
        assertEquals(5 + literal.length(), e.length(), "second block's length (first was " + first + ")");
        for (int i : new int[] {1, 2, 3}) {
            assertTrue((e.block()[i] & 0x80) != 0, "field " + i + " not indexed");
        }
        assertEquals(t.size(), d.table().size(), "the tables differ");
        // a new second: one new entry, the rest still one byte each
        e.reset(t, 4096, 4096);
        response(e, "Thu, 26 Nov 2026 23:00:01 GMT", 13);
        assertEquals(":status: 200", decode(d, e).get(0));
        assertEquals(t.size(), d.table().size());
    }

    @Test
    void staysInStepWithTheDecoderThroughEvictionAndSizeUpdates() {
        int[] limits = {0, 64, 300, 1000, 4096, 8192};
        for (int seed = 0; seed < 40; seed++) {
            Random r = new Random(seed);
            HpackEncoder e = new HpackEncoder();
            HpackTable t = new HpackTable(HpackEncoder.TABLE_SIZE);
            HpackDecoder d = new HpackDecoder(4096, 1 << 20);
            int limit = 4096;
            int lowest = 4096;
            for (int block = 0; block < 300; block++) {
                if (r.nextInt(15) == 0) { // the peer's SETTINGS, perhaps several between two blocks
                    limit = limits[r.nextInt(limits.length)];
                    lowest = Math.min(lowest, limit);
                    if (r.nextBoolean()) {
                        limit = limits[r.nextInt(limits.length)];
                        lowest = Math.min(lowest, limit);
                    }
                }
                int before = d.table().maxSize();
                e.reset(t, lowest, limit);
                List<String> expected = new ArrayList<>();
                for (int f = 0, n = 1 + r.nextInt(8); f < n; f++) {
                    String name = switch (r.nextInt(6)) {
                        case 0 -> "content-type";
                        case 1 -> "date";
                        case 2 -> "x-custom-" + r.nextInt(4);
                        case 3 -> "set-cookie";
                        case 4 -> "X-Upper-" + r.nextInt(3);
                        default -> "x-long-" + "n".repeat(r.nextInt(300));
                    };
                    String value = r.nextInt(10) == 0 ? "v".repeat(r.nextInt(2000)) : "value " + r.nextInt(6);
                    if (r.nextBoolean()) {
                        byte[] v = value.getBytes(StandardCharsets.ISO_8859_1);
                        e.field(name, v, 0, v.length);
                    } else {
                        e.field(name, value);
                    }
                    expected.add(name.toLowerCase(java.util.Locale.ROOT) + ": " + value);
                }
                ByteBuffer b = direct(e);
                int allowed = Math.min(lowest, 4096);
                if (allowed < before) { // §4.2: the lowest size since the last block comes first
                    assertEquals(0x20, b.get(0) & 0xe0, "seed " + seed + " block " + block + ": no size update first");
                }
                assertEquals(expected, decode(d, e), "seed " + seed + " block " + block);
                lowest = limit;
                assertEquals(Math.min(limit, 4096), d.table().maxSize(), "seed " + seed + " block " + block);
                assertEquals(t.size(), d.table().size(), "seed " + seed + " block " + block);
                assertEquals(t.dynamicCount(), d.table().dynamicCount(), "seed " + seed + " block " + block);
            }
        }
    }

    @Test
    void aPeerWithoutATableGetsASizeUpdateAndNoEntries() {
        HpackEncoder e = new HpackEncoder();
        HpackTable t = new HpackTable(HpackEncoder.TABLE_SIZE);
        HpackDecoder d = new HpackDecoder(4096, 16384);
        for (int i = 0; i < 3; i++) {
            e.reset(t, 0, 0);
            response(e, "Thu, 26 Nov 2026 23:00:00 GMT", 13);
            if (i == 0) {
                assertEquals(0x20, e.block()[0] & 0xff, "size update to 0 first");
            }
            assertEquals(6, decode(d, e).size());
            assertEquals(0, d.table().dynamicCount());
            assertEquals(0, t.dynamicCount());
        }
    }

    @Test
    void aStatelessFirstBlockSignalsTheSizeAndTheTableMadeLaterStaysInStep() {
        // the server answers a connection's stream 1 without a table, signalling the peer's new size (§4.2)
        HpackEncoder e = new HpackEncoder();
        HpackDecoder d = new HpackDecoder(4096, 16384);
        e.resetStateless(100, 100);
        response(e, "Thu, 26 Nov 2026 23:00:00 GMT", 13);
        assertEquals(0x20 | 0x1f, e.block()[0] & 0xff, "a size update (100 needs the 5-bit prefix's continuation) first");
        assertEquals(6, decode(d, e).size());
        assertEquals(100, d.table().maxSize());
        assertEquals(0, d.table().dynamicCount());
        e.resetStateless(100, 100); // an interim response and the final one on stream 1: signalled again, allowed
        response(e, "Thu, 26 Nov 2026 23:00:00 GMT", 13);
        assertEquals(6, decode(d, e).size());
        assertEquals(100, d.table().maxSize());
        // then the table, from the second stream: its updates repeat the size the decoder has, which is allowed
        HpackTable t = new HpackTable(HpackEncoder.TABLE_SIZE);
        for (int i = 0; i < 3; i++) {
            e.reset(t, 100, 100);
            response(e, "Thu, 26 Nov 2026 23:00:0" + i + " GMT", 13);
            assertEquals(6, decode(d, e).size());
            assertEquals(t.dynamicCount(), d.table().dynamicCount());
            assertEquals(t.size(), d.table().size());
        }
    }

    @Test
    void statelessBlocksIndexNothing() {
        HpackEncoder e = new HpackEncoder();
        HpackDecoder d = new HpackDecoder(4096, 16384);
        for (int i = 0; i < 2; i++) {
            e.reset();
            e.indexed(2);
            e.field(1, "example.com");
            e.field("user-agent", "Peregrine");
            e.field("X-Thing", "x");
            assertEquals(List.of(":method: GET", ":authority: example.com", "user-agent: Peregrine", "x-thing: x"), decode(d, e));
            assertEquals(0, d.table().dynamicCount());
        }
    }
}
