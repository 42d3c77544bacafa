package dev.peregrine.e2e;

import dev.peregrine.BodyListener;
import dev.peregrine.Completion;
import dev.peregrine.Handler;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import dev.peregrine.form.BadFormException;
import dev.peregrine.form.FormLimitException;
import dev.peregrine.form.MultipartLimits;
import dev.peregrine.form.MultipartParser;
import dev.peregrine.form.PartHeaders;
import dev.peregrine.form.PartListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Parts handled as they arrive in a {@code Handlers.streaming} handler: its {@link BodyListener} feeds a
 * {@link MultipartParser} on the event loop, nothing is kept but a digest. A body past
 * {@code streamBodyThreshold} arrives in pieces; a wrong boundary is found at the end (400).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class MultipartStreamingTest extends ServerTestBase {
    MultipartStreamingTest(ServerFactory factory) {
        super(factory);
    }

    /** Answers "name:size:sha256;" per part, or the parser's status and message. */
    static final Handler DIGESTS = Handlers.streaming((req, res) -> {
        Completion done = res.async();
        StringBuilder out = new StringBuilder();
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        long[] size = {0};
        PartListener parts = new PartListener() {
            @Override
            public void onPartStart(PartHeaders h) {
                out.append(h.name()).append(':');
                size[0] = 0;
            }

            @Override
            public void onPartData(ByteBuffer data) {
                size[0] += data.remaining();
                digest.update(data);
            }

            @Override
            public void onPartEnd() {
                out.append(size[0]).append(':').append(HexFormat.of().formatHex(digest.digest())).append(';');
            }
        };
        MultipartParser parser;
        try {
            parser = new MultipartParser(MultipartParser.boundaryOf(req.headers().view("Content-Type")), MultipartLimits.DEFAULTS, parts);
        } catch (BadFormException e) {
            done.response().status(400).text(e.getMessage());
            done.complete();
            return;
        }
        req.onBody(new BodyListener() {
            @Override
            public void onData(ByteBuffer data) throws Exception {
                parser.feed(data);
            }

            @Override
            public void onEnd() {
                try {
                    parser.finish();
                    done.response().text(out);
                } catch (BadFormException e) {
                    done.response().status(e.status()).text(e.getMessage());
                } catch (FormLimitException e) {
                    done.response().status(e.status()).text(e.getMessage());
                }
                done.complete();
            }
        });
    });

    @Test
    void partsArriveThroughTheBodyListener() throws Exception {
        byte[] file = new byte[3 << 20];
        for (int i = 0; i < file.length; i++) {
            file[i] = (byte) (i * 7 + (i >> 11) + (i % 251 == 0 ? '\r' : 0));
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write("--bnd\r\nContent-Disposition: form-data; name=a\r\n\r\nxyz\r\n--bnd\r\nContent-Disposition: form-data; name=f; filename=f.bin\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        body.write(file);
        body.write("\r\n--bnd--\r\n".getBytes(StandardCharsets.US_ASCII));
        Server s = factory.start(b -> b.post("/digests", DIGESTS));
        try {
            String url = "http://127.0.0.1:" + s.port() + "/digests";
            HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url))
                    .header("Content-Type", "multipart/form-data; boundary=bnd")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            String xyz = HexFormat.of().formatHex(d.digest("xyz".getBytes(StandardCharsets.US_ASCII)));
            String f = HexFormat.of().formatHex(d.digest(file));
            assertEquals("a:3:" + xyz + ";f:" + file.length + ":" + f + ";", r.body());

            HttpResponse<String> wrong = CLIENT.send(HttpRequest.newBuilder(URI.create(url))
                    .header("Content-Type", "multipart/form-data; boundary=other")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(400, wrong.statusCode(), wrong.body());
        } finally {
            awaitNoLentBuffers(s);
            s.close();
        }
    }
}
