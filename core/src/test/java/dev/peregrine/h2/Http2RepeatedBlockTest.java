package dev.peregrine.h2;

import dev.peregrine.h2.frame.Frames;
import dev.peregrine.loop.ConnectionHarness;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A field block that left its decoder's table as it was (indexed fields, literals without indexing)
 * and repeats the block decoded last on the loop is not decoded again ({@link HeaderBlock#decode}, {@link Http2Loop#repeatDecoder}): two connections on one loop, each
 * with its own table, send the same bytes in turn, and one of them changes its table in between (the
 * same indices then name other entries). Every answer must be what a fresh decode gives.
 */
class Http2RepeatedBlockTest {
    private final Http2ConnectionSplitTest on = new Http2ConnectionSplitTest();

    /** GET, http, then :path and :authority as literals with incremental indexing (RFC 7541 §6.2.1). */
    private static byte[] indexing(String path, String authority) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {(byte) 0x82, (byte) 0x86});
        b.write(0x44);
        b.write(path.length());
        b.writeBytes(path.getBytes(StandardCharsets.ISO_8859_1));
        b.write(0x41);
        b.write(authority.length());
        b.writeBytes(authority.getBytes(StandardCharsets.ISO_8859_1));
        return b.toByteArray();
    }

    private static byte[] get(int stream, byte[] block) {
        return Http2ConnectionSplitTest.frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, stream, block);
    }

    private static byte[] start(byte[] firstBlock) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(Http2Connection.PREFACE);
        b.writeBytes(Http2ConnectionSplitTest.frame(Frames.SETTINGS, 0, 0, new byte[0]));
        b.writeBytes(get(1, firstBlock));
        return b.toByteArray();
    }

    private static void send(ConnectionHarness h, byte[] bytes) {
        h.io.feed(bytes);
        h.run();
    }

    @Test
    void theSameIndexedBytesMeanWhatEachConnectionsTableSays() {
        // after its first block a table holds 62 = :authority, 63 = :path (newest first)
        byte[] repeat = {(byte) 0x82, (byte) 0x86, (byte) 0xbf, (byte) 0xbe}; // GET, http, 63, 62
        ConnectionHarness a = on.open();
        ConnectionHarness b = on.open();
        send(a, start(indexing("/who?q=a", "a.example")));
        send(b, start(indexing("/who?q=b", "b.example")));
        send(a, get(3, repeat));
        send(a, get(5, repeat)); // the same bytes from the same connection: the remembered fields
        send(b, get(3, repeat)); // the same bytes from another connection: its own table
        send(a, get(7, repeat));
        // a inserts :path /who?q=c: now 62 = that, 63 = :authority a.example, 64 = :path /who?q=a
        ByteArrayOutputStream insert = new ByteArrayOutputStream();
        insert.writeBytes(new byte[] {(byte) 0x82, (byte) 0x86, 0x44, 8});
        insert.writeBytes("/who?q=c".getBytes(StandardCharsets.ISO_8859_1));
        insert.write(0xbf);
        send(a, get(9, insert.toByteArray()));
        send(a, get(11, repeat)); // 63 is now :authority, 62 :path /who?q=c
        send(a, get(13, repeat));
        send(b, get(5, repeat));
        String ta = Http2ConnectionSplitTest.transcript(a.written().getBytes(StandardCharsets.ISO_8859_1));
        String tb = Http2ConnectionSplitTest.transcript(b.written().getBytes(StandardCharsets.ISO_8859_1));
        assertEquals("""
                1 HTTP/2.0 a.example a
                3 HTTP/2.0 a.example a
                5 HTTP/2.0 a.example a
                7 HTTP/2.0 a.example a
                9 HTTP/2.0 a.example c
                11 HTTP/2.0 a.example c
                13 HTTP/2.0 a.example c
                """, bodies(ta));
        assertEquals("""
                1 HTTP/2.0 b.example b
                3 HTTP/2.0 b.example b
                5 HTTP/2.0 b.example b
                """, bodies(tb));
        a.connection.close();
        b.connection.close();
    }

    /** A literal without indexing (RFC 7541 §6.2.2) whose name is {@code nameIndex} (static or dynamic). */
    private static byte[] literal(int nameIndex, String value) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(nameIndex); // 0000xxxx: indices below 15 fit the prefix
        b.write(value.length());
        b.writeBytes(value.getBytes(StandardCharsets.ISO_8859_1));
        return b.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    /**
     * Literals without indexing leave the table as it was too, so a block of them (h2load's and nghttp2's
     * {@code :path}, never indexed) is decoded once and then taken as it was; a block between that adds
     * to the table (here :authority, so the same index 62 names another) must be seen.
     */
    @Test
    void literalsWithoutIndexingRepeatToo() {
        // after its first block a table holds 62 = :authority, 63 = :path; the repeated block's :path is a literal
        byte[] repeat = concat(literal(4, "/who?q=lit"), new byte[] {(byte) 0x82, (byte) 0x86, (byte) 0xbe}); // :path, GET, http, 62
        ConnectionHarness a = on.open();
        ConnectionHarness b = on.open();
        send(a, start(indexing("/who?q=a", "a.example")));
        send(b, start(indexing("/who?q=b", "b.example")));
        send(a, concat(get(3, repeat), get(5, repeat)));
        send(b, get(3, repeat)); // the same bytes from another connection: its own :authority
        send(a, get(7, repeat));
        ByteArrayOutputStream insert = new ByteArrayOutputStream(); // a adds :authority c.example: 62 names it now
        insert.writeBytes(new byte[] {(byte) 0x82, (byte) 0x86, (byte) 0xbf, 0x41, 9});
        insert.writeBytes("c.example".getBytes(StandardCharsets.ISO_8859_1));
        send(a, concat(get(9, insert.toByteArray()), get(11, repeat), get(13, repeat)));
        send(b, get(5, repeat));
        String ta = Http2ConnectionSplitTest.transcript(a.written().getBytes(StandardCharsets.ISO_8859_1));
        String tb = Http2ConnectionSplitTest.transcript(b.written().getBytes(StandardCharsets.ISO_8859_1));
        assertEquals("""
                1 HTTP/2.0 a.example a
                3 HTTP/2.0 a.example lit
                5 HTTP/2.0 a.example lit
                7 HTTP/2.0 a.example lit
                9 HTTP/2.0 c.example a
                11 HTTP/2.0 c.example lit
                13 HTTP/2.0 c.example lit
                """, bodies(ta));
        assertEquals("""
                1 HTTP/2.0 b.example b
                3 HTTP/2.0 b.example lit
                5 HTTP/2.0 b.example lit
                """, bodies(tb));
        a.connection.close();
        b.connection.close();
    }

    /** A block that adds to the table, sent twice, adds twice: the second is decoded, not taken as the first's. */
    @Test
    void aBlockThatIndexesIsDecodedEveryTime() {
        ConnectionHarness a = on.open();
        send(a, start(indexing("/who?q=a", "a.example"))); // 62 = :authority, 63 = :path
        send(a, get(3, indexing("/who?q=a", "a.example"))); // again: 62, 63 these, 64, 65 the first ones
        send(a, get(5, new byte[] {(byte) 0x82, (byte) 0x86, (byte) 0xc1, (byte) 0xc0})); // 65 :path, 64 :authority
        String ta = Http2ConnectionSplitTest.transcript(a.written().getBytes(StandardCharsets.ISO_8859_1));
        assertEquals("""
                1 HTTP/2.0 a.example a
                3 HTTP/2.0 a.example a
                5 HTTP/2.0 a.example a
                """, bodies(ta));
        a.connection.close();
    }

    /** The DATA lines of a transcript ("0/1/stream body") as "stream body". */
    private static String bodies(String transcript) {
        StringBuilder out = new StringBuilder();
        for (String line : transcript.split("\n")) {
            if (line.startsWith("0/1/")) {
                out.append(line.substring(4)).append('\n');
            }
        }
        return out.toString();
    }
}
