package dev.peregrine.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the real {@code curl} (installed by {@code scripts/lib/ensure-tools.sh}) as a test's client:
 * what a user types, against the server under test.
 */
public final class Curl {
    private Curl() {
    }

    /**
     * Runs {@code curl args...} and returns what it printed (stdout and stderr, as UTF-8); fails the
     * test, with that output, when curl exits with anything but 0.
     */
    public static String run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(args.length + 1);
        cmd.add("curl");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readAllBytes();
        }
        int exit = p.waitFor();
        String text = new String(out, StandardCharsets.UTF_8);
        if (exit != 0) {
            throw new AssertionError("curl " + String.join(" ", args) + " exited " + exit + ": " + text);
        }
        return text;
    }
}
