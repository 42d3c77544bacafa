package dev.peregrine.h2.hpack;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The HPACK index space (RFC 7541 §2.3): the static table (indices 1 to 61, Appendix A) followed by a
 * dynamic table (62 and up, newest first). One class for both directions: the decoder's table
 * follows the peer's encoder, the encoder's table the peer's decoder.
 *
 * <p><b>Storage.</b> The dynamic table's bytes live in one ring of up to {@code capacity} bytes; each
 * entry is its name then its value, contiguous modulo the ring, so inserting and evicting allocate
 * nothing once the ring has grown to what the peer's entries need (it starts empty: a connection
 * whose peer indexes nothing holds no table).
 * An entry's size is name + value + 32 (§4.1), so the bytes never exceed the table's maximum size.
 * <pre>
 *   ring:  [ .. oldest entry | ... | newest entry | free .. ]   (wrapping)
 *   entries (a deque, newest at head): start in ring, name length, value length
 *   index 62 = head, 63 = next older, ...
 * </pre>
 * Eviction (§4.3, §4.4): the oldest entries leave until the new one fits; an entry larger than the
 * whole table empties it and is not added. A lower maximum size (§4.3, a size update) evicts at once.
 *
 * <p>Thread: one owner (the connection's loop).
 */
public final class HpackTable {
    /** The number of static entries. */
    public static final int STATIC_COUNT = 61;
    /** The size overhead of each entry (§4.1). */
    public static final int ENTRY_OVERHEAD = 32;

    private static final String[] STATIC = {
        ":authority", "",
        ":method", "GET",
        ":method", "POST",
        ":path", "/",
        ":path", "/index.html",
        ":scheme", "http",
        ":scheme", "https",
        ":status", "200",
        ":status", "204",
        ":status", "206",
        ":status", "304",
        ":status", "400",
        ":status", "404",
        ":status", "500",
        "accept-charset", "",
        "accept-encoding", "gzip, deflate",
        "accept-language", "",
        "accept-ranges", "",
        "accept", "",
        "access-control-allow-origin", "",
        "age", "",
        "allow", "",
        "authorization", "",
        "cache-control", "",
        "content-disposition", "",
        "content-encoding", "",
        "content-language", "",
        "content-length", "",
        "content-location", "",
        "content-range", "",
        "content-type", "",
        "cookie", "",
        "date", "",
        "etag", "",
        "expect", "",
        "expires", "",
        "from", "",
        "host", "",
        "if-match", "",
        "if-modified-since", "",
        "if-none-match", "",
        "if-range", "",
        "if-unmodified-since", "",
        "last-modified", "",
        "link", "",
        "location", "",
        "max-forwards", "",
        "proxy-authenticate", "",
        "proxy-authorization", "",
        "range", "",
        "referer", "",
        "refresh", "",
        "retry-after", "",
        "server", "",
        "set-cookie", "",
        "strict-transport-security", "",
        "transfer-encoding", "",
        "user-agent", "",
        "vary", "",
        "via", "",
        "www-authenticate", "",
    };
    static final byte[][] STATIC_NAMES = new byte[STATIC_COUNT][];
    static final byte[][] STATIC_VALUES = new byte[STATIC_COUNT][];

    static {
        for (int i = 0; i < STATIC_COUNT; i++) {
            STATIC_NAMES[i] = STATIC[2 * i].getBytes(StandardCharsets.US_ASCII);
            STATIC_VALUES[i] = STATIC[2 * i + 1].getBytes(StandardCharsets.US_ASCII);
        }
    }

    private static final byte[] NO_BYTES = new byte[0];
    private static final int[] NO_INTS = new int[0];

    /** The largest maximum size: the ring and the deque grow up to it as entries need room, no further. */
    private final int capacity;
    private byte[] ring = NO_BYTES;
    private int[] starts = NO_INTS;
    private int[] nameLens = NO_INTS;
    private int[] valueLens = NO_INTS;
    /** Deque slots: {@link #head} is the newest entry; {@link #count} entries. */
    private int head;
    private int count;
    /** Where the next entry's bytes go in the ring. */
    private int writeAt;
    private int size;
    private int maxSize;
    /** Moves at every change of the index space: an entry added or evicted, the maximum size set. */
    private int version;

    /** @param capacity the largest maximum size this table will ever be given (bytes) */
    public HpackTable(int capacity) {
        this.capacity = Math.max(capacity, 0);
        maxSize = this.capacity;
    }

    /** The largest maximum size {@link #maxSize(int)} accepts. */
    public int capacity() {
        return capacity;
    }

    public int maxSize() {
        return maxSize;
    }

    /** The current size (§4.1). */
    public int size() {
        return size;
    }

    /**
     * A number that moves whenever the table changes (an entry added or evicted, the maximum size set):
     * while it has not moved, the same fields encode to the same bytes against this table, so a block of
     * indexed fields only (RFC 7541 §6.1, which leaves the table as it was) may be sent again as it is.
     */
    public int version() {
        return version;
    }

    /** Dynamic entries now. */
    public int dynamicCount() {
        return count;
    }

    /** Sets the maximum size (at most {@link #capacity()}), evicting what no longer fits (§4.3). */
    public void maxSize(int bytes) {
        if (bytes < 0 || bytes > capacity) {
            throw new IllegalArgumentException("table size " + bytes + " above capacity " + capacity);
        }
        maxSize = bytes;
        version++;
        while (size > maxSize) {
            evict();
        }
    }

    /** Whether {@code index} names an entry (1..61 static, then the dynamic ones). */
    public boolean valid(int index) {
        return index >= 1 && index <= STATIC_COUNT + count;
    }

    private int slot(int index) {
        int i = head - (index - STATIC_COUNT - 1);
        return i < 0 ? i + starts.length : i;
    }

    public int nameLength(int index) {
        return index <= STATIC_COUNT ? STATIC_NAMES[index - 1].length : nameLens[slot(index)];
    }

    public int valueLength(int index) {
        return index <= STATIC_COUNT ? STATIC_VALUES[index - 1].length : valueLens[slot(index)];
    }

    /** Copies entry {@code index}'s name into {@code dst} at {@code at} (absolute); returns the index after. */
    public int copyName(int index, ByteBuffer dst, int at) {
        if (index <= STATIC_COUNT) {
            byte[] n = STATIC_NAMES[index - 1];
            dst.put(at, n);
            return at + n.length;
        }
        int s = slot(index);
        return copyRing(starts[s], nameLens[s], dst, at);
    }

    /** Copies entry {@code index}'s value into {@code dst} at {@code at} (absolute); returns the index after. */
    public int copyValue(int index, ByteBuffer dst, int at) {
        if (index <= STATIC_COUNT) {
            byte[] v = STATIC_VALUES[index - 1];
            dst.put(at, v);
            return at + v.length;
        }
        int s = slot(index);
        return copyRing((starts[s] + nameLens[s]) % ring.length, valueLens[s], dst, at);
    }

    private int copyRing(int from, int len, ByteBuffer dst, int at) {
        int first = Math.min(len, ring.length - from);
        dst.put(at, ring, from, first);
        if (first < len) {
            dst.put(at + first, ring, 0, len - first);
        }
        return at + len;
    }

    /** Adds a field whose name and value are bytes of {@code src} (absolute indices) as the newest entry (§4.4). */
    public void add(ByteBuffer src, int nameStart, int nameLen, int valueStart, int valueLen) {
        int entry = nameLen + valueLen + ENTRY_OVERHEAD;
        if (!makeRoom(entry)) {
            return;
        }
        grow(nameLen + valueLen);
        int start = writeAt;
        put(src, nameStart, nameLen);
        put(src, valueStart, valueLen);
        push(start, nameLen, valueLen, entry);
    }

    /** Adds a field given as byte arrays. */
    public void add(byte[] name, byte[] value) {
        add(name, 0, name.length, value, 0, value.length);
    }

    /** Adds a field given as ranges of byte arrays (the encoder's side) as the newest entry (§4.4). */
    public void add(byte[] name, int nameOff, int nameLen, byte[] value, int valueOff, int valueLen) {
        int entry = nameLen + valueLen + ENTRY_OVERHEAD;
        if (!makeRoom(entry)) {
            return;
        }
        grow(nameLen + valueLen);
        int start = writeAt;
        put(name, nameOff, nameLen);
        put(value, valueOff, valueLen);
        push(start, nameLen, valueLen, entry);
    }

    private boolean makeRoom(int entry) {
        if (entry > maxSize) {
            while (count > 0) {
                evict(); // §4.4: an entry larger than the table empties it
            }
            return false;
        }
        while (size + entry > maxSize) {
            evict();
        }
        return true;
    }

    /**
     * Makes room for one more entry of {@code bytes} (name and value) once {@link #makeRoom} evicted
     * what had to go: the ring and the deque start empty (an idle connection's table costs nothing)
     * and grow, at least doubling, up to {@link #capacity}. Growing lays the entries out again from
     * the ring's first byte, oldest first.
     */
    private void grow(int bytes) {
        int used = size - count * ENTRY_OVERHEAD;
        boolean ringFull = used + bytes > ring.length;
        boolean slotsFull = count + 1 > starts.length;
        if (!ringFull && !slotsFull) {
            return;
        }
        int ringLength = ringFull ? Math.min(capacity, Math.max(used + bytes, Math.max(2 * ring.length, 256))) : ring.length;
        int slots = slotsFull ? Math.min(capacity / ENTRY_OVERHEAD + 1, Math.max(count + 1, Math.max(2 * starts.length, 8)))
                : starts.length;
        byte[] r = new byte[ringLength];
        int[] st = new int[slots];
        int[] nl = new int[slots];
        int[] vl = new int[slots];
        int at = 0;
        for (int k = count - 1, j = 0; k >= 0; k--, j++) { // oldest first
            int old = head - k;
            if (old < 0) {
                old += starts.length;
            }
            int len = nameLens[old] + valueLens[old];
            for (int i = 0; i < len; i++) {
                r[at + i] = ring[(starts[old] + i) % ring.length];
            }
            st[j] = at;
            nl[j] = nameLens[old];
            vl[j] = valueLens[old];
            at += len;
        }
        ring = r;
        starts = st;
        nameLens = nl;
        valueLens = vl;
        head = count == 0 ? 0 : count - 1;
        writeAt = at % ringLength;
    }

    private void push(int start, int nameLen, int valueLen, int entry) {
        head = count == 0 ? 0 : (head + 1) % starts.length;
        starts[head] = start;
        nameLens[head] = nameLen;
        valueLens[head] = valueLen;
        count++;
        size += entry;
        version++;
    }

    private void put(ByteBuffer src, int from, int len) {
        int first = Math.min(len, ring.length - writeAt);
        src.get(from, ring, writeAt, first);
        if (first < len) {
            src.get(from + first, ring, 0, len - first);
        }
        writeAt = (writeAt + len) % ring.length;
    }

    private void put(byte[] src, int off, int len) {
        int first = Math.min(len, ring.length - writeAt);
        System.arraycopy(src, off, ring, writeAt, first);
        if (first < len) {
            System.arraycopy(src, off + first, ring, 0, len - first);
        }
        writeAt = (writeAt + len) % ring.length;
    }

    private void evict() {
        int oldest = head - (count - 1);
        if (oldest < 0) {
            oldest += starts.length;
        }
        size -= nameLens[oldest] + valueLens[oldest] + ENTRY_OVERHEAD;
        count--;
        version++;
        if (count == 0) {
            writeAt = 0;
            head = 0;
        }
    }

    /**
     * The encoder's lookup, dynamic entries only (newest first): the index of the entry with this name
     * and value, else minus the index of the newest entry with this name, else 0. Lengths are compared
     * first, then bytes; allocates nothing.
     */
    public int find(byte[] name, int nameOff, int nameLen, byte[] value, int valueOff, int valueLen) {
        int nameOnly = 0;
        int s = head;
        for (int k = 0; k < count; k++) {
            if (nameLens[s] == nameLen) {
                boolean sameValue = valueLens[s] == valueLen;
                if ((sameValue || nameOnly == 0) && ringEquals(starts[s], nameLen, name, nameOff)) {
                    int valueAt = starts[s] + nameLen;
                    if (sameValue && ringEquals(valueAt >= ring.length ? valueAt - ring.length : valueAt, valueLen, value, valueOff)) {
                        return STATIC_COUNT + 1 + k;
                    }
                    if (nameOnly == 0) {
                        nameOnly = -(STATIC_COUNT + 1 + k);
                    }
                }
            }
            s = s == 0 ? starts.length - 1 : s - 1;
        }
        return nameOnly;
    }

    /** Whether the ring's {@code len} bytes from {@code from} (wrapping) equal {@code [off, off+len)} of {@code b}. */
    private boolean ringEquals(int from, int len, byte[] b, int off) {
        int first = Math.min(len, ring.length - from);
        return java.util.Arrays.equals(ring, from, from + first, b, off, off + first)
                && (first == len || java.util.Arrays.equals(ring, 0, len - first, b, off + first, off + len));
    }
}
