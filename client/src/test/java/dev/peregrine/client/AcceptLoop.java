package dev.peregrine.client;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * The accept loop of the tests' small servers: a daemon thread accepts until {@code accept} throws (its
 * listener closed) and serves each connection on a daemon thread of its own.
 */
final class AcceptLoop {
    /** Takes the next connection, blocking. */
    interface Accept<T> {
        T accept() throws IOException;
    }

    private AcceptLoop() {
    }

    static <T> void start(String name, Accept<T> accept, Consumer<T> serve) {
        Thread acceptor = new Thread(() -> {
            while (true) {
                T connection;
                try {
                    connection = accept.accept();
                } catch (IOException e) {
                    return;
                }
                Thread t = new Thread(() -> serve.accept(connection), name + "-conn");
                t.setDaemon(true);
                t.start();
            }
        }, name + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }
}
