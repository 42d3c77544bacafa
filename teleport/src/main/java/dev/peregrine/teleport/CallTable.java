package dev.peregrine.teleport;

import java.util.ArrayList;
import java.util.List;

/**
 * A channel's calls in flight by request id: open addressing on an {@code int} key (no boxing, no node
 * per entry), linear probing, deletion by backward shift (no tombstones, so a long-lived table never
 * degrades). Id 0 is never in flight (the protocol reserves it), so an empty slot is a null.
 * <pre>
 *   home(id) = id &amp; mask; probe home, home+1, ... until the id or a null;  size &lt;= capacity / 2
 *   freeId:  the next id (rising, wrapping, never 0) whose home slot is empty: the channel's own calls
 *            sit at home, so finding and removing one touches one slot
 *   remove:  empty the slot; only if some entry sits away from home ({@code displaced} &gt; 0), move back
 *            each following entry whose home slot the hole now lies on the way to, until a null
 * </pre>
 * The home is the id's low bits, not a hash of it: ids rise by one per call, so the calls in flight
 * fill consecutive slots, one each, and an answer frees its slot for the id {@code capacity} later.
 * (A mixed hash spread them, but then every lookup probed and every removal shifted.) Ids put from
 * elsewhere (the table is general: a test puts any) may collide and probe; {@code displaced} counts
 * those, and while it is 0 a removal need not look past its own slot (an entry at home never moves).
 * The arrays double when half full (the channel's in-flight cap bounds them); nothing else allocates.
 *
 * <p>Thread: the channel's loop.
 */
final class CallTable {
    private TeleportCall[] slots = new TeleportCall[64];
    private int size;
    /** Entries not in their home slot (put with an id whose home was taken). */
    private int displaced;
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
        for (int i = id & mask; ; i = (i + 1) & mask) {
            TeleportCall c = s[i];
            if (c == null || c.id == id) {
                return c;
            }
        }
    }

    boolean contains(int id) {
        return get(id) != null;
    }

    /**
     * The next id after the last one given that is not 0 and whose home slot is empty (so not in flight:
     * with linear probing an id whose home is empty is nowhere in the table). Ids wrap: u32 on the wire.
     * A free slot exists: the table is at most half full.
     */
    int freeId() {
        TeleportCall[] s = slots;
        int mask = s.length - 1;
        while (nextId == 0 || s[nextId & mask] != null) {
            nextId++;
        }
        return nextId++;
    }

    /** Adds {@code call} under its id, which is not in the table. */
    void put(TeleportCall call) {
        if (2 * (size + 1) > slots.length) {
            grow();
        }
        if (insert(slots, call)) {
            displaced++;
        }
        size++;
    }

    /** Removes and returns the call under {@code id}, or null. */
    TeleportCall remove(int id) {
        TeleportCall[] s = slots;
        int mask = s.length - 1;
        int i = id & mask;
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
        if (i != (id & mask)) {
            displaced--;
        }
        int hole = i;
        for (int j = (i + 1) & mask; displaced > 0 && s[j] != null; j = (j + 1) & mask) {
            int h = s[j].id & mask;
            // s[j] may move into the hole when its home is not in (hole, j] (cyclically); then it was displaced
            if (((j - h) & mask) >= ((j - hole) & mask)) {
                s[hole] = s[j];
                if (hole == h) {
                    displaced--; // home again
                }
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
        displaced = 0;
        return all;
    }

    private void grow() {
        TeleportCall[] bigger = new TeleportCall[slots.length * 2];
        int away = 0;
        for (TeleportCall c : slots) {
            if (c != null && insert(bigger, c)) {
                away++;
            }
        }
        slots = bigger;
        displaced = away;
    }

    /** Puts {@code call} in its home slot or the first empty one after it; returns whether that is away from home. */
    private static boolean insert(TeleportCall[] s, TeleportCall call) {
        int mask = s.length - 1;
        int home = call.id & mask;
        int i = home;
        while (s[i] != null) {
            i = (i + 1) & mask;
        }
        s[i] = call;
        return i != home;
    }
}
