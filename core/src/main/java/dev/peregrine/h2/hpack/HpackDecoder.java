package dev.peregrine.h2.hpack;

import java.nio.ByteBuffer;

/**
 * Decodes a whole HPACK field block (RFC 7541) into a destination buffer: each field's name and value
 * are written there (copied from the block, Huffman-decoded, or copied from the table) and handed to a
 * {@link FieldSink} as offsets. No objects per field.
 *
 * <p><b>Representations</b> (§6), by the first byte:
 * <pre>
 *   1xxxxxxx  indexed field (7-bit index; 0 is an error)                          §6.1
 *   01xxxxxx  literal, incremental indexing (6-bit name index, 0: literal name)    §6.2.1
 *   001xxxxx  dynamic table size update (5-bit size), only before the first field  §6.3, §4.2
 *   0000xxxx  literal without indexing (4-bit name index)                          §6.2.2
 *   0001xxxx  literal never indexed (4-bit name index)                             §6.2.3
 *   string:   H(1) length(7+) bytes; H set: Huffman (§5.2)                          §5.2
 *   integer:  N-bit prefix, 2^N-1 then 7-bit groups, least significant first       §5.1
 * </pre>
 *
 * <p><b>Errors</b> ({@link #COMPRESSION}, a connection error, RFC 9113 §4.3): an index out of range or
 * 0, a truncated integer or string, an integer above 2^24, bad Huffman (EOS, padding), a size update
 * above our SETTINGS_HEADER_TABLE_SIZE or after a field. <b>Limits</b>: once the fields' size
 * (name + value + 32 each, RFC 9113 §6.5.2) passes {@code maxHeaderListSize} the rest of the block is
 * still decoded, so the table stays in step with the peer's, but fields are no longer kept
 * ({@link #tooLarge()}); each field then reuses the same destination bytes, which bounds a Huffman or
 * table-copy bomb to one field's size.
 *
 * <p>Thread: one owner (the connection's loop).
 */
public final class HpackDecoder {
    /** {@link #decode}: the block is malformed (COMPRESSION_ERROR). */
    public static final int COMPRESSION = -1;
    /** {@link #decode}: the destination could not hold one field (size it by {@link #destinationBound}). */
    public static final int OVERFLOW = -2;

    /** Receives each decoded field: bytes {@code [nameStart, nameEnd)} and {@code [valueStart, valueEnd)} of {@code buf}. */
    public interface FieldSink {
        void field(ByteBuffer buf, int nameStart, int nameEnd, int valueStart, int valueEnd);
    }

    private static final int MAX_INT = 1 << 24;

    private final HpackTable table;
    private int maxHeaderListSize;
    private int pos;
    private boolean tooLarge;
    private int listSize;

    /**
     * @param maxTableSize our SETTINGS_HEADER_TABLE_SIZE: the largest table the peer may ask for
     * @param maxHeaderListSize our SETTINGS_MAX_HEADER_LIST_SIZE
     */
    public HpackDecoder(int maxTableSize, int maxHeaderListSize) {
        this.table = new HpackTable(maxTableSize);
        this.maxHeaderListSize = maxHeaderListSize;
    }

    public HpackTable table() {
        return table;
    }

    /** Whether the last block's fields passed {@code maxHeaderListSize} (those after it were not kept). */
    public boolean tooLarge() {
        return tooLarge;
    }

    /** The last block's size as RFC 9113 §6.5.2 counts it. */
    public int listSize() {
        return listSize;
    }

    /**
     * The destination room that always suffices for a block of {@code blockLength} bytes: the kept
     * fields, plus one more field whose name and value are each a table entry or a Huffman string
     * (at most 8/5 of its coded length).
     */
    public int destinationBound(int blockLength, int prefix) {
        return maxHeaderListSize + 2 * table.capacity() + 2 * (blockLength * 8 / 5 + 1) + prefix * (maxHeaderListSize / 32 + 2);
    }

    /**
     * Decodes the block {@code [start, end)} of {@code src} into {@code dst} from {@code at}, up to
     * {@code limit}. Returns the index after the last kept field's bytes, or {@link #COMPRESSION} /
     * {@link #OVERFLOW}. Absolute indices; no position moves.
     */
    public int decode(ByteBuffer src, int start, int end, ByteBuffer dst, int at, int limit, FieldSink sink) {
        return decode(src, start, end, dst, at, limit, 0, sink);
    }

