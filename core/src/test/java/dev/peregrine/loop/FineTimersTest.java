package dev.peregrine.loop;

import dev.peregrine.TestConfigs;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link FineTimers} on a simulated clock (no real time passes), and its place in {@link LoopContext#runTimers}. */
class FineTimersTest {
    private static final long MS = 1_000_000L;
    private final List<String> fired = new ArrayList<>();

    private final class Node extends FineTimeout {
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
    void firesAtItsDeadlineNotRoundedToATick() {
        FineTimers t = new FineTimers();
        long now = 5_000_000_123L;
        Node a = new Node("a");
        t.schedule(a, 2 * MS, now);
        assertTrue(a.scheduled());
        assertEquals(now + 2 * MS, t.nextDeadlineNanos(), "due at the delay itself");
        assertEquals(2 * MS, t.nanosToNext(now));
        assertEquals(2, t.millisToNext(now), "a millisecond wait ends at the deadline");
        assertEquals(1, t.millisToNext(now + MS + 1), "rounded up, never 0 (a selector's forever)");
        assertEquals(0, t.runDue(now + 2 * MS - 1));
        assertTrue(fired.isEmpty());
        assertEquals(1, t.runDue(now + 2 * MS));
        assertEquals(List.of("a"), fired);
        assertFalse(a.scheduled());
        assertTrue(t.isEmpty());
        assertEquals(-1, t.nanosToNext(now));
        assertEquals(-1, t.millisToNext(now));
    }

    @Test
    void firesNearestFirstAndCancelledNodesNever() {
        FineTimers t = new FineTimers();
        Node a = new Node("a");
        Node b = new Node("b");
        Node c = new Node("c");
        Node d = new Node("d");
        t.schedule(c, 3 * MS, 0);
        t.schedule(a, 1 * MS, 0);
        t.schedule(d, 4 * MS, 0);
        t.schedule(b, 2 * MS, 0);
        t.cancel(c);
        t.cancel(c); // twice: nothing
        assertFalse(c.scheduled());
        assertEquals(3, t.armed());
        t.schedule(d, MS / 2, 0); // re-armed sooner
        assertEquals(3, t.runDue(10 * MS));
        assertEquals(List.of("d", "a", "b"), fired);
    }

    @Test
    void aNodeReArmedFromItsTimeoutFiresOnItsNextDeadline() {
        FineTimers t = new FineTimers();
        Node a = new Node("a");
        a.then = () -> {
            if (fired.size() < 3) {
                t.schedule(a, 2 * MS, fired.size() * 2 * MS);
            }
        };
        t.schedule(a, 2 * MS, 0);
        assertEquals(1, t.runDue(2 * MS), "the re-armed node is not due in the same pass");
        assertEquals(1, t.runDue(4 * MS));
        assertEquals(1, t.runDue(6 * MS));
        assertEquals(0, t.runDue(100 * MS));
        assertEquals(3, fired.size());
    }

    /** Random arms and cancels against a sorted list: the heap fires exactly the due nodes, in order, and grows. */
    @Test
    void agreesWithASortedListUnderRandomUse() {
        Random r = new Random(26);
        FineTimers t = new FineTimers();
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            nodes.add(new Node(Integer.toString(i)));
        }
        long now = Long.MAX_VALUE - 50 * MS; // deadlines wrap past Long.MAX_VALUE, as nanoTime may
        for (int round = 0; round < 2_000; round++) {
            Node n = nodes.get(r.nextInt(nodes.size()));
            if (r.nextInt(4) == 0) {
                t.cancel(n);
            } else {
                t.schedule(n, r.nextInt(20) * MS + r.nextInt(1000), now);
            }
            if (r.nextInt(10) == 0) {
                long to = now + r.nextInt(5) * MS;
                List<Node> due = new ArrayList<>();
                for (Node x : nodes) {
                    if (x.scheduled() && x.deadlineNanos - to <= 0) {
                        due.add(x);
                    }
                }
                due.sort((x, y) -> Long.compare(x.deadlineNanos - to, y.deadlineNanos - to));
                fired.clear();
                assertEquals(due.size(), t.runDue(to));
                List<String> expected = new ArrayList<>();
                long last = Long.MIN_VALUE;
                for (Node x : due) {
                    expected.add(x.name);
                }
                assertEquals(expected.size(), fired.size());
                for (String name : fired) { // equal deadlines may fire in either order: check by deadline
                    Node x = nodes.get(Integer.parseInt(name));
                    long rel = x.deadlineNanos - to;
                    assertTrue(rel >= last, "fired in deadline order");
                    last = rel;
                    assertFalse(x.scheduled());
                }
                now = to;
            }
            int armed = 0;
            for (Node x : nodes) {
                armed += x.scheduled() ? 1 : 0;
            }
            assertEquals(armed, t.armed());
        }
    }

    /** The loop's wait: with a fine deadline 2 ms ahead it sleeps at most 2 ms, not the wheel's 10 ms tick or its maximum. */
    @Test
    void theLoopWaitEndsAtTheFineDeadline() {
        LoopContext ctx = TestConfigs.serverLoop(TestConfigs.of(dev.peregrine.Server.builder()),
                dev.peregrine.route.Router.builder().build());
        assertEquals(1000, ctx.runTimers(1000), "nothing armed: the loop's own maximum");
        Timeout coarse = new Timeout() {
            @Override
            protected void onTimeout() {
            }
        };
        ctx.timers().schedule(coarse, 60_000, ctx.nowMillis());
        long wheel = ctx.runTimers(1000);
        assertTrue(wheel <= 10, "the wheel wakes at its next tick: " + wheel);
        Node a = new Node("a");
        ctx.scheduleFine(a, 1_000);
        assertTrue(ctx.runTimers(1000) <= 10, "a fine deadline after the tick changes nothing");
        ctx.timers().cancel(coarse);
        long sleep = ctx.runTimers(5_000);
        assertTrue(sleep > 10 && sleep <= 1_000, "the fine deadline alone bounds the wait: " + sleep);
        ctx.scheduleFine(a, 2);
        assertTrue(ctx.runTimers(1000) <= 2, "2 ms ahead: a wait of at most 2 ms");
        ctx.fineTimers().schedule(a, 0, System.nanoTime());
        ctx.runTimers(1000);
        assertEquals(List.of("a"), fired, "due: fired by runTimers");
        ctx.scheduleFine(a, 0);
        ctx.runFineTimers();
        assertEquals(List.of("a", "a"), fired, "due: fired by runFineTimers");
        assertTrue(ctx.fineTimers().isEmpty());
    }
}
