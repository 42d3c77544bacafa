package dev.peregrine.h2.hpack;

import java.util.Arrays;

/**
 * Encodes field blocks (RFC 7541: the server's responses, the client's requests) into a reusable
 * array, allocating nothing per field. Two modes, chosen at each block's {@code reset}:
 * <ul>
 *   <li><b>Stateless</b> ({@link #reset()}: the client's requests, a fresh encoder per block): nothing
 *       enters the peer's dynamic table, so the peer's decoder state never matters; every field is a
 *       literal without indexing (§6.2.2).</li>
 *   <li><b>Indexed</b> ({@link #reset(HpackTable, int, int)}: the server's responses, one table per
 *       connection mirroring the peer's decoder): a field already in the table is one indexed byte
 *       (§6.1); a new one is a literal with incremental indexing (§6.2.1) and enters the table, as the
 *       peer's decoder adds it. So the fields every response repeats ({@code server}, {@code date}
 *       within its second, {@code content-type}, {@code content-length} of a body of the same size)
 *       cost one byte each from the second response on, and no Huffman coding. Fields unique to each
 *       response ({@code x-request-id}) or sensitive ({@code set-cookie}, §7.1.3), and entries above a
 *       quarter of the table, are literals without indexing: they would only push useful entries out.</li>
 * </ul>
 * Representations chosen:
 * <pre>
 *   :status 200 204 206 304 400 404 500   1xxxxxxx  static index 8..14 (Appendix A)
 *   :status other                          0000 1000 (name 8) + 3 digits, never indexed in the table
 *   in the table (name and value)          1xxxxxxx  index 62+ (§6.1)
 *   new, indexable                         01xxxxxx  name index (static, dynamic, or 0 + literal name), value (§6.2.1)
 *   new, not indexable / stateless         0000xxxx  name index or 0 + literal name, value (§6.2.2)
 *   size update (first in a block)         001xxxxx  the new maximum size (§6.3)
 *   strings                                Huffman-coded when that is shorter (§5.2)
 * </pre>
 * <b>Table size</b> (§4.2, RFC 9113 §4.3.1): the table's maximum is the lower of its capacity and the
 * peer's SETTINGS_HEADER_TABLE_SIZE. A change is signalled by size updates at the start of the next
 * block: the lowest maximum since the last block, then the new one, when they differ from the size
 * the peer's decoder last heard. Field names are lowercased (RFC 9113 §8.2.1).
 *
 * <p>Thread: one owner (a loop's connections take turns: the table, not the encoder, is per connection).
 */
public final class HpackEncoder {
    /** The server's table capacity: the default SETTINGS_HEADER_TABLE_SIZE (RFC 9113 §6.5.2), so no size update is needed at start. */
    public static final int TABLE_SIZE = 4096;

    private static final byte[] X_REQUEST_ID = ascii("x-request-id");
    private static final byte[] SET_COOKIE = ascii("set-cookie");
    /** Static entries (without pseudo-fields) by name length: their indices (1-based). */
    private static final int[][] STATIC_BY_LENGTH = staticByLength();

    private byte[] block = new byte[512];
    private int length;
    /** A field's name (lowercased) then its value, when they come as chars. */
    private byte[] scratch = new byte[256];
    /** This block's table (the connection's), or null: stateless. */
    private HpackTable table;

    /** Starts a new block, stateless: nothing is indexed. */
    public void reset() {
        length = 0;
        table = null;
    }

    /**
     * Starts a new block, stateless, for a connection that has no table yet: the peer's decoder still
     * has the size it started with ({@link #TABLE_SIZE}, RFC 9113's default), so a change of the peer's
     * SETTINGS_HEADER_TABLE_SIZE is signalled first as {@link #reset(HpackTable, int, int)} signals it
     * (§4.2: the lowest, then the final size). Signalling again later is harmless: a size update at the
     * start of a block may repeat the size the decoder has.
     */
    public void resetStateless(int lowest, int limit) {
        length = 0;
        table = null;
        int want = Math.min(limit, TABLE_SIZE);
        int low = Math.min(lowest, want);
        int heard = TABLE_SIZE;
        if (low < heard) {
            integer(0x20, 5, low);
            heard = low;
        }
        if (want != heard) {
            integer(0x20, 5, want);
        }
    }

