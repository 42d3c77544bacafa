package dev.peregrine.teleport;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** {@link CallTable}: an int-keyed open-addressing table checked against a {@code HashMap} under random use. */
class CallTableTest {
    private static TeleportCall call(int id) {
        TeleportCall c = new TeleportCall(null);
        c.id = id;
        return c;
    }

    @Test
    void agreesWithAHashMapUnderRandomPutsAndRemoves() {
        Random r = new Random(26);
        CallTable t = new CallTable();
        Map<Integer, TeleportCall> m = new HashMap<>();
        for (int round = 0; round < 200_000; round++) {
            // ids from a narrow window (collisions, long probe runs) and across the u32 wrap
            int id = r.nextBoolean() ? r.nextInt(300) + 1 : -150 + r.nextInt(300);
            if (id == 0) {
                continue;
            }
            if (r.nextInt(3) > 0 && !m.containsKey(id)) {
                TeleportCall c = call(id);
                t.put(c);
                m.put(id, c);
            } else {
                assertSame(m.remove(id), t.remove(id));
            }
            if (round % 1000 == 0) {
                for (int probe = -200; probe < 400; probe++) {
                    assertSame(m.get(probe), probe == 0 ? null : t.get(probe), "id " + probe);
                }
            }
            assertEquals(m.size(), t.size());
        }
        List<TeleportCall> all = t.drain();
        assertEquals(m.size(), all.size());
        assertEquals(0, t.size());
        for (TeleportCall c : all) {
            assertSame(m.get(c.id), c);
            assertNull(t.get(c.id));
        }
    }

    /** The channel's own use: ids from freeId, answered mostly in order, a few calls lingering for many ids. */
    @Test
    void agreesWithAHashMapWhenIdsComeFromFreeIdWithCallsLingering() {
        Random r = new Random(27);
        CallTable t = new CallTable(-5000); // across the wrap too
        Map<Integer, TeleportCall> m = new HashMap<>();
        List<Integer> inOrder = new ArrayList<>();
        for (int round = 0; round < 100_000; round++) {
            if (m.size() < 900 && r.nextInt(4) > 0) {
                int id = t.freeId();
                assertNull(m.get(id), "id " + id + " is in flight");
                TeleportCall c = call(id);
                t.put(c);
                m.put(id, c);
                inOrder.add(id);
            } else if (!inOrder.isEmpty()) {
                // mostly the oldest; now and then a random one; one in fifty oldest lingers (skipped for now)
                int at = r.nextInt(10) == 0 ? r.nextInt(inOrder.size()) : Math.min(inOrder.size() - 1, r.nextInt(50) == 0 ? 1 : 0);
                int id = inOrder.remove(at);
                assertSame(m.remove(id), t.remove(id));
            }
            assertEquals(m.size(), t.size());
            if (round % 5000 == 0) {
                for (int id : m.keySet()) {
                    assertSame(m.get(id), t.get(id));
                }
            }
        }
    }

    @Test
    void freeIdsSkipZeroAndIdsInFlightAcrossTheWrap() {
        CallTable t = new CallTable();
        assertEquals(1, t.freeId());
        t.put(call(2));
        t.put(call(3));
        assertEquals(4, t.freeId(), "2 and 3 are in flight");
        CallTable near = new CallTable(-2); // 0xFFFFFFFE on the wire
        near.put(call(1));
        assertEquals(-2, near.freeId());
        assertEquals(-1, near.freeId());
        assertEquals(2, near.freeId(), "0 is never given, 1 is in flight");
    }

    @Test
    void callsAfterAGoawaysIdComeBackLastSentFirstAcrossTheWrap() {
        CallTable t = new CallTable();
        int[] sent = {-3, -2, -1, 1, 2, 3}; // in the order sent: the ids wrapped between -1 and 1
        for (int id : sent) {
            t.put(call(id));
        }
        List<Integer> after = new ArrayList<>();
        for (TeleportCall c : t.removeAfter(-2)) {
            after.add(c.id);
        }
        assertEquals(List.of(3, 2, 1, -1), after);
        assertEquals(2, t.size());
        assertEquals(-3, t.get(-3).id);
        assertEquals(-2, t.get(-2).id);
    }
}
