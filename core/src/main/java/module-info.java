/**
 * Peregrine's server (and the connection layer its client builds on).
 *
 * <p><b>Exported</b>: the API packages only: the server API ({@code dev.peregrine}), TLS
 * configuration ({@code tls}), PROXY protocol settings ({@code proxy}), static files ({@code files}), content codings
 * ({@code compress}), forms and multipart ({@code form}), cookies ({@code cookie}), JSON ({@code json}),
 * metrics exposition ({@code metrics}), WebSocket sessions ({@code websocket}; its handler, options and handshake are in the
 * API package, its codec and engine are internal) and the web features: request ids and the access log ({@code web};
 * CORS is in the API package). The API package names none of the packages that implement it: it finds
 * {@code dev.peregrine.server.Engine} through {@code ServerEngine} and {@link java.util.ServiceLoader} ({@code uses}/{@code provides} below).
 * The loops, codecs, exchange views, buffers, transports and TLS engine are exported only to
 * {@code dev.peregrine.client} and {@code dev.peregrine.teleport}, which run on the same connection layer;
 * the HTTP/1.1 server protocol ({@code server}), its off-loop work ({@code offloop}) and the router
 * ({@code route}) are exported only to {@code dev.peregrine.teleport} (which serves the same routes), the
 * PROXY endpoint ({@code proxy.engine}) not at all.
 *
 * <p><b>Optional dependencies</b> ({@code requires static}: present at compile time, read at run
 * time only when the application puts them on the module path and resolves them):
 * <ul>
 *   <li>Netty's native epoll: without it the server runs on Java NIO. On the module path add
 *       {@code --add-modules io.netty.transport.classes.epoll} (and
 *       {@code --enable-native-access=ALL-UNNAMED} on JDK 22+) to use it.</li>
 *   <li>Netty's native io_uring (the {@code io_uring} transport, chosen only when asked): on the module
 *       path add {@code --add-modules io.netty.transport.classes.io_uring} (and the native-access flag).</li>
 *   <li>Bouncy Castle (JSSE provider and development certificates).</li>
 *   <li>Jackson databind (the default {@code JsonMapper}).</li>
 *   <li>Brotli4j and zstd-jni (br and zstd response compression); on the module path add
 *       {@code --add-modules com.aayushatharva.brotli4j,com.github.luben.zstd_jni} (and the
 *       native-access flag) to use them.</li>
 * </ul>
 */
module dev.peregrine {
    requires java.logging;
    requires java.management;
    requires org.jctools.core;
    // JFR events (dev.peregrine.jfr): in every JDK; the events cost nothing while no recording wants them
    requires jdk.jfr;

    requires static io.netty.common;
    requires static io.netty.buffer; // the io_uring receive ring hands Netty our buffers as ByteBufs (transport/iouring/RecvRing)
    requires static io.netty.transport;
    requires static io.netty.transport.unix.common;
    requires static io.netty.transport.classes.epoll;
    requires static io.netty.transport.classes.io_uring;
    requires static org.bouncycastle.provider;
    requires static org.bouncycastle.pkix;
    requires static org.bouncycastle.tls;
    requires static com.fasterxml.jackson.databind;
    requires static com.aayushatharva.brotli4j;
    requires static com.github.luben.zstd_jni;

    // The API package finds its implementation (ServerEngine) with ServiceLoader: it names none of it.
    uses dev.peregrine.ServerEngine;
    provides dev.peregrine.ServerEngine with dev.peregrine.server.Engine;

    exports dev.peregrine;
    exports dev.peregrine.compress;
    exports dev.peregrine.cookie;
    exports dev.peregrine.files;
    exports dev.peregrine.form;
    exports dev.peregrine.json;
    exports dev.peregrine.metrics;
    exports dev.peregrine.proxy;
    exports dev.peregrine.tls;
    exports dev.peregrine.web;
    exports dev.peregrine.websocket;

    exports dev.peregrine.jfr to jdk.jfr;
    exports dev.peregrine.buffer to dev.peregrine.client, dev.peregrine.teleport;
    exports dev.peregrine.http1 to dev.peregrine.client, dev.peregrine.teleport;
    exports dev.peregrine.exchange to dev.peregrine.client, dev.peregrine.teleport;
    exports dev.peregrine.loop to dev.peregrine.client, dev.peregrine.teleport;
    exports dev.peregrine.tls.engine to dev.peregrine.client, dev.peregrine.teleport;
    exports dev.peregrine.websocket.engine to dev.peregrine.client;
    exports dev.peregrine.h2.frame to dev.peregrine.client;
    exports dev.peregrine.h2.hpack to dev.peregrine.client;
    exports dev.peregrine.transport to dev.peregrine.client, dev.peregrine.teleport;
    exports dev.peregrine.transport.choice to dev.peregrine.client, dev.peregrine.teleport;
    exports dev.peregrine.transport.epoll to dev.peregrine.client, dev.peregrine.teleport;
    exports dev.peregrine.transport.iouring to dev.peregrine.client, dev.peregrine.teleport;
    exports dev.peregrine.transport.nio to dev.peregrine.client, dev.peregrine.teleport;
    // teleport (peregrine-teleport) serves the same routes through the HTTP server's per-loop state
    exports dev.peregrine.server to dev.peregrine.teleport;
    exports dev.peregrine.offloop to dev.peregrine.teleport;
    exports dev.peregrine.route to dev.peregrine.teleport;
}
