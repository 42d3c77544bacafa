package dev.peregrine.jmh.websocket;

import dev.peregrine.Server;
import dev.peregrine.websocket.Payload;
import dev.peregrine.websocket.PreparedMessage;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.websocket.WebSocketSession;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Peregrine's side of {@code scripts/bench-ws}, the twin of {@link NettyWsServer}: one loop
 * ({@code -Dperegrine.transport} picks it, epoll by default where it loads), compression off, and
 * <ul>
 *   <li>{@code /ws/echo}: each message sent back from the callback with {@code send(Payload)}
 *       (from where it lies into the output: no copy);</li>
 *   <li>{@code /ws/broadcast}: each message encoded once ({@link PreparedMessage}) and sent to every
 *       connection of that path.</li>
 * </ul>
 * Run: {@code java -cp peregrine-jmh.jar dev.peregrine.jmh.websocket.PeregrineWsServer PORT}. Prints
 * {@code listening PORT} once bound.
 */
public final class PeregrineWsServer {
    private PeregrineWsServer() {
    }

    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        Set<WebSocketSession> room = ConcurrentHashMap.newKeySet();
        WebSocketOptions plain = WebSocketOptions.DEFAULTS.compression(false);
        Server server = Server.builder().host("127.0.0.1").port(port).threads(1)
                .transport(System.getProperty("peregrine.transport", "auto"))
                .websocket("/ws/echo", plain, new WebSocketHandler() {
                    @Override
                    public void onText(WebSocketSession s, Payload text) {
                        s.send(text);
                    }

                    @Override
                    public void onBinary(WebSocketSession s, Payload data) {
                        s.send(data);
                    }
                })
                .websocket("/ws/broadcast", plain, new WebSocketHandler() {
                    @Override
                    public void onOpen(WebSocketSession s) {
                        room.add(s);
                    }

                    @Override
                    public void onText(WebSocketSession s, Payload text) {
                        PreparedMessage m = PreparedMessage.text(text.text());
                        for (WebSocketSession each : room) {
                            each.send(m, null);
                        }
                    }

                    @Override
                    public void onClose(WebSocketSession s, int code, String reason) {
                        room.remove(s);
                    }
                })
                .start();
        System.out.println("listening " + server.port() + " (peregrine)");
    }
}