    /**
     * As {@link #decode(ByteBuffer, int, int, ByteBuffer, int, int, FieldSink)}, leaving {@code prefix}
     * bytes before each field's name for the sink to fill (a record of the field's layout).
     */
    public int decode(ByteBuffer src, int start, int end, ByteBuffer dst, int at, int limit, int prefix, FieldSink sink) {
        pos = start;
        tooLarge = false;
        listSize = 0;
        boolean fieldSeen = false;
        while (pos < end) {
            int b = src.get(pos) & 0xff;
            if ((b & 0x80) != 0) { // §6.1 indexed
                int index = integer(src, end, 7);
                if (index <= 0 || !table.valid(index)) {
                    return COMPRESSION;
                }
                if (at + prefix + table.nameLength(index) + table.valueLength(index) > limit) {
                    return OVERFLOW;
                }
                int nameStart = at + prefix;
                int nameEnd = table.copyName(index, dst, nameStart);
                int valueEnd = table.copyValue(index, dst, nameEnd);
                at = emit(dst, prefix, nameStart, nameEnd, nameEnd, valueEnd, sink);
                fieldSeen = true;
            } else if ((b & 0xe0) == 0x20) { // §6.3 size update
                if (fieldSeen) {
                    return COMPRESSION; // §4.2: only at the beginning of a block
                }
                int size = integer(src, end, 5);
                if (size < 0 || size > table.capacity()) {
                    return COMPRESSION;
                }
                table.maxSize(size);
            } else {
                boolean indexing = (b & 0xc0) == 0x40;
                int index = integer(src, end, indexing ? 6 : 4);
                if (index < 0) {
                    return COMPRESSION;
                }
                int nameStart = at + prefix;
                if (nameStart > limit) {
                    return OVERFLOW;
                }
                int nameEnd;
                if (index == 0) {
                    nameEnd = string(src, end, dst, nameStart, limit);
                } else {
                    if (!table.valid(index)) {
                        return COMPRESSION;
                    }
                    if (nameStart + table.nameLength(index) > limit) {
                        return OVERFLOW;
                    }
                    nameEnd = table.copyName(index, dst, nameStart);
                }
                if (nameEnd < 0) {
                    return nameEnd;
                }
                int valueEnd = string(src, end, dst, nameEnd, limit);
                if (valueEnd < 0) {
                    return valueEnd;
                }
                if (indexing) {
                    table.add(dst, nameStart, nameEnd - nameStart, nameEnd, valueEnd - nameEnd);
                }
                at = emit(dst, prefix, nameStart, nameEnd, nameEnd, valueEnd, sink);
                fieldSeen = true;
            }
        }
        return at;
    }

    /** Counts the field; keeps it (returns its end) unless the list is too large (returns its start, to be reused). */
    private int emit(ByteBuffer dst, int prefix, int nameStart, int nameEnd, int valueStart, int valueEnd, FieldSink sink) {
        listSize += nameEnd - nameStart + valueEnd - valueStart + HpackTable.ENTRY_OVERHEAD;
        if (listSize > maxHeaderListSize) {
            tooLarge = true;
        }
        if (tooLarge) {
            return nameStart - prefix;
        }
        sink.field(dst, nameStart, nameEnd, valueStart, valueEnd);
        return valueEnd;
    }

    /** §5.1: an integer with an {@code n}-bit prefix at {@link #pos}; -1 when truncated or too large. */
    private int integer(ByteBuffer src, int end, int n) {
        int max = (1 << n) - 1;
        int v = src.get(pos++) & max;
        if (v < max) {
            return v;
        }
        int shift = 0;
        while (pos < end) {
            int b = src.get(pos++) & 0xff;
            v += (b & 0x7f) << shift;
            if (v > MAX_INT) {
                return -1;
            }
            if ((b & 0x80) == 0) {
                return v;
            }
            shift += 7;
            if (shift > 21) {
                return -1;
            }
        }
        return -1;
    }

    /** §5.2: a string literal at {@link #pos} into {@code dst} at {@code at}; returns the index after it, or an error. */
    private int string(ByteBuffer src, int end, ByteBuffer dst, int at, int limit) {
        if (pos >= end) {
            return COMPRESSION;
        }
        boolean huffman = (src.get(pos) & 0x80) != 0;
        int len = integer(src, end, 7);
        if (len < 0 || len > end - pos) {
            return COMPRESSION;
        }
        int from = pos;
        pos += len;
        if (huffman) {
            int r = Huffman.decode(src, from, from + len, dst, at, limit);
            return r == Huffman.INVALID ? COMPRESSION : r == Huffman.OVERFLOW ? OVERFLOW : r;
        }
        if (at + len > limit) {
            return OVERFLOW;
        }
        dst.put(at, src, from, len);
        return at + len;
    }

    public void maxHeaderListSize(int bytes) {
        maxHeaderListSize = bytes;
    }
}
