package dev.peregrine.loop;

import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.route.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sendFile} over an in-memory endpoint: through the loop's buffers when the endpoint cannot
 * transfer files itself (as a TLS endpoint), and through {@link SocketEndpoint#transferFile} when it
 * can; in both cases with a socket that takes only a little at a time.
 */
class FileBodyTest {

    /** A socket in memory that takes at most {@code perWrite} bytes a call and reads one request once. */
    static final class MemoryEndpoint implements SocketEndpoint {
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        final boolean canTransfer;
        final int perWrite;
        byte[] toRead;
        boolean writeInterest;
        int transfers;

        MemoryEndpoint(String request, boolean canTransfer, int perWrite) {
            this.toRead = request.getBytes(StandardCharsets.ISO_8859_1);
            this.canTransfer = canTransfer;
            this.perWrite = perWrite;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (toRead == null) {
                return 0;
            }
            dst.put(toRead);
            int n = toRead.length;
            toRead = null;
            return n;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = Math.min(src.remaining(), perWrite);
            byte[] b = new byte[n];
            src.get(b);
            written.write(b, 0, n);
            return n;
        }

        @Override
        public long transferFile(FileChannel file, long position, long count) throws IOException {
            if (!canTransfer) {
                return -1;
            }
            transfers++;
            ByteBuffer b = ByteBuffer.allocate((int) Math.min(count, perWrite));
            int n = file.read(b, position);
            written.write(b.array(), 0, Math.max(n, 0));
            return Math.max(n, 0);
        }

        @Override
        public void readInterest(boolean on) {
        }

        @Override
        public void writeInterest(boolean on) {
            writeInterest = on;
        }

        @Override
        public void shutdownOutput() {
        }

        @Override
        public void close() {
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 1);
        }
    }

    @Test
    void fallbackThroughBuffersAndDirectTransferSendTheSameBytes(@TempDir Path dir) throws Exception {
        byte[] content = new byte[300_000];
        new Random(5).nextBytes(content);
        Path file = dir.resolve("f.bin");
        Files.write(file, content);
        ServerConfig config;
        try (Server s = Server.builder().port(0).threads(1).get("/", (req, res) -> { }).start()) {
            config = s.config();
        }
        Router router = Router.builder().add("GET", "/f", (req, res) -> res.sendFile(file)).build();
        for (boolean canTransfer : new boolean[] {false, true}) {
            LoopContext ctx = dev.peregrine.TestConfigs.serverLoop(config, router);
            MemoryEndpoint io = new MemoryEndpoint("GET /f HTTP/1.1\r\nHost: a\r\n\r\n", canTransfer, 7_000);
            Connection c = ctx.newConnection(io);
            c.onReadable();
            int rounds = 0;
            while (io.writeInterest && rounds++ < 10_000) {
                c.onWritable(); // the socket became writable again
            }
            byte[] all = io.written.toByteArray();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            int headEnd = text.indexOf("\r\n\r\n") + 4;
            assertTrue(text.startsWith("HTTP/1.1 200 OK\r\n"), text.substring(0, Math.min(200, text.length())));
            assertTrue(text.substring(0, headEnd).contains("Content-Length: 300000\r\n"));
            assertArrayEquals(content, Arrays.copyOfRange(all, headEnd, all.length), "canTransfer=" + canTransfer);
            assertEquals(canTransfer, io.transfers > 0);
            assertEquals(0, ctx.pool().lentCount(), "every buffer back once the file is sent");
        }
    }
}
