package dev.peregrine.loop;

import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.route.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
}