    /**
     * Starts a new block that indexes into {@code table}, the connection's copy of the peer decoder's
     * table (made with capacity {@link #TABLE_SIZE}). {@code limit} is the peer's
     * SETTINGS_HEADER_TABLE_SIZE now, {@code lowest} the lowest it has been since the last block; a
     * change is signalled first (§4.2: the lowest, then the final size).
     */
    public void reset(HpackTable table, int lowest, int limit) {
        length = 0;
        this.table = table;
        int want = Math.min(limit, table.capacity());
        int low = Math.min(lowest, want);
        if (low < table.maxSize()) {
            integer(0x20, 5, low);
            table.maxSize(low);
        }
        if (want != table.maxSize()) {
            integer(0x20, 5, want);
            table.maxSize(want);
        }
    }

    public byte[] block() {
        return block;
    }

    public int length() {
        return length;
    }

    /** {@code :status}. */
    public void status(int code) {
        int index;
        switch (code) {
            case 200: index = 8; break;
            case 204: index = 9; break;
            case 206: index = 10; break;
            case 304: index = 11; break;
            case 400: index = 12; break;
            case 404: index = 13; break;
            case 500: index = 14; break;
            default: index = 0;
        }
        if (index != 0) {
            ensure(1);
            block[length++] = (byte) (0x80 | index);
            return;
        }
        ensure(5);
        block[length++] = 0x08; // literal without indexing, name index 8 (:status)
        block[length++] = 3;
        block[length++] = (byte) ('0' + code / 100 % 10);
        block[length++] = (byte) ('0' + code / 10 % 10);
        block[length++] = (byte) ('0' + code % 10);
    }

    /** An indexed field (§6.1): a whole static entry, such as 2 ({@code :method GET}) or 7 ({@code :scheme https}). */
    public void indexed(int index) {
        integer(0x80, 7, index);
    }

    /**
     * A field whose name is static entry {@code nameIndex} (a pseudo-field such as 1 {@code :authority},
     * 2 {@code :method}, 4 {@code :path}, or a regular one such as 31 {@code content-type}), the value
     * as given. Stateless, requests are encoded with this and {@link #indexed}, so a block never
     * depends on the decoder's table.
     */
    public void field(int nameIndex, CharSequence value) {
        int n = chars(value, false, 0);
        encode(nameIndex, HpackTable.STATIC_NAMES[nameIndex - 1], 0, HpackTable.STATIC_NAMES[nameIndex - 1].length, scratch, 0, n);
    }

    /** A field whose name is static entry {@code nameIndex}, its value bytes {@code [off, off+len)} of {@code value}. */
    public void field(int nameIndex, byte[] value, int off, int len) {
        byte[] name = HpackTable.STATIC_NAMES[nameIndex - 1];
        encode(nameIndex, name, 0, name.length, value, off, len);
    }

    /** A field: {@code name} is lowercased; both are ISO-8859-1 text (checked by the response view). */
    public void field(CharSequence name, CharSequence value) {
        int nl = chars(name, true, 0);
        int vl = chars(value, false, nl);
        encode(staticName(scratch, 0, nl), scratch, 0, nl, scratch, nl, vl);
    }

    /** A field whose value is bytes {@code [off, off+len)} of {@code value}. */
    public void field(CharSequence name, byte[] value, int off, int len) {
        int nl = chars(name, true, 0);
        encode(staticName(scratch, 0, nl), scratch, 0, nl, value, off, len);
    }

    /** A field given as bytes: the name {@code [nameOff, +nameLen)} (lowercased), the value {@code [valueOff, +valueLen)}. */
    public void field(byte[] name, int nameOff, int nameLen, byte[] value, int valueOff, int valueLen) {
        room(nameLen);
        for (int i = 0; i < nameLen; i++) {
            byte c = name[nameOff + i];
            scratch[i] = c >= 'A' && c <= 'Z' ? (byte) (c + 32) : c;
        }
        encode(staticName(scratch, 0, nameLen), scratch, 0, nameLen, value, valueOff, valueLen);
    }

