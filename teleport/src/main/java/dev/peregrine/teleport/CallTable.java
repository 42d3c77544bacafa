package dev.peregrine.teleport;

import java.util.ArrayList;
import java.util.List;

/**
 * A channel's calls in flight by request id: open addressing on an {@code int} key (no boxing, no node
 * per entry), linear probing, deletion by backward shift (no tombstones, so a long-lived table never
 * degrades). Id 0 is never in flight (the protocol reserves it), so an empty slot is a null.
 * <pre>
 *   slot = mix(id) &amp; mask; probe slot, slot+1, ... until the id or a null;  size &lt;= capacity / 2
 *   remove: empty the slot, then move back each following entry whose home slot the hole now
 *           lies on the way to, until a null
 * </pre>
 * The arrays double when half full (the channel's in-flight cap bounds them); nothing else allocates.
 *
 * <p>Thread: the channel's loop.
 */
final class CallTable {
    private TeleportCall[] slots = new TeleportCall[64];
    private int size;
    private int nextId;

    CallTable() {
        this(1);
    }

    /** A table whose first id given is {@code firstId} (a test starts it near the wrap). */
    CallTable(int firstId) {
        this.nextId = firstId;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The call in flight under {@code id}, or null. */
    TeleportCall get(int id) {
        TeleportCall[] s = slots;
        int mask = s.length - 1;
        for (int i = home(id, mask); ; i = (i + 1) & mask) {
            TeleportCall c = s[i];
            if (c == null || c.id == id) {
                return c;
            }
        }
    }

    boolean contains(int id) {
        return get(id) != null;
    }

    /** The next id after the last one given that is neither 0 nor in flight (ids wrap: u32 on the wire). */
    int freeId() {
        while (nextId == 0 || contains(nextId)) {
            nextId++;
        }
        return nextId++;
    }

    /** Adds {@code call} under its id, which is not in the table. */
    void put(TeleportCall call) {
        if (2 * (size + 1) > slots.length) {
            grow();
        }
        insert(slots, call);
        size++;
    }

    /** Removes and returns the call under {@code id}, or null. */
    TeleportCall remove(int id) {
        TeleportCall[] s = slots;
        int mask = s.length - 1;
        int i = home(id, mask);
        while (true) {
            TeleportCall c = s[i];
            if (c == null) {
                return null;
            }
            if (c.id == id) {
                break;
            }
            i = (i + 1) & mask;
        }
        TeleportCall gone = s[i];
        size--;
        int hole = i;
        for (int j = (i + 1) & mask; s[j] != null; j = (j + 1) & mask) {
            int h = home(s[j].id, mask);
            // s[j] may move into the hole when its home is not in (hole, j] (cyclically)
            if (((j - h) & mask) >= ((j - hole) & mask)) {
                s[hole] = s[j];
                hole = j;
            }
        }
        s[hole] = null;
        return gone;
    }

    /**
     * Removes the calls sent after {@code lastId} (a GOAWAY's): ids rise as calls are sent, and the signed
     * difference orders them across the wrap. Returned the last sent first. (Allocates: GOAWAY only.)
     */
    List<TeleportCall> removeAfter(int lastId) {
        List<TeleportCall> after = new ArrayList<>();
        for (TeleportCall call : drain()) {
            if (call.id - lastId > 0) {
                after.add(call);
            } else {
                put(call);
            }
        }
        after.sort((a, b) -> Integer.compare(b.id - lastId, a.id - lastId));
        return after;
    }

    /** Every call, in no order, and the table emptied (failure paths: allocates the list). */
    List<TeleportCall> drain() {
        List<TeleportCall> all = new ArrayList<>(size);
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null) {
                all.add(slots[i]);
                slots[i] = null;
            }
        }
        size = 0;
        return all;
    }

    private void grow() {
        TeleportCall[] bigger = new TeleportCall[slots.length * 2];
        for (TeleportCall c : slots) {
            if (c != null) {
                insert(bigger, c);
            }
        }
        slots = bigger;
    }

    private static void insert(TeleportCall[] s, TeleportCall call) {
        int mask = s.length - 1;
        int i = home(call.id, mask);
        while (s[i] != null) {
            i = (i + 1) & mask;
        }
        s[i] = call;
    }

    /** Ids rise by one per call: a multiplicative mix spreads neighbours (Knuth's golden ratio). */
    private static int home(int id, int mask) {
        int h = id * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }
}
