package dev.peregrine.loop;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TimerWheel} on a simulated clock (no real time passes). */
class TimerWheelTest {
    private final List<String> fired = new ArrayList<>();

    private final class Node extends Timeout {
        final String name;
        Runnable then;

        Node(String name) {
            this.name = name;
        }

        @Override
        protected void onTimeout() {
            fired.add(name);
            if (then != null) {
                then.run();
            }
        }
    }

    @Test
    void firesBetweenTheDelayAndOneTickLater() {
        TimerWheel w = new TimerWheel(10, 64, 1000);
        Node a = new Node("a");
        w.schedule(a, 25, 1000);
        assertTrue(a.scheduled());
        assertEquals(1, w.armed());
        w.advance(1024);
        assertEquals(List.of(), fired);
        w.advance(1030);
        assertEquals(List.of("a"), fired);
        assertFalse(a.scheduled());
        assertEquals(0, w.armed());
        w.advance(5000);
        assertEquals(List.of("a"), fired, "fires once");
    }

    @Test
    void cancelAndReArm() {
        TimerWheel w = new TimerWheel(10, 64, 0);
        Node a = new Node("a");
        Node b = new Node("b");
        Node c = new Node("c");
        w.schedule(a, 50, 0);
        w.schedule(b, 50, 0);
        w.schedule(c, 50, 0);
        w.cancel(b);
        w.cancel(b);
        w.schedule(c, 200, 0);
        assertEquals(2, w.armed());
        w.advance(100);
        assertEquals(List.of("a"), fired);
        w.advance(200);
        assertEquals(List.of("a", "c"), fired);
    }

    @Test
    void deadlinesBeyondOneTurnWaitForTheirTurn() {
        TimerWheel w = new TimerWheel(10, 16, 0);
        Node far = new Node("far");
        w.schedule(far, 1000, 0); // 100 ticks on a 16-slot wheel
        for (long t = 0; t < 1000; t += 10) {
            w.advance(t);
        }
        assertEquals(List.of(), fired);
        w.advance(1000);
        assertEquals(List.of("far"), fired);
    }

    @Test
    void aLongPauseFiresEverythingDue() {
        TimerWheel w = new TimerWheel(10, 16, 0);
        for (int i = 0; i < 100; i++) {
            w.schedule(new Node("n" + i), i * 7L, 0);
        }
        w.advance(100_000);
        assertEquals(100, fired.size());
        assertEquals(0, w.armed());
    }

    @Test
    void aNodeMayReArmItselfOrCancelAnotherFromOnTimeout() {
        TimerWheel w = new TimerWheel(10, 16, 0);
        Node self = new Node("self");
        Node victim = new Node("victim");
        Node killer = new Node("killer");
        int[] rounds = {0};
        self.then = () -> {
            if (++rounds[0] < 3) {
                w.schedule(self, 10, 10L * rounds[0] * 2);
            }
        };
        killer.then = () -> w.cancel(victim);
        w.schedule(victim, 20, 0);
        w.schedule(killer, 20, 0); // same slot, at its head: runs first
        w.schedule(self, 10, 0);
        for (long t = 0; t <= 200; t += 5) {
            w.advance(t);
        }
        assertEquals(List.of("self", "killer", "self", "self"), fired);
        assertEquals(0, w.armed());
    }

    @Test
    void sleepHint() {
        TimerWheel w = new TimerWheel(10, 16, 0);
        assertEquals(-1, w.millisToNextTick(3));
        w.schedule(new Node("x"), 100, 3);
        assertEquals(7, w.millisToNextTick(3));
        assertThrows(IllegalArgumentException.class, () -> new TimerWheel(10, 12, 0));
    }
}
