package dev.peregrine.buffer;

/**
 * Byte classes of RFC 9110/9112 as 256-entry tables, built once.
 *
 * <table>
 *   <caption>classes</caption>
 *   <tr><th>table</th><th>bytes</th><th>rule</th></tr>
 *   <tr><td>{@link #TCHAR}</td><td>{@code !#$%&'*+-.^_`|~}, digits, letters</td><td>token, RFC 9110 §5.6.2</td></tr>
 *   <tr><td>{@link #TARGET}</td><td>0x21–0x7E except {@code #}</td><td>request-target, RFC 9112 §3.2 (fragments are never sent)</td></tr>
 *   <tr><td>{@link #FIELD_VALUE}</td><td>HTAB, 0x20–0x7E, 0x80–0xFF</td><td>field-value incl. obs-text, RFC 9110 §5.5</td></tr>
 * </table>
 */
public final class HttpTokens {
    public static final boolean[] TCHAR = new boolean[256];
    public static final boolean[] TARGET = new boolean[256];
    public static final boolean[] FIELD_VALUE = new boolean[256];
    /** Hex digit values, or -1. */
    public static final byte[] HEX = new byte[256];

    /** Whether {@code s} is a non-empty RFC 9110 §5.6.2 token. */
    public static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch > 255 || !TCHAR[ch]) {
                return false;
            }
        }
        return true;
    }

    static {
        for (int c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (int c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[c - 32] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
        for (int c = 0x21; c <= 0x7E; c++) {
            TARGET[c] = c != '#';
        }
        FIELD_VALUE['\t'] = true;
        for (int c = 0x20; c <= 0xFF; c++) {
            FIELD_VALUE[c] = c != 0x7F;
        }
        java.util.Arrays.fill(HEX, (byte) -1);
        for (int c = '0'; c <= '9'; c++) {
            HEX[c] = (byte) (c - '0');
        }
        for (int c = 'a'; c <= 'f'; c++) {
            HEX[c] = (byte) (c - 'a' + 10);
            HEX[c - 32] = (byte) (c - 'a' + 10);
        }
    }

    private HttpTokens() {
    }
}
