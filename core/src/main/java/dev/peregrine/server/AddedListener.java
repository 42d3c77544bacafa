package dev.peregrine.server;

import dev.peregrine.loop.LoopSetup;

/**
 * A listener that a module outside core adds beside the HTTP ports, serving the same routes in
 * another protocol: teleport ({@code Server.Builder.teleport}, module {@code peregrine-teleport}).
 * Core cannot name that module, so the implementation is found by its class name when the builder
 * asks for it: a missing module is an exception at the builder's call, not at the first request.
 *
 * <p>Thread: any (implementations are stateless).
 */
public interface AddedListener {
    /** The class in {@code peregrine-teleport} that implements this (public, with a public no-argument constructor). */
    String TELEPORT = "dev.peregrine.teleport.TeleportListener";
    /** The ALPN name of teleport over TLS (docs/teleport.md): the only one its TLS listener should be chosen by. */
    String TELEPORT_ALPN = "peregrine-tp/1";

    /** The loops' setup for a listener on {@code port} serving {@code setup}'s routes, {@code layer} (TLS, or null) over its sockets. */
    LoopSetup listener(ServerSetup setup, int port, dev.peregrine.loop.EndpointLayer layer);

    /** The implementation named {@code className}; an {@link IllegalStateException} naming {@code module} when it is absent. */
    static AddedListener find(String className, String module) {
        try {
            return (AddedListener) Class.forName(className).getConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(module + " is not on the class or module path", e);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("cannot load " + className + " from " + module + ": " + e, e);
        }
    }
}
