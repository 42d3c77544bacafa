package dev.peregrine.client;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.LayeredEndpoint;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.SocketEndpoint;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * TLS that starts on a live connection: an https call through a CONNECT proxy ({@link Dialer#connectProxy})
 * speaks plain HTTP to the proxy first and TLS to the origin inside the tunnel. The connection is built
 * with this layer; its endpoint passes bytes through untouched until {@link #begin}, then puts the
 * origin's TLS layer (SNI and hostname verification for the origin's name, the client's trust) on the
 * same socket and hands every call to it.
 * <pre>
 *   PLAIN: read/write go to the socket ("CONNECT host:port", the proxy's answer)
 *     | begin(): the proxy answered 2xx and nothing after its head
 *     v
 *   TLS: tls.wrap(socket) attached to the connection; ClientHello on its first read; what the client
 *        protocol writes meanwhile is sent once the handshake ends
 * </pre>
 * One instance per connection. Thread: the connection's loop.
 */
final class TunnelTls implements EndpointLayer {
    private final EndpointLayer tls;
    private Endpoint endpoint;

    TunnelTls(EndpointLayer tls) {
        this.tls = tls;
    }

    @Override
    public LayeredEndpoint wrap(SocketEndpoint socket, LoopContext ctx) {
        endpoint = new Endpoint(socket, ctx);
        return endpoint;
    }

    /** The tunnel is up: TLS from now on, starting with the ClientHello. */
    void begin() {
        Endpoint e = endpoint;
        LayeredEndpoint layered = tls.wrap(e.socket, e.ctx);
        e.current = layered;
        layered.attach(e.connection);
    }

    @Override
    public void close() {
        // the origin's layer is the pool's, closed with it
    }

    /** The connection's endpoint: the socket, then the TLS layer over it. */
    private static final class Endpoint implements LayeredEndpoint {
        final SocketEndpoint socket;
        final LoopContext ctx;
        SocketEndpoint current;
        Connection connection;

        Endpoint(SocketEndpoint socket, LoopContext ctx) {
            this.socket = socket;
            this.ctx = ctx;
            this.current = socket;
        }

        @Override
        public void attach(Connection c) {
            connection = c;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return current.read(dst);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return current.write(src);
        }

        @Override
        public boolean flushBuffered() throws IOException {
            return current.flushBuffered();
        }

        @Override
        public void readInterest(boolean on) {
            current.readInterest(on);
        }

        @Override
        public void writeInterest(boolean on) {
            current.writeInterest(on);
        }

        @Override
        public void shutdownOutput() {
            current.shutdownOutput();
        }

        @Override
        public void close() {
            current.close();
        }

        @Override
        public String applicationProtocol() {
            return current.applicationProtocol();
        }

        @Override
        public javax.net.ssl.SSLException tlsFailure() {
            return current.tlsFailure();
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return socket.remoteAddress();
        }
    }
}
