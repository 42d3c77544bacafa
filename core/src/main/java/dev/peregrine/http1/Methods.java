package dev.peregrine.http1;

/**
 * The standard methods of RFC 9110 §9 as small integer ids, so that routing indexes an array instead
 * of comparing strings. Any other token is {@link #OTHER}.
 */
public final class Methods {
    public static final int GET = 0;
    public static final int HEAD = 1;
    public static final int POST = 2;
    public static final int PUT = 3;
    public static final int DELETE = 4;
    public static final int CONNECT = 5;
    public static final int OPTIONS = 6;
    public static final int TRACE = 7;
    public static final int PATCH = 8;
    public static final int COUNT = 9;
    /** A syntactically valid method token that is none of the above. */
    public static final int OTHER = -1;

    private static final String[] NAMES = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"};

    private Methods() {
    }

    /** The name of method {@code id} (0 to {@link #COUNT}-1). */
    public static String name(int id) {
        return NAMES[id];
    }

    /** The id of the method named {@code name} (case-sensitive, as methods are), or {@link #OTHER}. */
    public static int id(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return i;
            }
        }
        return OTHER;
    }

    /** The id of the method token in bytes {@code [start, end)} of {@code b}, or {@link #OTHER}. */
    static int id(java.nio.ByteBuffer b, int start, int end) {
        int len = end - start;
        for (int i = 0; i < NAMES.length; i++) {
            String n = NAMES[i];
            if (n.length() == len) {
                boolean eq = true;
                for (int k = 0; k < len && eq; k++) {
                    eq = b.get(start + k) == n.charAt(k);
                }
                if (eq) {
                    return i;
                }
            }
        }
        return OTHER;
    }
}
