package dev.peregrine.loop;

import dev.peregrine.Server;
import dev.peregrine.TestConfigs;
import dev.peregrine.route.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ConnectionRecycler}: a closed plain connection serves a later socket, only once the tasks
 * queued before its close have run, starting as a new one would; a connection that handed work off
 * the loop is never reused. (Every harness test recycles too: the split and fuzz tests compare a
 * recycled connection's answers with another's.)
 */
class ConnectionRecyclerTest {
    @TempDir
    Path dir;

    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n";

    private LoopContext loop(Server.Builder settings) {
        Path file = dir.resolve("f.txt");
        Router router = Router.builder()
                .add("GET", "/plaintext", (req, res) -> res.text("Hello, World!"))
                .add("GET", "/file", (req, res) -> res.sendFile(file))
                .build();
        return TestConfigs.serverLoop(TestConfigs.of(settings), router);
    }

    /** The peer reads the last response and closes too: the connection has drained and is closed. */
    private static void peerCloses(ConnectionHarness h) {
        h.io.endOfInput();
        h.run();
        assertTrue(h.closed(), "closed once the peer closed");
    }

    @Test
    void aClosedConnectionIsReusedOnlyAfterTheTasksQueuedBeforeItsClose() {
        LoopContext ctx = loop(Server.builder());
        ConnectionHarness first = new ConnectionHarness(ctx);
        Connection[] madeByEarlierTask = new Connection[1];
        ctx.eventLoop().execute(() -> madeByEarlierTask[0] = ctx.newConnection(new MemoryEndpoint()));

        first.send("GET /plaintext HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        peerCloses(first);

        ConnectionHarness second = new ConnectionHarness(ctx); // runs the tasks: the earlier one first
        assertNotSame(first.connection, madeByEarlierTask[0], "a task queued before the close never gets it");
        assertSame(first.connection, second.connection, "then the closed connection serves the next socket");
        assertTrue(second.send(GET).written().startsWith("HTTP/1.1 200 OK\r\n"));
        madeByEarlierTask[0].close();
    }

    @Test
    void aRecycledConnectionStartsAsANewOne() {
        LoopContext ctx = loop(Server.builder().maxRequestsPerConnection(2));
        ConnectionHarness first = new ConnectionHarness(ctx);
        first.send(GET + "GET /plain"); // one answered, one head left incomplete (held input, HEAD timer)
        first.io.endOfInput();
        first.run();
        assertTrue(first.closed());

        ConnectionHarness second = new ConnectionHarness(ctx);
        assertSame(first.connection, second.connection);
        String out = second.send(GET + GET).written();
        String[] responses = out.split("(?=HTTP/1\\.1 )");
        assertEquals(2, responses.length, out);
        assertFalse(responses[0].contains("Connection: close"), "its request budget starts full again: " + out);
        assertTrue(responses[1].contains("Connection: close"), "and ends at the limit: " + out);
        peerCloses(second);
        assertEquals(0, ctx.pool().lentCount(), "every buffer is back");
        assertEquals(0, ctx.timers().armed(), "no timer left armed");
    }

    @Test
    void aConnectionThatWorkedOffTheLoopIsNotReused() throws Exception {
        Files.writeString(dir.resolve("f.txt"), "file body");
        LoopContext ctx = loop(Server.builder());
        ConnectionHarness first = new ConnectionHarness(ctx);
        first.send("GET /file HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        assertTrue(first.written().endsWith("file body"), first.written());
        peerCloses(first);

        ConnectionHarness second = new ConnectionHarness(ctx);
        assertNotSame(first.connection, second.connection, "a body sent in pieces may still be reached");
        second.connection.close();
    }

    @Test
    void aConnectionOfAContextWithNoLoopIsNotKept() {
        LoopContext ctx = new LoopContext(dev.peregrine.server.ServerSetup.of(TestConfigs.of(Server.builder()),
                Router.builder().build()).listener());
        Connection c = ctx.newConnection(new MemoryEndpoint());
        c.close();
        assertEquals(0, ctx.recycler.spares());
        assertNotSame(c, ctx.newConnection(new MemoryEndpoint()));
    }
}
