package dev.peregrine.loop;

import dev.peregrine.Server;
import dev.peregrine.TestConfigs;
import dev.peregrine.route.Router;

import java.nio.charset.StandardCharsets;

/**
 * One {@link Connection} on a {@link MemoryEndpoint}, driven the way a loop drives it: readable
 * while there is input and read interest, writable while write interest is on. No threads, no sockets.
 */
public final class ConnectionHarness {
    public final LoopContext ctx;
    public final MemoryEndpoint io = new MemoryEndpoint();
    public final Connection connection;

    /** A connection to a server with {@code settings} (a builder with routes and limits). */
    public ConnectionHarness(Server.Builder settings, Router router) {
        this(dev.peregrine.TestConfigs.serverLoop(TestConfigs.of(settings), router));
    }

    /** A new connection on an existing loop (reused across connections, as a real loop is). */
    public ConnectionHarness(LoopContext ctx) {
        this.ctx = ctx;
        if (ctx.eventLoop() instanceof TestConfigs.TaskLoop) {
            ((TestConfigs.TaskLoop) ctx.eventLoop()).runTasks(); // recycles the connections closed so far
        }
        connection = ctx.newConnection(io);
    }

    /** Delivers {@code bytes} in one read and runs the connection until it waits for the peer. */
    public ConnectionHarness send(String ascii) {
        io.feed(ascii.getBytes(StandardCharsets.ISO_8859_1));
        return run();
    }

    /**
     * Runs readiness events, as a level-triggered selector would report them, until the connection
     * waits (no input it wants to read, no output the peer takes). An event that moves nothing would
     * make a real loop spin: that fails the test.
     */
    public ConnectionHarness run() {
        while (!io.closed()) {
            boolean canWrite = io.writeInterest() && io.writeBudget() > 0;
            boolean canRead = io.readInterest() && io.hasInput();
            if (!canWrite && !canRead) {
                return this;
            }
            long before = io.moved();
            if (canWrite) {
                connection.onWritable();
            }
            if (canRead && !io.closed()) {
                connection.onReadable();
            }
            if (io.moved() == before && !io.closed()) {
                throw new AssertionError("readiness reported (read " + canRead + ", write " + canWrite
                        + ") but nothing moved: a real loop would spin; " + describe());
            }
        }
        return this;
    }

    private String describe() {
        StringBuilder b = new StringBuilder();
        for (Object o : new Object[] {connection, connection.protocol()}) {
            for (java.lang.reflect.Field f : o.getClass().getDeclaredFields()) {
                if (!java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    try {
                        f.setAccessible(true);
                        b.append(f.getName()).append('=').append(f.get(o)).append(' ');
                    } catch (ReflectiveOperationException e) {
                        b.append(f.getName()).append("=? ");
                    }
                }
            }
        }
        return b.toString();
    }

    /** Lets the peer take {@code bytes} more of the output, then runs. */
    public ConnectionHarness peerReads(int bytes) {
        io.writeBudget(bytes);
        return run();
    }

    /** Everything the connection wrote so far, as text. */
    public String written() {
        return io.writtenText();
    }

    public boolean closed() {
        return io.closed();
    }

    public boolean outputShut() {
        return io.outputShut();
    }
}
