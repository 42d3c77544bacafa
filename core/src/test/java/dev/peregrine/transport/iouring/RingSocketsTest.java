package dev.peregrine.transport.iouring;

import dev.peregrine.testing.Await;
import dev.peregrine.transport.NettyLoop;
import dev.peregrine.transport.Readiness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link RingSockets} over real sockets on a bare io_uring loop, with registrations of four sockets so
 * that ten cross three of them: each completion reaches the socket its entry names and no other, a
 * cancel names the right entry, and an index comes back only once the socket is closed and its last
 * completion came, to be taken by the next socket on the same registrations.
 */
class RingSocketsTest {
    private static final int N = 10;

    private ServerSocket server;
    private NettyLoop loop;
    private RingSockets sockets;
    /** Per socket: poll completions reporting input, and reporting output. */
    private final AtomicIntegerArray ins = new AtomicIntegerArray(N);
    private final AtomicIntegerArray outs = new AtomicIntegerArray(N);

    @BeforeEach
    void start() throws IOException {
        assumeTrue(IoUringAvailability.isAvailable(), () -> "io_uring unavailable: " + IoUringAvailability.unavailabilityReason());
        server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        loop = NettyIoUring.loop("ring-sockets-test", null);
        sockets = new RingSockets(loop, null, 4);
    }

    @AfterEach
    void stop() throws IOException {
        if (loop != null) {
            loop.shutdown(1_000);
        }
        if (server != null) {
            server.close();
        }
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f.get(30, TimeUnit.SECONDS);
    }

    /** Socket {@code i}'s completions, counted in {@link #ins} and {@link #outs}. */
    private Readiness recorder(int i) {
        return (in, out, hangup) -> {
            if (in) {
                ins.incrementAndGet(i);
            }
            if (out) {
                outs.incrementAndGet(i);
            }
        };
    }

    /** N sockets connected to {@link #server}, registered, each with its write poll armed; and their peers. */
    private List<Dialed> dialAll(List<Socket> peers) throws Exception {
        InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
        List<Dialed> dialed = onLoop(() -> {
            List<Dialed> made = new ArrayList<>();
            for (int i = 0; i < N; i++) {
                Dialed d = Dialed.connecting(at);
                d.register(sockets, recorder(i));
                d.armWrite(); // completes when connected: POLLOUT
                made.add(d);
            }
            return made;
        });
        for (int i = 0; i < N; i++) {
            peers.add(server.accept());
        }
        return dialed;
    }

    @Test
    void completionsReachTheirSocketAcrossRegistrations() throws Exception {
        List<Socket> peers = new ArrayList<>();
        List<Dialed> dialed = dialAll(peers);
        try {
            Await.until("every socket's write poll completed", () -> {
                for (int i = 0; i < N; i++) {
                    if (outs.get(i) != 1) {
                        return false;
                    }
                }
                return true;
            });
            assertEquals(3, (int) onLoop(sockets::registrations), "ten sockets, four a registration");
            // Read polls on all; bytes to one peer in three: those sockets alone hear it.
            onLoop(() -> {
                dialed.forEach(Dialed::armRead);
                return null;
            });
            for (int i = 0; i < N; i += 3) {
                OutputStream o = peers.get(i).getOutputStream();
                o.write(i);
                o.flush();
            }
            Await.until("the sockets written to heard it", () -> ins.get(0) == 1 && ins.get(3) == 1 && ins.get(6) == 1 && ins.get(9) == 1);
            // Their polls are spent; the others' are armed: one more byte each to two of them.
            for (int i : new int[]{1, 8}) {
                peers.get(i).getOutputStream().write(i);
            }
            Await.until("sockets 1 and 8 heard theirs", () -> ins.get(1) == 1 && ins.get(8) == 1);
            for (int i = 0; i < N; i++) {
                boolean written = i % 3 == 0 || i == 1 || i == 8;
                assertEquals(written ? 1 : 0, ins.get(i), "socket " + i + " heard input");
                assertEquals(1, outs.get(i), "socket " + i + " heard output");
            }
        } finally {
            for (Socket p : peers) {
                p.close();
            }
        }
    }

