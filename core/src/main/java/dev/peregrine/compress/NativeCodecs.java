package dev.peregrine.compress;

/**
 * Finds the optional compression libraries at run time: Brotli4j
 * ({@code com.aayushatharva.brotli4j}, with the native jar of the platform) and zstd-jni
 * ({@code com.github.luben}). A class lookup first, so an application without them loads nothing;
 * then the library's own native load. A library that is present but whose native code does not load
 * is reported once, as a WARNING with the cause, and its coding is not offered.
 *
 * <p>Native code loads through {@code System.load}: on JDK 22+ run with
 * {@code --enable-native-access=ALL-UNNAMED} or the JVM prints a warning.
 *
 * <p>Thread: any; each answer is found once (class initialisation of a holder) and then read.
 */
final class NativeCodecs {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");

    private NativeCodecs() {
    }

    /** Whether br can be used: Brotli4j and its native library loaded. */
    static boolean brotli() {
        return Brotli.AVAILABLE;
    }

    /** Whether zstd can be used: zstd-jni and its native library loaded. */
    static boolean zstd() {
        return Zstd.AVAILABLE;
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, NativeCodecs.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static void warn(String library, Throwable cause) {
        LOG.log(System.Logger.Level.WARNING, library + " is on the class path but its native library did not load;"
                + " responses are not compressed with it: " + cause);
    }

    private static final class Brotli {
        static final boolean AVAILABLE = load();

        private static boolean load() {
            if (!present("com.aayushatharva.brotli4j.Brotli4jLoader")) {
                return false;
            }
            try {
                if (com.aayushatharva.brotli4j.Brotli4jLoader.isAvailable()) {
                    return true;
                }
                warn("Brotli4j", com.aayushatharva.brotli4j.Brotli4jLoader.getUnavailabilityCause());
            } catch (LinkageError e) {
                warn("Brotli4j", e);
            }
            return false;
        }
    }

    private static final class Zstd {
        static final boolean AVAILABLE = load();

        private static boolean load() {
            if (!present("com.github.luben.zstd.ZstdCompressCtx")) {
                return false;
            }
            try {
                com.github.luben.zstd.util.Native.load();
                return com.github.luben.zstd.util.Native.isLoaded();
            } catch (LinkageError | RuntimeException e) {
                warn("zstd-jni", e);
                return false;
            }
        }
    }
}