    /**
     * One field, its name lowercase {@code [nameOff, +nameLen)} of {@code name} and static entry
     * {@code nameIndex} (0: none), its value {@code [valueOff, +valueLen)}: indexed when the table has
     * it, else a literal (with incremental indexing when the table is on and the field is worth it).
     */
    private void encode(int nameIndex, byte[] name, int nameOff, int nameLen, byte[] value, int valueOff, int valueLen) {
        HpackTable t = table;
        int nameRef = nameIndex;
        boolean indexing = false;
        if (t != null && t.maxSize() > 0) {
            int found = t.find(name, nameOff, nameLen, value, valueOff, valueLen);
            if (found > 0) {
                integer(0x80, 7, found); // §6.1
                return;
            }
            if (nameRef == 0 && found < 0) {
                nameRef = -found;
            }
            indexing = nameLen + valueLen + HpackTable.ENTRY_OVERHEAD <= t.maxSize() / 4 && worthIndexing(name, nameOff, nameLen);
        }
        if (indexing) {
            integer(0x40, 6, nameRef); // §6.2.1
        } else {
            integer(0x00, 4, nameRef); // §6.2.2
        }
        if (nameRef == 0) {
            string(name, nameOff, nameLen);
        }
        string(value, valueOff, valueLen);
        if (indexing) {
            t.add(name, nameOff, nameLen, value, valueOff, valueLen);
        }
    }

    /** Whether a field of this name is kept in the table: not one unique per response, not a sensitive one (§7.1.3). */
    private static boolean worthIndexing(byte[] name, int off, int len) {
        return !(len == X_REQUEST_ID.length && Arrays.equals(name, off, off + len, X_REQUEST_ID, 0, len))
                && !(len == SET_COOKIE.length && Arrays.equals(name, off, off + len, SET_COOKIE, 0, len));
    }

    /** The static index of the lowercase name {@code [off, off+len)} of {@code name} (pseudo-fields left out), or 0. */
    static int staticName(byte[] name, int off, int len) {
        if (len >= STATIC_BY_LENGTH.length) {
            return 0;
        }
        for (int index : STATIC_BY_LENGTH[len]) {
            if (Arrays.equals(HpackTable.STATIC_NAMES[index - 1], 0, len, name, off, off + len)) {
                return index;
            }
        }
        return 0;
    }

    private static int[][] staticByLength() {
        int max = 0;
        for (byte[] n : HpackTable.STATIC_NAMES) {
            max = Math.max(max, n.length);
        }
        int[][] by = new int[max + 1][];
        for (int len = 0; len <= max; len++) {
            int count = 0;
            for (byte[] n : HpackTable.STATIC_NAMES) {
                count += n.length == len && n[0] != ':' ? 1 : 0;
            }
            by[len] = new int[count];
            int k = 0;
            for (int i = 0; i < HpackTable.STATIC_COUNT; i++) {
                byte[] n = HpackTable.STATIC_NAMES[i];
                if (n.length == len && n[0] != ':') {
                    by[len][k++] = i + 1;
                }
            }
        }
        return by;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Makes {@link #scratch} hold at least {@code n} bytes, keeping none of them. */
    private void room(int n) {
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
        }
    }

    /** Copies {@code cs} as ISO-8859-1 into {@link #scratch} from {@code at}, lowercased if asked; returns its length. */
    private int chars(CharSequence cs, boolean lower, int at) {
        int n = cs.length();
        if (scratch.length < at + n) {
            scratch = Arrays.copyOf(scratch, Math.max(at + n, scratch.length * 2));
        }
        for (int i = 0; i < n; i++) {
            char c = cs.charAt(i);
            if (lower && c >= 'A' && c <= 'Z') {
                c += 32;
            }
            scratch[at + i] = (byte) c;
        }
        return n;
    }

    /** §5.2: {@code [off, off+n)} of {@code src} as a string literal, Huffman-coded when shorter. */
    private void string(byte[] src, int off, int n) {
        int h = Huffman.encodedLength(src, off, off + n);
        if (h < n) {
            integer(0x80, 7, h);
            ensure(h);
            length = Huffman.encode(src, off, off + n, block, length);
        } else {
            integer(0x00, 7, n);
            ensure(n);
            System.arraycopy(src, off, block, length, n);
            length += n;
        }
    }

    /** §5.1: {@code v} with an {@code n}-bit prefix, the first byte's other bits {@code flags}. */
    private void integer(int flags, int n, int v) {
        ensure(6);
        int max = (1 << n) - 1;
        if (v < max) {
            block[length++] = (byte) (flags | v);
            return;
        }
        block[length++] = (byte) (flags | max);
        v -= max;
        while (v >= 0x80) {
            block[length++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        block[length++] = (byte) v;
    }

    private void ensure(int n) {
        if (length + n > block.length) {
            block = Arrays.copyOf(block, Math.max(length + n, block.length * 2));
        }
    }
}