    @Test
    void anIndexComesBackAfterTheLastCompletionAndIsTakenAgain() throws Exception {
        List<Socket> peers = new ArrayList<>();
        List<Dialed> dialed = dialAll(peers);
        try {
            Await.until("every socket connected", () -> {
                for (int i = 0; i < N; i++) {
                    if (outs.get(i) != 1) {
                        return false;
                    }
                }
                return true;
            });
            // Read polls armed and never completed (the peers send nothing): each close cancels one, so the
            // index stays taken until the cancel's completions (the poll's -ECANCELED and the cancel's own) came.
            int heldAtClose = onLoop(() -> {
                dialed.forEach(Dialed::armRead);
                dialed.forEach(Dialed::closeSocket);
                return sockets.size();
            });
            assertEquals(N, heldAtClose, "closed sockets keep their index while completions are due");
            Await.until("every index given back", () -> {
                try {
                    return onLoop(sockets::size) == 0;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            for (int i = 0; i < N; i++) {
                assertEquals(0, ins.get(i), "a cancelled poll reports nothing to a closed socket");
                assertEquals(-1, peers.get(i).getInputStream().read(), "socket " + i + " was closed");
            }
        } finally {
            for (Socket p : peers) {
                p.close();
            }
        }
        // Ten more take the same indexes, on the same three registrations.
        for (int i = 0; i < N; i++) {
            outs.set(i, 0);
        }
        List<Socket> again = new ArrayList<>();
        dialAll(again);
        try {
            Await.until("the new sockets connected", () -> {
                for (int i = 0; i < N; i++) {
                    if (outs.get(i) != 1) {
                        return false;
                    }
                }
                return true;
            });
            assertEquals(N, (int) onLoop(sockets::size));
            assertEquals(3, (int) onLoop(sockets::registrations), "indexes reused, no registration added");
        } finally {
            for (Socket p : again) {
                p.close();
            }
        }
    }

    /**
     * A send before its group's first completion goes through Netty as a {@code SENDMSG}; once a
     * completion came, sends are {@code IORING_OP_SEND}s written straight into the submission queue
     * ({@link DirectSend}: the class path opens Netty's package to us). Both deliver their bytes, in
     * order, and report what the socket took.
     */
    @Test
    void sendsAreDirectOnceTheGroupHadACompletion() throws Exception {
        InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
        java.util.concurrent.BlockingQueue<Integer> sent = new java.util.concurrent.LinkedBlockingQueue<>();
        java.nio.ByteBuffer first = java.nio.ByteBuffer.allocateDirect(64);
        java.nio.ByteBuffer second = java.nio.ByteBuffer.allocateDirect(64);
        first.put("GET / HTTP/1.1\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).flip();
        second.put("..Host: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).flip();
        Dialed d = dial(at, recording(sent), true); // the write poll's completion, connected, is the group's first
        try (Socket peer = server.accept()) {
            Await.until("connected", () -> outs.get(0) == 1);
            assertTrue(onLoop(() -> {
                d.send(first, 0, first.limit());
                return sockets.sendsDirect();
            }), "a send after the group's first completion is direct");
            assertEquals(first.limit(), sent.poll(30, TimeUnit.SECONDS));
            onLoop(() -> {
                d.send(second, 2, second.limit() - 2);
                return null;
            });
            assertEquals(second.limit() - 2, sent.poll(30, TimeUnit.SECONDS));
            byte[] got = peer.getInputStream().readNBytes(first.limit() + second.limit() - 2);
            assertEquals("GET / HTTP/1.1\r\nHost: x\r\n\r\n", new String(got, java.nio.charset.StandardCharsets.US_ASCII));
            onLoop(() -> {
                d.closeSocket();
                return null;
            });
            assertEquals(-1, peer.getInputStream().read(), "closed");
            Await.until("the index given back", () -> {
                try {
                    return onLoop(sockets::size) == 0;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        }
    }

    /** Before any completion of its group, a send is a {@code SENDMSG} through Netty, and arrives. */
    @Test
    void aSendBeforeAnyCompletionGoesThroughNetty() throws Exception {
        InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
        java.util.concurrent.BlockingQueue<Integer> sent = new java.util.concurrent.LinkedBlockingQueue<>();
        java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocateDirect(16);
        bytes.put("hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).flip();
        Dialed d = dial(at, recording(sent), false);
        try (Socket peer = server.accept()) {
            // accept() returned, so the handshake is done: the socket can send with no poll ever armed.
            assertFalse(onLoop(() -> {
                d.send(bytes, 0, 5);
                return sockets.sendsDirect();
            }), "no completion yet: through Netty");
            assertEquals(5, sent.poll(30, TimeUnit.SECONDS));
            assertEquals("hello", new String(peer.getInputStream().readNBytes(5), java.nio.charset.StandardCharsets.US_ASCII));
            onLoop(() -> {
                d.closeSocket();
                return null;
            });
        }
    }

    /** An owner that counts write readiness in {@code outs[0]} and queues each send's result on {@code sent}. */
    private Readiness recording(java.util.concurrent.BlockingQueue<Integer> sent) {
        return new Readiness() {
            @Override
            public void ready(boolean in, boolean out, boolean hangup) {
                if (out) {
                    outs.incrementAndGet(0);
                }
            }

            @Override
            public void sent(int res) {
                sent.add(res);
            }
        };
    }

    /** A socket connecting to {@code at}, registered in the group on the loop; with its write poll armed if asked. */
    private Dialed dial(InetSocketAddress at, Readiness owner, boolean armWrite) throws Exception {
        return onLoop(() -> {
            Dialed made = Dialed.connecting(at);
            made.register(sockets, owner);
            if (armWrite) {
                made.armWrite();
            }
            return made;
        });
    }

    @Test
    void aGroupIsAPowerOfTwoThatFitsTheData() {
        assertThrows(IllegalArgumentException.class, () -> new RingSockets(null, null, 3));
        assertThrows(IllegalArgumentException.class, () -> new RingSockets(null, null, RingSockets.GROUP * 2));
    }
}
