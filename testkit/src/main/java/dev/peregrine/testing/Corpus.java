package dev.peregrine.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The shared corpora of raw messages ({@code src/test/resources/corpus} at the top of the repository,
 * carried by this kit's jar): requests in {@code corpus/{valid,invalid}}, responses in
 * {@code corpus/responses/{valid,invalid}}. Each folder's {@code index.txt} lists every file with what
 * it must give, one line each:
 *
 * <pre>
 * corpus/index.txt            valid/NAME.http   STATUS METHOD PATH BODY-LENGTH   (STATUS: the e2e answer)
 *                             invalid/NAME.http STATUS                          (the rejection)
 * corpus/responses/index.txt  valid/NAME.http   METHOD STATUS BODY-LENGTH INTERIM
 *                             invalid/NAME.http METHOD WORDS-OF-THE-ERROR...
 * </pre>
 *
 * Add a case by adding a file and an index line. Thread-safe (each call reads afresh).
 */
public final class Corpus {
    /** One corpus file and its index line. */
    public static final class Entry {
        /** The file's name under its corpus, e.g. {@code valid/get-plaintext.http}. */
        public final String file;
        /** The message, byte for byte. */
        public final byte[] bytes;
        private final String[] columns;

        Entry(String file, String[] columns, byte[] bytes) {
            this.file = file;
            this.columns = columns;
            this.bytes = bytes;
        }

        /** The index line's columns after the file name. */
        public List<String> columns() {
            return List.of(columns);
        }

        /** A request's status: the e2e server's answer (valid) or the rejection (invalid). */
        public int status() {
            return Integer.parseInt(columns[0]);
        }

        /** A valid request's method. */
        public String method() {
            return columns[1];
        }

        /** A valid request's path. */
        public String path() {
            return columns[2];
        }

        /** A valid request's body length after chunked decoding. */
        public int bodyLength() {
            return Integer.parseInt(columns[3]);
        }

        @Override
        public String toString() {
            return file;
        }
    }

    private Corpus() {
    }

    /** Every request the parser must accept. */
    public static List<Entry> valid() {
        return load("corpus/", "valid/");
    }

    /** Every request the server must reject. */
    public static List<Entry> invalid() {
        return load("corpus/", "invalid/");
    }

    /** Every response a client must read (columns: method, status, body length, interim responses). */
    public static List<Entry> validResponses() {
        return load("corpus/responses/", "valid/");
    }

    /** Every response a client must refuse (columns: method, then the words its error must contain). */
    public static List<Entry> invalidResponses() {
        return load("corpus/responses/", "invalid/");
    }

    private static List<Entry> load(String corpus, String kind) {
        List<Entry> out = new ArrayList<>();
        try (BufferedReader index = new BufferedReader(new InputStreamReader(open(corpus + "index.txt"), StandardCharsets.UTF_8))) {
            String line;
            while ((line = index.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#") || !line.startsWith(kind)) {
                    continue;
                }
                String[] f = line.trim().split("\\s+");
                try (InputStream in = open(corpus + f[0])) {
                    out.add(new Entry(f[0], Arrays.copyOfRange(f, 1, f.length), in.readAllBytes()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no entries under " + corpus + kind);
        }
        return out;
    }

    private static InputStream open(String name) {
        InputStream in = Corpus.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            throw new IllegalStateException("corpus file missing from the class path: " + name);
        }
        return in;
    }
}
