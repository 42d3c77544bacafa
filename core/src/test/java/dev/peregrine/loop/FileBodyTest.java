package dev.peregrine.loop;

import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.route.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
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

    /** A socket in memory holding {@code request}, taking at most {@code perWrite} bytes a call. */
    private static MemoryEndpoint endpoint(String request, boolean canTransfer, int perWrite) {
        MemoryEndpoint io = new MemoryEndpoint();
        io.feed(request.getBytes(StandardCharsets.ISO_8859_1));
        io.maxPerWrite(perWrite);
        if (canTransfer) {
            io.allowTransfers();
        }
        return io;
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
            MemoryEndpoint io = endpoint("GET /f HTTP/1.1\r\nHost: a\r\n\r\n", canTransfer, 7_000);
            Connection c = ctx.newConnection(io);
            c.onReadable();
            int rounds = 0;
            while (io.writeInterest() && rounds++ < 10_000) {
                c.onWritable(); // the socket became writable again
            }
            byte[] all = io.written().toByteArray();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            int headEnd = text.indexOf("\r\n\r\n") + 4;
            assertTrue(text.startsWith("HTTP/1.1 200 OK\r\n"), text.substring(0, Math.min(200, text.length())));
            assertTrue(text.substring(0, headEnd).contains("Content-Length: 300000\r\n"));
            assertArrayEquals(content, Arrays.copyOfRange(all, headEnd, all.length), "canTransfer=" + canTransfer);
            assertEquals(canTransfer, io.transfers() > 0);
            assertEquals(0, ctx.pool().lentCount(), "every buffer back once the file is sent");
        }
    }

    @Test
    void partsLeaveInOrderEachHeadBeforeItsRangeWhateverTheSocketTakes(@TempDir Path dir) throws Exception {
        byte[] content = new byte[300_000];
        new Random(6).nextBytes(content);
        Path file = dir.resolve("f.bin");
        Files.write(file, content);
        ServerConfig config;
        try (Server s = Server.builder().port(0).threads(1).get("/", (req, res) -> { }).start()) {
            config = s.config();
        }
        byte[][] heads = {"<a>".getBytes(StandardCharsets.ISO_8859_1), "<bb>".getBytes(StandardCharsets.ISO_8859_1),
                new byte[0], "<end>".getBytes(StandardCharsets.ISO_8859_1)};
        long[] offsets = {0, 100_000, 299_999};
        long[] lengths = {70_001, 150_000, 1};
        dev.peregrine.exchange.FileParts parts = new dev.peregrine.exchange.FileParts(heads, offsets, lengths);
        java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < 3; i++) {
            expected.write(heads[i]);
            expected.write(content, (int) offsets[i], (int) lengths[i]);
        }
        expected.write(heads[3]);
        for (boolean byChannel : new boolean[] {false, true}) {
            Router router = Router.builder().add("GET", "/f", (req, res) -> {
                dev.peregrine.exchange.ResponseView v = (dev.peregrine.exchange.ResponseView) res.status(206);
                if (byChannel) {
                    v.sendFileParts(FileChannel.open(file), parts);
                } else {
                    v.sendFileParts(file, parts);
                }
            }).build();
            for (boolean canTransfer : new boolean[] {false, true}) {
                for (int perWrite : new int[] {1_000, 7_000, 1 << 20}) {
                    LoopContext ctx = dev.peregrine.TestConfigs.serverLoop(config, router);
                    MemoryEndpoint io = endpoint("GET /f HTTP/1.1\r\nHost: a\r\n\r\n", canTransfer, perWrite);
                    Connection c = ctx.newConnection(io);
                    c.onReadable();
                    int rounds = 0;
                    while (io.writeInterest() && rounds++ < 100_000) {
                        c.onWritable();
                    }
                    byte[] all = io.written().toByteArray();
                    String text = new String(all, StandardCharsets.ISO_8859_1);
                    int headEnd = text.indexOf("\r\n\r\n") + 4;
                    assertTrue(text.startsWith("HTTP/1.1 206 "), text.substring(0, Math.min(200, text.length())));
                    assertTrue(text.substring(0, headEnd).contains("Content-Length: " + parts.total() + "\r\n"));
                    assertArrayEquals(expected.toByteArray(), Arrays.copyOfRange(all, headEnd, all.length),
                            "canTransfer=" + canTransfer + " perWrite=" + perWrite);
                    assertEquals(0, ctx.pool().lentCount(), "every buffer back once the parts are sent");
                }
            }
        }
    }
}
