package dev.peregrine;

/** Settings for tests that drive loops and connections without starting a server. */
public final class TestConfigs {
    private TestConfigs() {
    }

    /** The settings {@code builder} would start a server with. */
    public static ServerConfig of(Server.Builder builder) {
        return new ServerConfig(builder);
    }
}
