package dev.peregrine.websocket.engine;

import dev.peregrine.Execution;
import dev.peregrine.Handler;
import dev.peregrine.Request;
import dev.peregrine.Response;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.loop.Connection;
import dev.peregrine.offloop.OffLoop;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The opening handshake of a WebSocket route (RFC 6455 §4.2), as an ordinary route handler on the
 * loop: path parameters and the server's filters apply to it as to any route. A valid request is answered
 * {@code 101 Switching Protocols} and the connection switched to a {@link WebSocketProtocol}; the
 * bytes after the request are the protocol's.
 * <pre>
 *   check                                              failing it
 *   GET, HTTP/1.1, no body                             400 (405 comes from the router for other methods)
 *   Upgrade: websocket and Connection: upgrade         426 with Upgrade: websocket (RFC 9110 §15.5.22):
 *                                                      a plain GET to a WebSocket path
 *   Sec-WebSocket-Version: 13                          426 with Sec-WebSocket-Version: 13 (§4.4); absent: 400
 *   Sec-WebSocket-Key: base64 of 16 bytes              400 (§4.2.1)
 *   Origin accepted by options.originCheck             403 (§4.2.2)
 *   Sec-WebSocket-Protocol                             the first of options.subprotocols offered; none: no header
 *   Sec-WebSocket-Extensions: permessage-deflate       accepted as DeflateParams can honour, else ignored
 *   handler.onHandshake (ServerHandshake)              throws: 500; else its fields join the 101
 * </pre>
 * The response carries {@code Sec-WebSocket-Accept}: base64(SHA-1(key + the RFC's GUID)) (§4.2.2).
 *
 * <p>A route with {@code execution(BLOCKING)} gives each connection an {@link OffLoopCallbacks} that
 * runs the handler off the loop; the handshake itself stays on the loop.
 *
 * <p>Thread: the loop (the route is registered to run there).
 */
public final class WebSocketRoute implements Handler {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.websocket");
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private final WebSocketOptions options;
    private final WebSocketHandler handler;
    private final String[] paramNames;

    private WebSocketRoute(String path, WebSocketOptions options, WebSocketHandler handler) {
        this.options = options;
        this.handler = handler;
        List<String> names = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (segment.startsWith("{") && segment.endsWith("}")) {
                names.add(segment.substring(1, segment.length() - 1));
            }
        }
        this.paramNames = names.toArray(new String[0]);
    }

    /** The handler for the route {@code path} (its {@code {name}} segments become the session's path parameters). */
    public static Handler of(String path, WebSocketOptions options, WebSocketHandler handler) {
        if (path == null || options == null || handler == null) {
            throw new NullPointerException("path, options and handler must not be null");
        }
        return new WebSocketRoute(path, options, handler);
    }

    @Override
    public void handle(Request req, Response res) {
        Connection c = connectionOf(res);
        if (c == null) {
            LOG.log(System.Logger.Level.WARNING, "WebSocket route " + req.path() + " reached off the event loop"
                    + " (a blocking filter or execution?): it must run on the loop; answered 500");
            res.error(500);
            return;
        }
        String length = req.header("Content-Length"); // the JDK's client sends "Content-Length: 0"
        if (!"GET".equals(req.method()) || !"HTTP/1.1".equals(req.version()) || (length != null && !length.trim().equals("0"))
                || req.headers().has("Transfer-Encoding")) {
            res.status(400).text("a WebSocket handshake is a GET over HTTP/1.1 without a body (RFC 6455 §4.1)\n");
            return;
        }
        if (!hasToken(req.header("Upgrade"), "websocket") || !hasToken(req.header("Connection"), "upgrade")) {
            res.status(426).header("Upgrade", "websocket")
                    .text("this path speaks WebSocket: send Upgrade: websocket and Connection: Upgrade\n");
            return;
        }
        String version = req.header("Sec-WebSocket-Version");
        if (version == null) {
            res.status(400).header("Sec-WebSocket-Version", "13").text("Sec-WebSocket-Version is missing\n");
            return;
        }
        if (!version.trim().equals("13")) {
            res.status(426).header("Sec-WebSocket-Version", "13").text("only WebSocket version 13 is spoken\n");
            return;
        }
        String key = req.header("Sec-WebSocket-Key");
        if (key == null || !validKey(key.trim())) {
            res.status(400).text("Sec-WebSocket-Key must be the base64 form of 16 bytes (RFC 6455 §4.1)\n");
            return;
        }
        if (!options.originCheck().test(req.header("Origin"))) {
            res.status(403).text("origin refused\n");
            return;
        }
        String subprotocol = chooseSubprotocol(req.header("Sec-WebSocket-Protocol"));
        DeflateParams deflate = options.compression() ? DeflateParams.negotiate(req.header("Sec-WebSocket-Extensions")) : null;
        ServerHandshake hs = new ServerHandshake(req);
        try {
            handler.onHandshake(hs);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "WebSocket handler " + handler.getClass().getName()
                    + ".onHandshake threw; answered 500 for " + req.path(), e);
            res.error(500);
            return;
        } finally {
            hs.end();
        }

        StringBuilder head = new StringBuilder(192)
                .append("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ")
                .append(accept(key.trim())).append("\r\n");
        if (subprotocol != null) {
            head.append("Sec-WebSocket-Protocol: ").append(subprotocol).append("\r\n");
        }
        if (deflate != null) {
            head.append("Sec-WebSocket-Extensions: ").append(deflate.response).append("\r\n");
        }
        head.append(hs.fields()).append("\r\n");
        byte[] bytes = head.toString().getBytes(StandardCharsets.ISO_8859_1); // fields checked: ASCII only
        if (c.out().remaining() < bytes.length) {
            c.drain();
        }
        c.out().put(bytes);

        Map<String, String> params = new HashMap<>();
        for (String name : paramNames) {
            String v = req.pathParam(name);
            if (v != null) {
                params.put(name, v);
            }
        }
        WsSession session = new WsSession(req.path(), params, subprotocol, deflate != null, req.remoteAddress());
        session.attach(hs.attachment());
        WebSocketHandler callbacks = handler;
        if (options.execution() == Execution.BLOCKING) {
            callbacks = new OffLoopCallbacks(handler, ((OffLoop) ((ResponseView) res).owner()).blockingExecutor(),
                    c.context().eventLoop()); // one per connection: its queue keeps the connection's order
        }
        c.switchTo(new WebSocketProtocol(options, callbacks, deflate, session)); // the HTTP/1.1 protocol sees the switch and stops
    }

    /** The connection of the inline handler running now, or null when this runs anywhere else. */
    private static Connection connectionOf(Response res) {
        if (res instanceof ResponseView && ((ResponseView) res).owner() instanceof OffLoop) {
            return ((OffLoop) ((ResponseView) res).owner()).inlineConnection();
        }
        return null;
    }

    private String chooseSubprotocol(String offered) {
        if (offered == null || options.subprotocols().isEmpty()) {
            return null;
        }
        List<String> client = new ArrayList<>();
        for (String s : offered.split(",")) {
            client.add(s.trim());
        }
        for (String mine : options.subprotocols()) {
            if (client.contains(mine)) {
                return mine;
            }
        }
        return null;
    }

    static boolean validKey(String key) {
        if (key.length() != 24) {
            return false;
        }
        try {
            return Base64.getDecoder().decode(key).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static String accept(String key) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            return Base64.getEncoder().encodeToString(sha1.digest((key + GUID).getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JDK", e);
        }
    }

    private static boolean hasToken(String list, String token) {
        if (list == null) {
            return false;
        }
        for (String t : list.split(",")) {
            if (t.trim().toLowerCase(Locale.ROOT).equals(token)) {
                return true;
            }
        }
        return false;
    }
}
