package dev.peregrine.e2e;

import dev.peregrine.BodyListener;
import dev.peregrine.Completion;
import dev.peregrine.Handlers;
import dev.peregrine.Request;
import dev.peregrine.Server;
import dev.peregrine.Trailers;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The routes the request-trailer tests share, over HTTP/1.1 and HTTP/2 alike. Each answers
 * {@code "<body> | <req.trailers()> | header <the trailer's name looked up as a header field>"}, the
 * last always {@code null} when trailers stay apart from the head:
 * {@code POST /inline} (the body gathered, trailers there at dispatch), {@code /blocking} (the body
 * stream read to -1, then the trailers), {@code /listen} (a streaming listener: its pieces, then
 * {@code onTrailers}, then {@code onEnd}; it answers {@code header null} itself, as by then the request
 * view may describe another request).
 */
public final class TrailerRoutes {
    private TrailerRoutes() {
    }

    /** What a route answers for {@code body}: see the class comment. */
    public static String seen(String body, Request req, String trailerName) {
        return body + " | " + req.trailers() + " | header " + req.header(trailerName);
    }

    /** Adds {@code /inline}, {@code /blocking} and {@code /listen} to {@code b}. */
    public static Server.Builder add(Server.Builder b, String trailerName) {
        return b.post("/inline", (req, res) -> res.text(seen(req.bodyString(), req, trailerName)))
                .post("/blocking", Handlers.blocking((req, res) ->
                        res.text(seen(new String(req.bodyStream().readAllBytes(), StandardCharsets.ISO_8859_1), req, trailerName))))
                .post("/listen", Handlers.streaming((req, res) -> {
                    Completion done = res.async();
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    Trailers[] trailers = {Trailers.EMPTY};
                    req.onBody(new BodyListener() {
                        @Override
                        public void onData(ByteBuffer data) {
                            byte[] piece = new byte[data.remaining()];
                            data.get(piece);
                            got.write(piece, 0, piece.length);
                        }

                        @Override
                        public void onTrailers(Trailers t) {
                            trailers[0] = t;
                        }

                        @Override
                        public void onEnd() {
                            done.response().text(got.toString(StandardCharsets.ISO_8859_1) + " | " + trailers[0] + " | header null");
                            done.complete();
                        }
                    });
                }));
    }
}
