package dev.peregrine.websocket.codec;

/**
 * Close status codes (RFC 6455 §7.4) and which a peer may send.
 * <pre>
 *   1000 normal      1001 going away    1002 protocol error   1003 unsupported data
 *   1005 no status (never sent)         1006 abnormal (never sent)
 *   1007 invalid payload (bad UTF-8)    1008 policy violation 1009 message too big
 *   1010 extension required (client)    1011 internal error   1015 TLS (never sent)
 *   3000-3999 registered, 4000-4999 private
 * </pre>
 */
public final class CloseCodes {
    public static final int NORMAL = 1000;
    public static final int GOING_AWAY = 1001;
    public static final int PROTOCOL_ERROR = 1002;
    public static final int UNSUPPORTED_DATA = 1003;
    public static final int NO_STATUS = 1005;
    public static final int ABNORMAL = 1006;
    public static final int INVALID_PAYLOAD = 1007;
    public static final int POLICY_VIOLATION = 1008;
    public static final int TOO_BIG = 1009;
    public static final int EXTENSION_REQUIRED = 1010;
    public static final int INTERNAL_ERROR = 1011;

    private CloseCodes() {
    }

    /**
     * Whether a close frame may carry {@code code} (§7.4.1, §7.4.2): 1000-1003 and 1007-1011 of the
     * RFC's own, and 3000-4999. 1004 is reserved; 1005, 1006 and 1015 must never be sent; 1012-2999
     * were not defined by RFC 6455 and Autobahn (7.9.x) expects them refused.
     */
    public static boolean mayBeSent(int code) {
        return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1011) || (code >= 3000 && code <= 4999);
    }
}
