package dev.peregrine.teleport;

import dev.peregrine.Handlers;
import dev.peregrine.Server;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code maxRequestsPerConnection} and {@code maxConnectionAge} over teleport: GOAWAY with the last id
 * taken, requests in flight answered, later ones not taken; the client resends those on a new
 * connection and reconnects at once, so no call fails. On every transport of the kit's list.
 */
class ConnectionLimitsTest {
    private Server server;
    private TeleportClient client;

    private Server start(String transport, int maxRequests, Duration age) {
        Server.Builder b = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).teleport(0)
                .maxRequestsPerConnection(maxRequests).maxConnectionAgeJitter(0)
                .get("/port", (req, res) -> res.text(req.query().get("i") + "@" + req.remoteAddress().getPort()))
                .get("/slow", Handlers.blocking((req, res) -> {
                    Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                    res.text(req.query().get("i") + "@" + req.remoteAddress().getPort());
                }));
        if (age != null) {
            b.maxConnectionAge(age);
        }
        server = b.start();
        return server;
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** The third request taken brings GOAWAY 3; the two sent after it get nothing (a PING behind them proves it). */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void theLastRequestAllowedBringsGoawayAndLaterOnesAreNotTaken(String transport) throws Exception {
        start(transport, 3, null);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 1; i <= 5; i++) {
                all.writeBytes(TestPeer.request(i, TestPeer.get(i == 2 ? "/slow?i=2" : "/port?i=" + i)));
            }
            all.writeBytes(TestPeer.frame(77, Frame.PING, new byte[0]));
            p.write(all.toByteArray());
            Set<Integer> answered = new HashSet<>();
            boolean goaway = false;
            boolean pong = false;
            while (answered.size() < 3 || !goaway || !pong) {
                TestPeer.Got g = p.read();
                if (g.type() == Frame.GOAWAY) {
                    assertEquals(3, g.id());
                    goaway = true;
                } else if (g.type() == Frame.PING) {
                    assertEquals(77, g.id());
                    pong = true;
                } else {
                    assertEquals(Frame.RESPONSE, g.type());
                    assertTrue(g.id() >= 1 && g.id() <= 3, "only requests up to the GOAWAY's id are answered: " + g.id());
                    assertTrue(answered.add(g.id()));
                    assertTrue(g.body().startsWith(g.id() + "@"), g.body());
                }
            }
            p.write(TestPeer.frame(78, Frame.PING, new byte[0])); // still nothing for 4 and 5
            TestPeer.Got g = p.read();
            assertEquals(Frame.PING, g.type());
            assertEquals(78, g.id());
        }
    }

    /** 2,000 calls, 400 at once, through a server that takes 10 per connection: every one answered, over 200 connections. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void theClientReconnectsAndResendsWhatWasNotTaken(String transport) throws Exception {
        start(transport, 10, null);
        client = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(dev.peregrine.Transport.parse(transport))
                .maxInFlight(1000).timeout(Duration.ofSeconds(30)).build();
        Set<String> ports = new HashSet<>();
        for (int round = 0; round < 5; round++) {
            List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                fs.add(client.send(ClientRequest.get("http://svc/" + (i % 4 == 0 ? "slow" : "port") + "?i=" + i)));
            }
            for (int i = 0; i < fs.size(); i++) {
                String text = fs.get(i).get(60, TimeUnit.SECONDS).text();
                assertTrue(text.startsWith(i + "@"), text);
                ports.add(text.substring(text.indexOf('@') + 1));
            }
        }
        assertTrue(ports.size() >= 200, "at most 10 requests per connection: " + ports.size() + " connections");
    }

    /** An idle connection past its age gets GOAWAY (id 0: none taken); a busy one after the request that finds it aged. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void anAgedConnectionIsRetiredByGoaway(String transport) throws Exception {
        start(transport, 0, Duration.ofMillis(300));
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            TestPeer.Got g = p.read(); // nothing sent: the idle timer fires at the age
            assertEquals(Frame.GOAWAY, g.type());
            assertEquals(0, g.id());
        }
        client = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(dev.peregrine.Transport.parse(transport))
                .timeout(Duration.ofSeconds(30)).build();
        Set<String> ports = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int i = 0; ports.size() < 3 && System.nanoTime() < deadline; i++) { // a new connection every 300 ms
            String text = client.execute(ClientRequest.get("http://svc/port?i=" + i)).text();
            assertTrue(text.startsWith(i + "@"), text);
            ports.add(text.substring(text.indexOf('@') + 1));
        }
        assertEquals(3, ports.size(), "connections retired by age, the calls never failing");
    }
}
