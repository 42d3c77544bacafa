package dev.peregrine.json;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;

/**
 * {@link JsonMapper} on Jackson's {@link ObjectMapper} (thread-safe once configured). Loaded only
 * when Jackson is on the class path ({@link Json#mapper()} checks first).
 */
public final class JacksonJson implements JsonMapper {
    private final ObjectMapper mapper;

    /** With a default {@code ObjectMapper}. */
    public JacksonJson() {
        this(new ObjectMapper());
    }

    /** With {@code mapper} as the application configured it. */
    public JacksonJson(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public byte[] write(Object value) throws IOException {
        return mapper.writeValueAsBytes(value);
    }

    @Override
    public <T> T read(byte[] json, Class<T> type) throws IOException {
        return mapper.readValue(json, type);
    }
}
