package dev.peregrine.teleport;

import net.jpountz.lz4.LZ4Factory;

/**
 * Which LZ4 implementation teleport uses, found once: the library's JNI code
 * ({@link LZ4Factory#nativeInstance()}, bundled in its jar for the common platforms), else its safe
 * pure-Java instance, said once at INFO. Never its {@code unsafe} instance, which reaches
 * {@code sun.misc.Unsafe} (a warning on JDK 24 and later).
 *
 * <p>The native code loads through {@code System.load}: on JDK 22 and later run with
 * {@code --enable-native-access=ALL-UNNAMED} (or the module's name) or the JVM prints a warning.
 *
 * <p>Thread: any (class initialisation of a holder).
 */
final class Lz4Library {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.teleport");

    private Lz4Library() {
    }

    /** The factory teleport's LZ4 streams use. */
    static LZ4Factory factory() {
        return Holder.FACTORY;
    }

    /** Whether that is the JNI implementation. */
    static boolean isNative() {
        return Holder.NATIVE;
    }

    private static final class Holder {
        static final boolean NATIVE;
        static final LZ4Factory FACTORY;

        static {
            LZ4Factory f;
            boolean nativeCode;
            try {
                f = LZ4Factory.nativeInstance();
                nativeCode = true;
            } catch (LinkageError | RuntimeException e) {
                LOG.log(System.Logger.Level.INFO, "teleport lz4: the native LZ4 code did not load (" + e
                        + "); using lz4-java's safe Java implementation");
                f = LZ4Factory.safeInstance();
                nativeCode = false;
            }
            FACTORY = f;
            NATIVE = nativeCode;
        }
    }
}
