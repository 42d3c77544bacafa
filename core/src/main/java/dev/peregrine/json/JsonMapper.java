package dev.peregrine.json;

import java.io.IOException;

/**
 * Turns objects into JSON bytes and back, for {@code res.json(Object)} and {@code req.bodyAs(Class)}.
 * The default ({@link Json#mapper()}) is Jackson when {@code com.fasterxml.jackson.core:jackson-databind}
 * is on the class path; plug in any other (a faster one, or Jackson configured your way) with
 * {@link Json#use(JsonMapper)}.
 *
 * <p>Thread: any; implementations must be thread-safe (handlers on every loop share one).
 */
public interface JsonMapper {
    /** The JSON of {@code value}, UTF-8. */
    byte[] write(Object value) throws IOException;

    /** {@code json} (UTF-8) as a {@code type}. */
    <T> T read(byte[] json, Class<T> type) throws IOException;
}
