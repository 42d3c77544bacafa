package dev.peregrine.tls;

import dev.peregrine.tls.engine.TlsContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLParameters;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

/**
 * What a bare {@link SSLEngine} allocates for the record work of one request on the server side —
 * one unwrap of a request record, one wrap of a response record — measured on the calling thread with
 * a client engine of the same provider, in memory, after a warm-up. The baseline TLS allocation
 * figures are compared with.
 */
final class EngineBaseline {
    private EngineBaseline() {
    }

    /**
     * Server-side bytes allocated per unwrap+wrap pair, over {@code rounds} pairs after {@code warmUp}
     * pairs, with a request of {@code requestBytes} and a response of {@code responseBytes}.
     */
    static double bytesPerRecordPair(TlsConfig.Provider provider, int requestBytes, int responseBytes) throws Exception {
        SSLEngine server = TlsContext.create(TlsTesting.tls(provider).build()).newEngine();
        SSLEngine client = TlsTesting.clientContext(TlsTesting.CERT.certificate()).createSSLEngine("localhost", 443);
        client.setUseClientMode(true);
        SSLParameters p = client.getSSLParameters();
        p.setProtocols(new String[]{"TLSv1.3"});
        client.setSSLParameters(p);
        int net = Math.max(server.getSession().getPacketBufferSize(), client.getSession().getPacketBufferSize()) * 2;
        int app = Math.max(server.getSession().getApplicationBufferSize(), responseBytes) * 2;
        ByteBuffer c2s = ByteBuffer.allocateDirect(net);
        ByteBuffer s2c = ByteBuffer.allocateDirect(net);
        ByteBuffer serverApp = ByteBuffer.allocateDirect(app);
        ByteBuffer clientApp = ByteBuffer.allocateDirect(app);
        handshake(client, server, c2s, s2c, serverApp, clientApp);
        ByteBuffer request = ByteBuffer.allocateDirect(requestBytes);
        ByteBuffer response = ByteBuffer.allocateDirect(responseBytes);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        long serverBytes = 0;
        int warmUp = 3000;
        int rounds = 5000;
        for (int i = 0; i < warmUp + rounds; i++) {
            request.clear();
            c2s.clear();
            client.wrap(request, c2s);
            c2s.flip();
            serverApp.clear();
            response.clear();
            s2c.clear();
            long before = mx.getThreadAllocatedBytes(id);
            server.unwrap(c2s, serverApp);
            server.wrap(response, s2c);
            long spent = mx.getThreadAllocatedBytes(id) - before;
            if (i >= warmUp) {
                serverBytes += spent;
            }
            s2c.flip();
            clientApp.clear();
            client.unwrap(s2c, clientApp);
        }
        return serverBytes / (double) rounds;
    }

    /** Runs both engines until neither is handshaking (tasks run inline). */
    private static void handshake(SSLEngine client, SSLEngine server, ByteBuffer c2s, ByteBuffer s2c,
                                  ByteBuffer serverApp, ByteBuffer clientApp) throws Exception {
        ByteBuffer empty = ByteBuffer.allocate(0);
        client.beginHandshake();
        server.beginHandshake();
        for (int step = 0; step < 1000; step++) {
            boolean moved = step(client, empty, c2s, s2c, clientApp) | step(server, empty, s2c, c2s, serverApp);
            if (done(client) && done(server) && !moved) {
                return;
            }
        }
        throw new IllegalStateException("in-memory handshake did not finish");
    }

    private static boolean done(SSLEngine e) {
        SSLEngineResult.HandshakeStatus hs = e.getHandshakeStatus();
        return hs == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING || hs == SSLEngineResult.HandshakeStatus.FINISHED;
    }

    /** One move of {@code e}: wrap into {@code out}, or unwrap what {@code in} holds (flipped per call). */
    private static boolean step(SSLEngine e, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer app) throws Exception {
        switch (e.getHandshakeStatus()) {
            case NEED_TASK:
                Runnable t;
                while ((t = e.getDelegatedTask()) != null) {
                    t.run();
                }
                return true;
            case NEED_WRAP:
                return e.wrap(empty, out).bytesProduced() > 0;
            case NEED_UNWRAP:
            case NEED_UNWRAP_AGAIN:
                in.flip();
                SSLEngineResult r = e.unwrap(in, app);
                in.compact();
                return r.bytesConsumed() > 0;
            default:
                // done with the handshake; still take post-handshake records (session tickets) the peer sent
                if (in.position() > 0) {
                    in.flip();
                    app.clear();
                    SSLEngineResult r2 = e.unwrap(in, app);
                    in.compact();
                    return r2.bytesConsumed() > 0;
                }
                return false;
        }
    }
}
