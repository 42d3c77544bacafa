package dev.peregrine.loop;

import dev.peregrine.route.Router;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A protocol that produces its output in pieces (as HTTP/2 sends a file in DATA frames) stops while
 * the connection holds a backlog and goes on at {@link Protocol#onOutputReady}. That call must come
 * however the backlog drains: also when it drains inside {@code flushBatch} (the batch written with
 * the backlog, outside any writability event), where before it never came, and a peer that sent
 * nothing more waited forever (seen as curl stalling mid-file over h2c, about one 5 MiB transfer in
 * 30). The socket here refuses the first write of every piece, so each piece leaves a backlog that
 * the next flush drains whole: exactly that order, every time.
 */
class ProducerWakeupTest {
    private static final int PIECE = 4096;
    private static final int PIECES = 50;

    /** Writes PIECES pieces of PIECE bytes, each half, drain, half, and stops while output is held back. */
    private static final class Pieces implements Protocol {
        private final MemoryEndpoint socket;
        private int left = -1;

        Pieces(MemoryEndpoint socket) {
            this.socket = socket;
        }

        @Override
        public int onInput(Connection c, ByteBuffer buf, int start, int end) {
            if (left < 0) {
                left = PIECES;
                produce(c);
            }
            return end;
        }

        private void produce(Connection c) {
            while (left > 0 && c.pendingOutput() == 0) {
                ByteBuffer out = c.out();
                for (int i = 0; i < PIECE / 2; i++) {
                    out.put((byte) 'a');
                }
                socket.refuseWrites(1); // the socket is full at this moment: the half goes to the backlog
                c.drain();
                for (int i = 0; i < PIECE / 2; i++) {
                    out.put((byte) 'b');
                }
                left--;
            }
        }

        @Override
        public boolean producing() {
            return left > 0;
        }

        @Override
        public void onOutputReady(Connection c) {
            produce(c);
            c.flush(); // writes the backlog and this batch: all of it leaves, no writability event follows
        }

        @Override
        public void onInputOverflow(Connection c) {
            c.close();
        }

        @Override
        public void onEndOfInput(Connection c) {
            c.close();
        }

        @Override
        public int timerPhase() {
            return 0;
        }

        @Override
        public long timeoutMillis(int phase) {
            return 0;
        }

        @Override
        public void onTimeout(Connection c, int phase) {
        }

        @Override
        public void onShutdown(Connection c) {
            c.close();
        }

        @Override
        public void onClosed(Connection c) {
        }
    }

    @Test
    void aBacklogDrainedInsideAFlushStillBringsOnOutputReady() {
        LoopContext ctx = dev.peregrine.TestConfigs.serverLoop(dev.peregrine.TestConfigs.of(dev.peregrine.Server.builder()),
                Router.builder().build());
        MemoryEndpoint socket = new MemoryEndpoint();
        Pieces protocol = new Pieces(socket);
        Connection c = ctx.newConnection(socket, null, protocol);
        socket.feed(new byte[] {'x'});
        c.onReadable();
        // what a level-triggered loop does from here: writable events while write interest is on
        for (int events = 0; socket.writeInterest() && events < 10 * PIECES; events++) {
            c.onWritable();
        }
        assertFalse(protocol.producing(), "pieces left unsent with no event to come: " + protocol.left);
        assertEquals(PIECES * PIECE, socket.written().size());
        assertFalse(socket.writeInterest(), "write interest left on once everything left (a level-triggered loop would spin)");
    }
}
