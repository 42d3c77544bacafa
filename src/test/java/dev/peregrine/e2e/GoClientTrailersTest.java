package dev.peregrine.e2e;

import dev.peregrine.BodyListener;
import dev.peregrine.Completion;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import dev.peregrine.Trailers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A third-party client that sends request trailers: Go's net/http (a body of unknown length with
 * {@code req.Trailer} set), over HTTP/1.1 (chunked, {@code Trailer: X-Checksum}) and over h2c by prior
 * knowledge (a trailing HEADERS), to an inline, a blocking and a streaming route; each reads
 * {@code req.trailers()} (the listener {@code onTrailers}). Skipped, saying why, where Go (1.24+) is
 * not installed. Every transport.
 */
class GoClientTrailersTest {
    private static final String CLIENT = """
            package main

            import (
            	"fmt"
            	"io"
            	"net/http"
            	"os"
            )

            func main() {
            	tr := &http.Transport{}
            	if os.Args[2] == "h2c" {
            		p := new(http.Protocols)
            		p.SetUnencryptedHTTP2(true)
            		tr.Protocols = p
            	}
            	pr, pw := io.Pipe()
            	req, _ := http.NewRequest("POST", os.Args[1], pr)
            	req.ContentLength = -1
            	req.Trailer = http.Header{"X-Checksum": nil}
            	go func() {
            		pw.Write([]byte("hello"))
            		req.Trailer.Set("X-Checksum", "abc") // before the body's end, as net/http asks
            		pw.Close()
            	}()
            	resp, err := (&http.Client{Transport: tr}).Do(req)
            	if err != nil {
            		fmt.Println("error:", err)
            		os.Exit(1)
            	}
            	b, _ := io.ReadAll(resp.Body)
            	fmt.Printf("%s %d %s", resp.Proto, resp.StatusCode, b)
            }
            """;

    private static Path dir;
    private static Path client;

    @BeforeAll
    static void build() throws Exception {
        dir = Files.createTempDirectory("peregrine-go-trailers");
        Files.writeString(dir.resolve("main.go"), CLIENT);
        client = dir.resolve("client");
        String out;
        int exit;
        try {
            Process p = new ProcessBuilder("go", "build", "-o", client.toString(), "main.go").directory(dir.toFile())
                    .redirectErrorStream(true).start();
            assertTrue(p.waitFor(180, TimeUnit.SECONDS), "go build did not finish");
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            exit = p.exitValue();
        } catch (IOException e) {
            out = e.getMessage();
            exit = -1;
        }
        Assumptions.assumeTrue(exit == 0, "Go 1.24+ (net/http with unencrypted HTTP/2) is needed to build the client: " + out);
    }

    @AfterAll
    static void clean() throws IOException {
        if (dir != null) {
            Files.deleteIfExists(dir.resolve("main.go"));
            Files.deleteIfExists(dir.resolve("client"));
            Files.deleteIfExists(dir);
        }
    }

    private static String run(String url, String protocol) throws Exception {
        Process p = new ProcessBuilder(client.toString(), url, protocol).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the Go client did not finish");
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static Server start(String transport) {
        return Server.builder().transport(transport).host("127.0.0.1").port(0).threads(1).http2(true)
                .post("/inline", (req, res) -> res.text(req.bodyString() + " " + req.trailers().get("x-checksum")))
                .post("/blocking", Handlers.blocking((req, res) -> {
                    InputStream in = req.bodyStream();
                    String body = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                    res.text(body + " " + req.trailers().get("x-checksum"));
                }))
                .post("/listen", Handlers.streaming((req, res) -> {
                    Completion done = res.async();
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    String[] checksum = {null};
                    req.onBody(new BodyListener() {
                        @Override
                        public void onData(ByteBuffer data) {
                            byte[] b = new byte[data.remaining()];
                            data.get(b);
                            got.write(b, 0, b.length);
                        }

                        @Override
                        public void onTrailers(Trailers t) {
                            checksum[0] = t.get("X-CHECKSUM");
                        }

                        @Override
                        public void onEnd() {
                            done.response().text(got.toString(StandardCharsets.ISO_8859_1) + " " + checksum[0]);
                            done.complete();
                        }
                    });
                }))
                .start();
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void goSendsTrailersOverHttp11AndH2c(String transport) throws Exception {
        try (Server server = start(transport)) {
            for (String path : new String[] {"/inline", "/blocking", "/listen"}) {
                String url = "http://127.0.0.1:" + server.port() + path;
                assertEquals("HTTP/1.1 200 hello abc", run(url, "http1"), path);
                assertEquals("HTTP/2.0 200 hello abc", run(url, "h2c"), path);
            }
            assertEquals(0, server.metrics().handlerErrors);
        }
    }
}
