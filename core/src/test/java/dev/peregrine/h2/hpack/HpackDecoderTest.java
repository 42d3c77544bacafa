package dev.peregrine.h2.hpack;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RFC 7541 Appendix C vectors, table state after each block, and bad input. */
class HpackDecoderTest {
    static ByteBuffer hex(String h) {
        byte[] b = HexFormat.of().parseHex(h.replaceAll("\\s", ""));
        return ByteBuffer.allocateDirect(b.length).put(b).flip();
    }

    /** Decodes one block; returns "name: value" lines, or "ERROR n". */
    static List<String> decode(HpackDecoder d, ByteBuffer block) {
        List<String> out = new ArrayList<>();
        ByteBuffer dst = ByteBuffer.allocateDirect(d.destinationBound(block.limit(), 0));
        int r = d.decode(block, 0, block.limit(), dst, 0, dst.capacity(), (buf, ns, ne, vs, ve) ->
                out.add(text(buf, ns, ne) + ": " + text(buf, vs, ve)));
        if (r < 0) {
            return List.of("ERROR " + r);
        }
        return out;
    }

    static String text(ByteBuffer b, int s, int e) {
        byte[] a = new byte[e - s];
        b.get(s, a);
        return new String(a, StandardCharsets.ISO_8859_1);
    }

    @Test
    void c2LiteralForms() {
        HpackDecoder d = new HpackDecoder(4096, 16384);
        assertEquals(List.of("custom-key: custom-header"),
                decode(d, hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572")));
        assertEquals(55, d.table().size());
        d = new HpackDecoder(4096, 16384);
        assertEquals(List.of(":path: /sample/path"), decode(d, hex("040c 2f73 616d 706c 652f 7061 7468")));
        assertEquals(0, d.table().size());
        assertEquals(List.of("password: secret"), decode(d, hex("1008 7061 7373 776f 7264 0673 6563 7265 74")));
        assertEquals(List.of(":method: GET"), decode(d, hex("82")));
    }

    @Test
    void c3RequestsWithoutHuffman() {
        HpackDecoder d = new HpackDecoder(4096, 16384);
        assertEquals(List.of(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"),
                decode(d, hex("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d")));
        assertEquals(57, d.table().size());
        assertEquals(List.of(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache"),
                decode(d, hex("8286 84be 5808 6e6f 2d63 6163 6865")));
        assertEquals(110, d.table().size());
        assertEquals(List.of(":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com", "custom-key: custom-value"),
                decode(d, hex("8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65")));
        assertEquals(164, d.table().size());
    }

    @Test
    void c4RequestsWithHuffman() {
        HpackDecoder d = new HpackDecoder(4096, 16384);
        assertEquals(List.of(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"),
                decode(d, hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff")));
        assertEquals(List.of(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache"),
                decode(d, hex("8286 84be 5886 a8eb 1064 9cbf")));
        assertEquals(List.of(":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com", "custom-key: custom-value"),
                decode(d, hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf")));
        assertEquals(164, d.table().size());
    }

    @Test
    void c6ResponsesWithHuffmanAndEviction() {
        HpackDecoder d = new HpackDecoder(256, 16384);
        assertEquals(List.of(":status: 302", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:21 GMT", "location: https://www.example.com"),
                decode(d, hex("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3")));
        assertEquals(222, d.table().size());
        assertEquals(List.of(":status: 307", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:21 GMT", "location: https://www.example.com"),
                decode(d, hex("4883 640e ffc1 c0bf")));
        assertEquals(222, d.table().size());
        assertEquals(List.of(":status: 200", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:22 GMT", "location: https://www.example.com",
                "content-encoding: gzip", "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"),
                decode(d, hex("88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07")));
        assertEquals(215, d.table().size());
    }

    @Test
    void badInput() {
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("80")), "index 0");
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("be")), "index 62, table empty");
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("8220")), "size update after a field");
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("3fe21f")), "size update above our setting");
        assertEquals(List.of(":method: GET"), decode(new HpackDecoder(4096, 16384), hex("3fe11f82")), "size update to 4096");
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("4085f2b24a84ff84")), "string past the end");
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("ff")), "truncated integer");
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("ffffffffff0f")), "integer too large");
        // Huffman: EOS inside, padding of 8 bits, padding not ones
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("0085f2b24a87ff ffffff 83f2b24a")).subList(0, 1));
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("0082 6162 81ff")), "8 bits of padding");
        assertEquals(List.of("ERROR -1"), decode(new HpackDecoder(4096, 16384), hex("0082 6162 8100")), "padding of zeros");
    }

    @Test
    void tooLargeListKeepsTheTableInStep() {
        HpackDecoder d = new HpackDecoder(4096, 100);
        // two 60-byte literal-with-indexing fields: the second passes 100 but still enters the table
        String name = "6161616161616161616161616161"; // 14 x 'a'
        String value = "62626262626262626262626262"; // 13 x 'b'
        String field = "40 0e" + name + " 0d" + value;
        assertEquals(List.of("aaaaaaaaaaaaaa: bbbbbbbbbbbbb"), decode(d, hex(field + field)));
        assertTrue(d.tooLarge());
        assertEquals(2, d.table().dynamicCount());
        HpackDecoder ok = new HpackDecoder(4096, 100);
        decode(ok, hex(field));
        assertFalse(ok.tooLarge());
    }

    @Test
    void huffmanRoundTripsEveryByte() {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        for (int n = 0; n <= 256; n++) {
            byte[] coded = new byte[Huffman.encodedLength(all, 0, n)];
            assertEquals(coded.length, Huffman.encode(all, 0, n, coded, 0));
            ByteBuffer src = ByteBuffer.wrap(coded);
            ByteBuffer dst = ByteBuffer.allocate(n);
            assertEquals(n, Huffman.decode(src, 0, coded.length, dst, 0, n));
            for (int i = 0; i < n; i++) {
                assertEquals(all[i], dst.get(i));
            }
        }
    }

    @Test
    void encoderOutputDecodes() {
        HpackEncoder e = new HpackEncoder();
        e.reset();
        e.status(200);
        e.status(418);
        e.field("Content-Type", "text/plain; charset=utf-8");
        e.field("X-Custom-Thing", "Hello");
        e.field("server", "Peregrine");
        ByteBuffer block = ByteBuffer.wrap(e.block(), 0, e.length()).slice();
        assertEquals(List.of(":status: 200", ":status: 418", "content-type: text/plain; charset=utf-8", "x-custom-thing: Hello", "server: Peregrine"),
                decode(new HpackDecoder(4096, 16384), block));
    }
}
