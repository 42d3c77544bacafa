package dev.peregrine;

import dev.peregrine.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many short blocks add up: inline calls of 20 ms each, none reaching {@code blockedLoopWarning},
 * keep a loop held for most of each interval; the watchdog reports it once, naming the route, and
 * counts it. Over real sockets; the load runs until the warning comes or a generous deadline passes.
 */
class BusyLoopWarningTest {
    @Test
    void aLoopHeldByManyShortCallsIsReportedWithItsRoute() throws Exception {
        List<String> warnings = new CopyOnWriteArrayList<>();
        Logger jul = Logger.getLogger("dev.peregrine");
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getMessage() != null && r.getMessage().contains("busyLoopWarning")) {
                    warnings.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(capture);
        AtomicBoolean stop = new AtomicBoolean();
        try (Server s = Server.builder().port(0).threads(1)
                .blockedLoopWarning(Duration.ofMillis(500))
                .busyLoopWarning(50, Duration.ofMillis(300))
                .get("/short", (req, res) -> {
                    Thread.sleep(20); // deliberately blocks its loop, briefly
                    res.text("ok");
                })
                .start()) {
            List<Thread> load = new java.util.ArrayList<>();
            for (int t = 0; t < 3; t++) {
                Thread th = new Thread(() -> {
                    try (RawClient c = new RawClient(s.port())) {
                        while (!stop.get()) {
                            c.send("GET /short HTTP/1.1\r\nHost: a\r\n\r\n");
                            c.read();
                        }
                    } catch (Exception e) {
                        // the server closes at the end
                    }
                });
                th.start();
                load.add(th);
            }
            try {
                dev.peregrine.testing.Await.until("a busy-loop warning", () -> s.metrics().busyLoopWarnings > 0);
            } finally {
                stop.set(true);
            }
            for (Thread th : load) {
                th.join(30_000);
            }
            assertEquals(1, s.metrics().busyLoopWarnings, "one warning: the next is 10 s away");
            assertEquals(0, s.metrics().blockedLoopWarnings, "no single call reached blockedLoopWarning");
        } finally {
            jul.removeHandler(capture);
        }
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("GET /short"), warnings.get(0));
    }
}
