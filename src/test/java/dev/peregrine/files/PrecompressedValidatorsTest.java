package dev.peregrine.files;

import dev.peregrine.StaticOptions;

import dev.peregrine.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A precompressed sibling's validators are its own (RFC 9110 §8.8.3: a strong ETag changes with the
 * representation): replacing {@code app.js.gz} alone changes the ETag and Last-Modified, so a client
 * holding the old ETag gets the new bytes, not 304. With and without the open-file cache, both transports.
 */
class PrecompressedValidatorsTest {
    @TempDir
    Path dir;
    private Server server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(20)).build();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private HttpResponse<String> get(String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/static/app.js"))
                .timeout(Duration.ofSeconds(30)).header("Accept-Encoding", "gzip");
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void replacingTheSiblingChangesItsValidators(String transport) throws Exception {
        for (int cache : new int[] {16, 0}) {
            Path js = dir.resolve("app.js");
            Path gz = dir.resolve("app.js.gz");
            Files.writeString(js, "console.log(1)");
            Files.setLastModifiedTime(js, FileTime.fromMillis(1_700_000_000_000L));
            Files.writeString(gz, "first sibling");
            Files.setLastModifiedTime(gz, FileTime.fromMillis(1_700_000_100_000L));
            server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                    .staticFiles("/static", dir, StaticOptions.builder().openFileCache(cache).build()).start();

            HttpResponse<String> first = get();
            assertEquals("gzip", first.headers().firstValue("Content-Encoding").orElse(null));
            assertEquals("first sibling", first.body());
            String etag = first.headers().firstValue("ETag").orElseThrow();
            assertTrue(etag.endsWith("-gzip\""), etag);
            assertEquals(304, get("If-None-Match", etag).statusCode());

            // Replaced by a file of the same size, only its time differs: the ETag must still change.
            Files.writeString(gz, "other sibling");
            Files.setLastModifiedTime(gz, FileTime.fromMillis(1_700_000_200_000L));
            HttpResponse<String> again = get("If-None-Match", etag);
            assertEquals(200, again.statusCode(), "the old ETag no longer names what would be sent");
            assertEquals("other sibling", again.body());
            String newTag = again.headers().firstValue("ETag").orElseThrow();
            assertNotEquals(etag, newTag);
            assertNotEquals(first.headers().firstValue("Last-Modified").orElseThrow(),
                    again.headers().firstValue("Last-Modified").orElseThrow());
            assertEquals(304, get("If-None-Match", newTag).statusCode());

            HttpResponse<String> identity = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + "/static/app.js")).header("Accept-Encoding", "identity").build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("console.log(1)", identity.body());
            assertNotEquals(newTag, identity.headers().firstValue("ETag").orElseThrow(), "each representation its own ETag");
            assertEquals(200, client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/static/app.js"))
                    .header("Accept-Encoding", "identity").header("If-None-Match", newTag).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            server.close();
            server = null;
        }
    }
}
