package dev.peregrine.http2;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A client that respects the server's windows (RFC 9113 §6.9): it learns the initial stream window
 * from the server's SETTINGS and opens windows by its WINDOW_UPDATEs; DATA frames of 16 KiB.
 */
final class H2Sender {
    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int RST_STREAM = 3;
    private static final int SETTINGS = 4;
    private static final int GOAWAY = 7;
    private static final int WINDOW_UPDATE = 8;

    private final H2Wire w;
    private long connection = 65_535;
    private long initial = 65_535;
    private final Map<Integer, Long> streams = new HashMap<>();
    private final Map<Integer, StringBuilder> answers = new HashMap<>();
    private final Map<Integer, Boolean> ended = new HashMap<>();
    private boolean settingsSeen;

    H2Sender(H2Wire w) throws IOException {
        this.w = w;
        while (!settingsSeen || connection == 65_535) { // the server's SETTINGS, then its WINDOW_UPDATE on 0
            take(w.read());
        }
    }

    private long window(int stream) {
        return streams.computeIfAbsent(stream, k -> initial);
    }

    /** Sends {@code body} from {@code from} on {@code stream} while the windows allow (END_STREAM with its last byte); returns the bytes sent. */
    int sendUntilBlocked(int stream, byte[] body, int from) throws IOException {
        int sent = 0;
        while (from + sent < body.length) {
            drainAvailable();
            int n = (int) Math.min(Math.min(16_384, body.length - from - sent), Math.min(connection, window(stream)));
            if (n <= 0) {
                return sent;
            }
            boolean last = from + sent + n == body.length;
            w.frame(DATA, last ? 1 : 0, stream, java.util.Arrays.copyOfRange(body, from + sent, from + sent + n));
            connection -= n;
            streams.put(stream, window(stream) - n);
            sent += n;
        }
        return sent;
    }

    /** Reads frames until {@code stream}'s and the connection's windows are open. */
    void awaitWindow(int stream) throws IOException {
        while (connection <= 0 || window(stream) <= 0) {
            take(w.read());
        }
    }

    String answer(int stream) throws IOException {
        while (!ended.getOrDefault(stream, false)) {
            take(w.read());
        }
        return answers.get(stream).toString();
    }

    private void drainAvailable() throws IOException {
        while (w.socket.getInputStream().available() >= 9) {
            take(w.read());
        }
    }

    private void take(H2Wire.Frame f) throws IOException {
        switch (f.type()) {
            case SETTINGS:
                if ((f.flags() & 1) == 0) {
                    for (int at = 0; at < f.payload().length; at += 6) {
                        int id = (f.payload()[at] & 0xff) << 8 | (f.payload()[at + 1] & 0xff);
                        if (id == 4) {
                            long v = f.int32(at + 2) & 0xffff_ffffL;
                            for (Map.Entry<Integer, Long> e : streams.entrySet()) {
                                e.setValue(e.getValue() + v - initial);
                            }
                            initial = v;
                        }
                    }
                    w.frame(SETTINGS, 1, 0, new byte[0]);
                    settingsSeen = true;
                }
                break;
            case WINDOW_UPDATE:
                if (f.stream() == 0) {
                    connection += f.int32(0);
                } else {
                    streams.put(f.stream(), window(f.stream()) + f.int32(0));
                }
                break;
            case DATA:
                answers.computeIfAbsent(f.stream(), k -> new StringBuilder()).append(new String(f.payload(), StandardCharsets.ISO_8859_1));
                if (f.endStream()) {
                    ended.put(f.stream(), true);
                }
                break;
            case HEADERS:
                answers.computeIfAbsent(f.stream(), k -> new StringBuilder());
                if (f.endStream()) {
                    ended.put(f.stream(), true);
                }
                break;
            case RST_STREAM:
            case GOAWAY:
                throw new AssertionError("frame " + f.type() + " on " + f.stream() + " code " + f.int32(f.type() == GOAWAY ? 4 : 0));
            default:
                break;
        }
    }
}
