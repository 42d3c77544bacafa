package dev.peregrine.json;

/**
 * The process-wide {@link JsonMapper} that {@code res.json} and {@code req.bodyAs} use: the one set
 * with {@link #use}, else Jackson when it is on the class path (found the way Javalin finds it).
 *
 * <p>Thread: any.
 */
public final class Json {
    private static volatile JsonMapper mapper;

    private Json() {
    }

    /** Makes {@code m} the mapper of {@code res.json} and {@code req.bodyAs} from now on. */
    public static void use(JsonMapper m) {
        mapper = java.util.Objects.requireNonNull(m, "mapper");
    }

    /**
     * The mapper in use.
     *
     * @throws IllegalStateException when none was set and Jackson is not on the class path, naming
     *     the artifact to add
     */
    public static JsonMapper mapper() {
        JsonMapper m = mapper;
        if (m == null) {
            synchronized (Json.class) {
                if (mapper == null) {
                    mapper = findJackson();
                }
                m = mapper;
            }
        }
        return m;
    }

    private static JsonMapper findJackson() {
        try {
            Class.forName("com.fasterxml.jackson.databind.ObjectMapper", false, Json.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("res.json and req.bodyAs need a JSON mapper: add "
                    + "com.fasterxml.jackson.core:jackson-databind to the application, or call Json.use(yourMapper)");
        }
        return new JacksonJson();
    }
}
