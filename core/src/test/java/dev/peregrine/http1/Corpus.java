package dev.peregrine.http1;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The shared request corpus ({@code src/test/resources/corpus} at the top of the repository, put on
 * this module's test class path by its pom): {@code index.txt} lists every file with what it must give.
 */
public final class Corpus {
    /** One corpus file. For a valid one, {@code status} is what the e2e server answers. */
    public static final class Entry {
        public final String file;
        final int status;
        final boolean valid;
        final String method;
        final String path;
        final int bodyLength;
        public final byte[] bytes;

        Entry(String file, int status, boolean valid, String method, String path, int bodyLength, byte[] bytes) {
            this.file = file;
            this.status = status;
            this.valid = valid;
            this.method = method;
            this.path = path;
            this.bodyLength = bodyLength;
            this.bytes = bytes;
        }

        @Override
        public String toString() {
            return file;
        }
    }

    private Corpus() {
    }

    public static List<Entry> valid() {
        return load(true);
    }

    public static List<Entry> invalid() {
        return load(false);
    }

    private static List<Entry> load(boolean valid) {
        List<Entry> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(open("index.txt"), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.trim().split("\\s+");
                boolean v = f[0].startsWith("valid/");
                if (v != valid) {
                    continue;
                }
                byte[] bytes;
                try (InputStream in = open(f[0])) {
                    bytes = in.readAllBytes();
                }
                int status = Integer.parseInt(f[1]);
                out.add(v ? new Entry(f[0], status, true, f[2], f[3], Integer.parseInt(f[4]), bytes)
                        : new Entry(f[0], status, false, null, null, 0, bytes));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("empty corpus");
        }
        return out;
    }

    private static InputStream open(String name) {
        InputStream in = Corpus.class.getResourceAsStream("/corpus/" + name);
        if (in == null) {
            throw new IllegalStateException("corpus file missing from the test class path: " + name);
        }
        return in;
    }
}
