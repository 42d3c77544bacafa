package dev.peregrine.tls;

import dev.peregrine.Server;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Static files under TLS: no sendfile there, so whole files and ranges go through the loop's buffers. */
class TlsStaticFilesTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("dev.peregrine.tls.TlsTesting#transports")
    void wholeFilesAndRangesOverTls(String transport) throws Exception {
        byte[] data = new byte[2_500_000];
        new Random(5).nextBytes(data);
        Files.write(dir.resolve("big.bin"), data);
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport)
                .staticFiles("/static", dir)
                .tls(TlsTesting.tls(TlsConfig.Provider.JDK).build())
                .start()) {
            HttpClient client = HttpClient.newBuilder()
                    .sslContext(TlsTesting.clientContext(TlsTesting.CERT.certificate()))
                    .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(20)).build();
            URI uri = URI.create("https://localhost:" + server.port() + "/static/big.bin");
            HttpResponse<byte[]> whole = client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, whole.statusCode());
            assertArrayEquals(data, whole.body());
            HttpResponse<byte[]> range = client.send(HttpRequest.newBuilder(uri).header("Range", "bytes=123457-2000000").build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(206, range.statusCode());
            assertEquals("bytes 123457-2000000/2500000", range.headers().firstValue("Content-Range").orElse(null));
            assertArrayEquals(Arrays.copyOfRange(data, 123_457, 2_000_001), range.body());
            HttpResponse<byte[]> multi = client.send(HttpRequest.newBuilder(uri).header("Range", "bytes=5-9,1000000-2199999,-1").build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(206, multi.statusCode());
            dev.peregrine.files.ByteRangesBody.assertRanges(data, multi.headers().firstValue("Content-Type").orElseThrow(), multi.body(),
                    new long[] {5, 9}, new long[] {1_000_000, 2_199_999}, new long[] {data.length - 1, data.length - 1});
            assertEquals(0, server.metrics().sendfileBytes, "TLS encrypts every byte: nothing may bypass the engine");
        }
    }
}
