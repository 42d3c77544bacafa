package dev.peregrine.server;

import dev.peregrine.Handler;
import dev.peregrine.h2.Http2Loop;
import dev.peregrine.h2.StreamDispatch;
import dev.peregrine.http1.Methods;
import dev.peregrine.http1.RequestView;
import dev.peregrine.http1.ResponseView;
import dev.peregrine.loop.Connection;
import dev.peregrine.offloop.BlockingHandler;
import dev.peregrine.offloop.InlineSite;
import dev.peregrine.offloop.OffLoopHost;
import dev.peregrine.offloop.StreamingHandler;

/**
 * The server's side of an HTTP/2 stream on one loop: the same dispatch {@link Http1ServerProtocol}
 * gives a request (remote address, tracer, router with its filters, the inline handler with the
 * watchdog's marks and the same failure answers, compression, the access log), run on the request
 * view {@code h2.Http2Responder} filled from the stream. One per {@link ServerLoop}, made at its
 * first HTTP/2 connection.
 *
 * <p><b>Handler kinds over HTTP/2</b>: inline handlers, with in-memory bodies both ways (so routing,
 * filters, forms, cookies, compression, static files, {@code res.sendFile} up to 1 MiB read into
 * memory). A blocking or streaming route, {@code res.async()}, a larger file, and {@code res.stream} answer
 * the stream with RST_STREAM HTTP_1_1_REQUIRED (RFC 9113 §7): clients retry the request over HTTP/1.1
 * (curl does), nothing hangs.
 *
 * <p>Thread: the loop thread.
 */
public final class Http2Dispatch implements StreamDispatch, InlineSite {
    /** Thrown from {@link #offLoopHost} into a handler calling {@code async()}: the stream is refused. */
    private static final class NeedsHttp11 extends RuntimeException {
        NeedsHttp11() {
            super("res.async() is not available over HTTP/2: the stream is refused with HTTP_1_1_REQUIRED", null, false, false);
        }
    }

    private static final NeedsHttp11 NEEDS_HTTP_11 = new NeedsHttp11();

    private final ServerLoop srv;
    private final Http2Loop loop = new Http2Loop();
    private Connection current;

    Http2Dispatch(ServerLoop srv) {
        this.srv = srv;
    }

    @Override
    public RequestView request() {
        return srv.request;
    }

    @Override
    public ResponseView response() {
        return srv.response;
    }

    @Override
    public int dispatch(Connection c, RequestView req, ResponseView res) {
        current = c;
        req.setRemoteAddress(c.endpoint().remoteAddress());
        res.reset();
        Handler h = srv.router.resolve(req, srv.paramStarts, srv.paramEnds);
        if (h instanceof BlockingHandler || h instanceof StreamingHandler) {
            return HTTP_1_1_REQUIRED;
        }
        if (srv.tracer != null) {
            srv.tracer.begin(req, res);
        }
        srv.offLoop.runningFor(this);
        srv.enterHandler(h);
        try {
            h.handle(req, res);
        } catch (NeedsHttp11 e) {
            res.reset();
            return HTTP_1_1_REQUIRED;
        } catch (Throwable t) {
            int status = srv.handlerFailed(req, t);
            srv.offLoop.handlerThrew();
            res.reset();
            res.error(status);
        } finally {
            srv.exitHandler();
        }
        if (res.special() == ResponseView.FILE && res.file().length() <= FILE_IN_MEMORY) {
            fileIntoBody(res);
        }
        if (res.special() != 0) { // a producer, an output stream, a file above FILE_IN_MEMORY: not over HTTP/2
            res.reset();
            return HTTP_1_1_REQUIRED;
        }
        boolean head = req.methodId() == Methods.HEAD;
        srv.metrics.requests++;
        if (srv.compressor != null) {
            srv.compressor.apply(req, res, head);
        }
        srv.responding(req, res, head);
        return ANSWERED;
    }

    /**
     * {@code res.sendFile} of a file up to this size is read into the response's body and sent as DATA
     * (no zero-copy over HTTP/2: frames interleave). Larger ones refuse the stream.
     */
    static final long FILE_IN_MEMORY = 1 << 20;

    /** Reads the recorded file into the body, sent as it is (never compressed, as a file is over HTTP/1.1). */
    private static void fileIntoBody(ResponseView res) {
        if (!dev.peregrine.offloop.BodySource.openFile(res)) {
            return; // gone since the handler's call: res is now the 404 (or 500)
        }
        dev.peregrine.http1.FileSend file = res.takeFile();
        long offset = file.offset();
        byte[] bytes = new byte[(int) file.length()];
        try (java.nio.channels.FileChannel ch = file.open()) {
            java.nio.ByteBuffer dst = java.nio.ByteBuffer.wrap(bytes);
            while (dst.hasRemaining()) {
                if (ch.read(dst, offset + dst.position()) < 0) {
                    throw new java.io.EOFException("file shorter than when it was sized");
                }
            }
        } catch (java.io.IOException e) {
            res.reset();
            res.error(500);
            return;
        }
        res.body(bytes);
        res.sendAsIs();
    }

    @Override
    public byte[] dateLine() {
        return srv.encoder.dateLine();
    }

    @Override
    public Http2Loop loop() {
        return loop;
    }

    @Override
    public long maxBodySize() {
        return srv.config.maxBodySize();
    }

    @Override
    public long idleTimeoutMillis() {
        return srv.config.idleTimeoutMillis();
    }

    @Override
    public long bodyTimeoutMillis() {
        return srv.config.bodyTimeoutMillis();
    }

    // ---------------------------------------------------------------- InlineSite (an inline handler's res.async())

    @Override
    public Connection connection() {
        return current;
    }

    @Override
    public OffLoopHost offLoopHost() {
        throw NEEDS_HTTP_11;
    }
}
