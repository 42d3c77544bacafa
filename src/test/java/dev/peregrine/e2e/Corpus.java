package dev.peregrine.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The shared request corpus (src/test/resources/corpus, see its index.txt), read from the class path. */
final class Corpus {
    static final class Entry {
        final String file;
        final int status;
        final String method;
        final byte[] bytes;

        Entry(String file, int status, String method, byte[] bytes) {
            this.file = file;
            this.status = status;
            this.method = method;
            this.bytes = bytes;
        }

        @Override
        public String toString() {
            return file;
        }
    }

    private Corpus() {
    }

    static List<Entry> load(String folder) {
        List<Entry> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(open("index.txt"), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.trim().split("\\s+");
                if (line.startsWith("#") || !f[0].startsWith(folder + "/")) {
                    continue;
                }
                try (InputStream in = open(f[0])) {
                    out.add(new Entry(f[0], Integer.parseInt(f[1]), f.length > 2 ? f[2] : null, in.readAllBytes()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no corpus entries in " + folder);
        }
        return out;
    }

    private static InputStream open(String name) {
        InputStream in = Corpus.class.getResourceAsStream("/corpus/" + name);
        if (in == null) {
            throw new IllegalStateException("corpus file missing: " + name);
        }
        return in;
    }
}
