package dev.peregrine.client;

import dev.peregrine.h2.hpack.HpackEncoder;

import java.util.Locale;

/**
 * Encodes a {@link ClientRequest}'s fields as an HPACK block for HTTP/2 (RFC 9113 §8.3.1, RFC 7541):
 * <pre>
 *   :method     GET and POST indexed (static 2, 3), others a literal with name index 2
 *   :scheme     indexed: http 6, https 7
 *   :authority  literal with name index 1: host, with the port unless it is the scheme's
 *   :path       "/" indexed (4), else a literal with name index 4 (path and query)
 *   fields      lowercase names; connection-specific ones dropped (§8.2.2: Connection, Keep-Alive,
 *               Proxy-Connection, Upgrade, Transfer-Encoding, a TE other than "trailers");
 *               user-agent unless given; content-length for a body (and an empty POST, PUT, PATCH)
 * </pre>
 * Only static indices and literals without indexing are used, so a block depends on no decoder
 * state and is built once per (immutable) request, then sent as often as the request is
 * ({@link ClientRequest#h2Block()}).
 *
 * <p>Thread: any (a new encoder per block).
 */
final class H2RequestBlock {
    private H2RequestBlock() {
    }

    static byte[] encode(ClientRequest r) {
        HpackEncoder e = new HpackEncoder();
        e.reset();
        String method = r.method();
        if (method.equals("GET")) {
            e.indexed(2);
        } else if (method.equals("POST")) {
            e.indexed(3);
        } else {
            e.field(2, method);
        }
        e.indexed(r.https() ? 7 : 6);
        int port = r.port();
        String host = r.uri().getHost();
        e.field(1, port != (r.https() ? 443 : 80) ? host + ":" + port : host);
        String target = r.target();
        if (target.equals("/")) {
            e.indexed(4);
        } else {
            e.field(4, target);
        }
        boolean ua = false;
        for (String[] kv : r.headers()) {
            String name = kv[0].toLowerCase(Locale.ROOT);
            switch (name) {
                case "connection":
                case "keep-alive":
                case "proxy-connection":
                case "upgrade":
                case "transfer-encoding":
                    continue;
                case "te":
                    if (!kv[1].trim().equalsIgnoreCase("trailers")) {
                        continue;
                    }
                    break;
                case "user-agent":
                    ua = true;
                    break;
                default:
                    break;
            }
            e.field(name, kv[1]);
        }
        if (!ua) {
            e.field("user-agent", "Peregrine");
        }
        byte[] body = r.body();
        if (body != null || method.equals("POST") || method.equals("PUT") || method.equals("PATCH")) {
            e.field("content-length", Integer.toString(body == null ? 0 : body.length));
        }
        return java.util.Arrays.copyOf(e.block(), e.length());
    }
}
