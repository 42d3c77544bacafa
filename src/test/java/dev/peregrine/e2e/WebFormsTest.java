package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.examples.WebRoutes;
import dev.peregrine.form.MultipartLimits;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The examples app's {@code /upload}, {@code /cookies} and {@code /json-object} with real clients: curl
 * ({@code -F}, {@code -d}, {@code -b}/{@code -c}), the JDK HttpClient, Python's requests, and raw sockets
 * for bad bodies; spooled files must be gone afterwards whatever happened.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class WebFormsTest extends ServerTestBase {
    @TempDir
    Path tmp;

    WebFormsTest(ServerFactory factory) {
        super(factory);
    }

    private static String run(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "still running: " + String.join(" ", command));
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + err);
        return new String(out, StandardCharsets.UTF_8);
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * seed + (i >> 9));
        }
        return b;
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    @Test
    void curlMultipartAndUrlencoded() throws Exception {
        byte[] file = pattern(1_300_000, 7); // above the spool threshold and the streamed-body threshold (1 MiB)
        Files.write(tmp.resolve("data.bin"), file);
        String json = run(tmp, "curl", "-sS", "-F", "title=hello world", "-F", "doc=@data.bin;filename=été.bin", url("/upload"));
        assertEquals("{\"fields\":[{\"name\":\"title\",\"size\":11},{\"name\":\"doc\",\"size\":1300000,\"filename\":\"été.bin\","
                + "\"sha256\":\"" + sha256(file) + "\"}]}", json);
        String form = run(tmp, "curl", "-sS", "-d", "a=1&b=x%20y%C3%A9&flag", url("/upload"));
        assertEquals("{\"fields\":[{\"name\":\"a\",\"size\":1},{\"name\":\"b\",\"size\":5},{\"name\":\"flag\",\"size\":0}]}", form);
        assertEquals("415", run(tmp, "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: text/plain",
                "--data-binary", "x", url("/upload")));
    }

    @Test
    void curlCookieJar() throws Exception {
        String json = run(tmp, "curl", "-sS", "-c", "jar.txt", "-b", "a=1; b=\"two\"; a=3", url("/cookies"));
        assertEquals("{\"a\":\"1\",\"b\":\"two\"}", json);
        String jar = Files.readString(tmp.resolve("jar.txt"));
        assertTrue(jar.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tvisited\t1"), jar);
        assertEquals("{\"visited\":\"1\"}", run(tmp, "curl", "-sS", "-b", "jar.txt", url("/cookies")));
    }

    @Test
    void jdkClientCookiesAndJsonObject() throws Exception {
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/cookies")))
                .header("Cookie", "x=1").header("Cookie", "y=2").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals("{\"x\":\"1\",\"y\":\"2\"}".length(), r.body().length()); // order of two fields: both present
        assertTrue(r.body().contains("\"x\":\"1\"") && r.body().contains("\"y\":\"2\""), r.body());
        assertEquals(List.of("visited=1; Path=/; HttpOnly; SameSite=Lax"), r.headers().allValues("Set-Cookie"));
        HttpResponse<String> j = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/json-object"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("{\"message\":\"Hello, World!\"}", j.body());
        assertEquals("application/json", j.headers().firstValue("Content-Type").orElseThrow());
    }

    @Test
    void jdkClientMultipart() throws Exception {
        byte[] file = pattern(70_000, 13);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(("--b0undary\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        body.write(file);
        body.write("\r\n--b0undary\r\nContent-Disposition: form-data; name=n\r\n\r\n42\r\n--b0undary--\r\n".getBytes(StandardCharsets.US_ASCII));
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/upload")))
                .header("Content-Type", "multipart/form-data; boundary=b0undary")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("{\"fields\":[{\"name\":\"f\",\"size\":70000,\"filename\":\"x.bin\",\"sha256\":\"" + sha256(file)
                + "\"},{\"name\":\"n\",\"size\":2}]}", r.body());
    }

    @Test
    void pythonRequests() throws Exception {
        byte[] file = pattern(50_000, 3);
        Files.write(tmp.resolve("p.bin"), file);
        String script = """
                import requests, sys
                base = sys.argv[1]
                r = requests.post(base + '/upload', data={'k': 'v v'}, files={'up': ('p.bin', open('p.bin', 'rb'))})
                print(r.status_code, r.text)
                r = requests.post(base + '/upload', data={'k': 'v&w', 'z': ''})
                print(r.status_code, r.text)
                r = requests.get(base + '/cookies', cookies={'s': 'abc'})
                print(r.status_code, r.text, r.cookies.get('visited'))
                """;
        String out = run(tmp, "python3", "-c", script, url(""));
        assertEquals("200 {\"fields\":[{\"name\":\"k\",\"size\":3},{\"name\":\"up\",\"size\":50000,\"filename\":\"p.bin\",\"sha256\":\""
                + sha256(file) + "\"}]}\n"
                + "200 {\"fields\":[{\"name\":\"k\",\"size\":3},{\"name\":\"z\",\"size\":0}]}\n"
                + "200 {\"s\":\"abc\"} 1\n", out);
    }

    /** A raw request to {@code path} with a multipart body and Content-Length. */
    private RawResponse post(Server s, String path, String boundary, byte[] body) throws IOException {
        try (Socket socket = RawClient.connect(s.port())) {
            socket.getOutputStream().write(RawClient.bytes("POST " + path + " HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: multipart/form-data; boundary=" + boundary + "\r\nContent-Length: " + body.length + "\r\n\r\n"));
            socket.getOutputStream().write(body);
            return RawResponse.read(socket.getInputStream());
        }
    }

    @Test
    void badBodiesAndLimitsLeaveNothingOnDisk() throws Exception {
        Path spool = Files.createDirectory(tmp.resolve("spool"));
        MultipartLimits limits = MultipartLimits.DEFAULTS.withSpoolDir(spool).withSpoolThreshold(1000).withMaxFileSize(100_000);
        Server s = factory.start(b -> b.streamBodyThreshold(8 * 1024).post("/upload-spool", WebRoutes.upload(limits)));
        try {
            byte[] file = pattern(60_000, 5);
            ByteArrayOutputStream good = new ByteArrayOutputStream();
            good.write("--B\r\nContent-Disposition: form-data; name=f; filename=a\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            good.write(file);
            good.write("\r\n--B--\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] body = good.toByteArray();
            RawResponse ok = post(s, "/upload-spool", "B", body);
            assertEquals(200, ok.status, ok.text());
            assertTrue(ok.text().contains(sha256(file)), ok.text());
            assertEquals(0, count(spool));

            byte[] truncated = java.util.Arrays.copyOf(body, body.length - 4);
            assertEquals(400, post(s, "/upload-spool", "B", truncated).status);
            assertEquals(0, count(spool));
            assertEquals(400, post(s, "/upload-spool", "C", body).status); // wrong boundary
            assertEquals(400, post(s, "/upload-spool", "", body).status); // missing boundary
            byte[] big = new byte[body.length + 60_000];
            System.arraycopy(body, 0, big, 0, body.length - 9);
            System.arraycopy("\r\n--B--\r\n".getBytes(StandardCharsets.US_ASCII), 0, big, big.length - 9, 9);
            RawResponse tooBig = post(s, "/upload-spool", "B", big);
            assertEquals(413, tooBig.status, tooBig.text());
            assertEquals(0, count(spool));

            // the connection lost half way through a spooled file
            try (Socket socket = RawClient.connect(s.port())) {
                socket.getOutputStream().write(RawClient.bytes("POST /upload-spool HTTP/1.1\r\nHost: localhost\r\n"
                        + "Content-Type: multipart/form-data; boundary=B\r\nContent-Length: " + body.length + "\r\n\r\n"));
                socket.getOutputStream().write(body, 0, 40_000);
                socket.getOutputStream().flush();
                Await.until(() -> count(spool) == 1, () -> "no spool file yet");
            }
            Await.until(() -> count(spool) == 0, () -> "spool file left after the connection closed");
        } finally {
            awaitNoLentBuffers(s);
            s.close();
        }
    }

    private static long count(Path dir) {
        try (Stream<Path> list = Files.list(dir)) {
            return list.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

}
