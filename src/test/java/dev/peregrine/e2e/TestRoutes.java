package dev.peregrine.e2e;

import dev.peregrine.Server;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Routes the e2e suite needs beyond PlaintextApp's three. */
final class TestRoutes {
    /** 2 MiB of a repeating pattern: more than a socket takes at once, so output stays pending. */
    static final byte[] BIG = new byte[2 << 20];

    static {
        for (int i = 0; i < BIG.length; i++) {
            BIG[i] = (byte) ('a' + i % 26);
        }
    }

    private TestRoutes() {
    }

    static Server.Builder add(Server.Builder b) {
        return b
                .get("/query", (req, res) -> res.text("name=" + req.query().get("name") + " x=" + req.query().get("x")
                        + " empty=" + req.query().get("empty") + " missing=" + req.query().get("missing")))
                .get("/users/{id}/posts/{slug}", (req, res) -> res.text("id=" + req.pathParam("id") + " slug=" + req.pathParam("slug")))
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("handler failure the e2e suite provokes on purpose");
                })
                .get("/headers", (req, res) -> res.text("host=" + req.header("HOST") + " x=" + req.headers().view("x-test")
                        + " count=" + req.headers().size() + " keepAlive=" + req.keepAlive() + " version=" + req.version()))
                .get("/remote", (req, res) -> res.text(req.remoteAddress().getAddress().getHostAddress()))
                .post("/length", (req, res) -> res.text(Integer.toString(req.bodyLength())))
                .put("/digest", (req, res) -> res.text(Integer.toString(Arrays.hashCode(req.bodyBytes()))))
                .get("/big", (req, res) -> res.contentType("application/octet-stream").body(BIG))
                .get("/utf8", (req, res) -> res.text(new String("gr\u00fc\u00df \u20ac".getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)));
    }
}
