package dev.peregrine.server;

import dev.peregrine.Handler;
import dev.peregrine.ServerEngine;
import dev.peregrine.StaticOptions;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.files.StaticFiles;
import dev.peregrine.websocket.engine.WebSocketRoute;

import java.nio.file.Path;

/**
 * Core's {@link ServerEngine}: what the API package finds with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/dev.peregrine.ServerEngine}; {@code provides} in module-info). Each method
 * hands the API's values to the class that does the work: {@link ServerLaunch} (start), {@link TestWire}
 * ({@code TestClient}), {@link RouteAssembly} (the router), {@link StaticFiles}, {@link WebSocketRoute}.
 * Stateless. Thread: any.
 */
public final class Engine implements ServerEngine {
    /** For {@link java.util.ServiceLoader}. */
    public Engine() {
    }

    @Override
    public RouteCheck routeCheck() {
        return RouteAssembly.check();
    }

    @Override
    public Handler staticFiles(Path directory, StaticOptions options) {
        return new StaticFiles(directory, options);
    }

    @Override
    public Handler webSocket(String path, WebSocketOptions options, WebSocketHandler handler) {
        return WebSocketRoute.of(path, options, handler);
    }

    @Override
    public void requireListener(String name) {
        if (!name.equals("teleport")) {
            throw new IllegalArgumentException("no listener named " + name);
        }
        AddedListener.find(AddedListener.TELEPORT, "peregrine-teleport");
    }

    @Override
    public Running start(Plan plan) {
        return ServerLaunch.start(plan);
    }

    @Override
    public Wire wire(Plan plan) {
        return new TestWire(plan);
    }
}
