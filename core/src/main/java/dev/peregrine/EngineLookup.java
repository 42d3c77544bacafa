package dev.peregrine;

import java.util.Iterator;
import java.util.ServiceLoader;

/**
 * Finds the {@link ServerEngine} once, with {@link ServiceLoader} (META-INF/services on the class path,
 * {@code provides} on the module path): the first one found, core's own unless another module puts
 * one before it. Loaded lazily, at the first builder call that needs the engine.
 */
final class EngineLookup {
    static final ServerEngine ENGINE = find();

    private EngineLookup() {
    }

    private static ServerEngine find() {
        Iterator<ServerEngine> it = ServiceLoader.load(ServerEngine.class, ServerEngine.class.getClassLoader()).iterator();
        if (!it.hasNext()) {
            throw new IllegalStateException("no dev.peregrine.ServerEngine on the class or module path: "
                    + "a shaded jar must keep META-INF/services (maven-shade's ServicesResourceTransformer)");
        }
        return it.next();
    }
}
