package dev.peregrine.http1;

import java.nio.charset.StandardCharsets;

/** Reason phrases (RFC 9110 §15) and the ready-made status lines written for them. */
public final class Status {
    private static final String[] REASONS = new String[1000];
    private static final byte[][] STATUS_LINES = new byte[1000][];
    private static final byte[][] ERROR_BODIES = new byte[1000][];

    static {
        String[] pairs = {
            "100", "Continue", "101", "Switching Protocols", "102", "Processing", "103", "Early Hints",
            "200", "OK", "201", "Created", "202", "Accepted", "203", "Non-Authoritative Information",
            "204", "No Content", "205", "Reset Content", "206", "Partial Content",
            "300", "Multiple Choices", "301", "Moved Permanently", "302", "Found", "303", "See Other",
            "304", "Not Modified", "307", "Temporary Redirect", "308", "Permanent Redirect",
            "400", "Bad Request", "401", "Unauthorized", "402", "Payment Required", "403", "Forbidden",
            "404", "Not Found", "405", "Method Not Allowed", "406", "Not Acceptable",
            "407", "Proxy Authentication Required", "408", "Request Timeout", "409", "Conflict",
            "410", "Gone", "411", "Length Required", "412", "Precondition Failed",
            "413", "Content Too Large", "414", "URI Too Long", "415", "Unsupported Media Type",
            "416", "Range Not Satisfiable", "417", "Expectation Failed", "421", "Misdirected Request",
            "422", "Unprocessable Content", "426", "Upgrade Required", "428", "Precondition Required",
            "429", "Too Many Requests", "431", "Request Header Fields Too Large",
            "500", "Internal Server Error", "501", "Not Implemented", "502", "Bad Gateway",
            "503", "Service Unavailable", "504", "Gateway Timeout", "505", "HTTP Version Not Supported",
        };
        for (int i = 0; i < pairs.length; i += 2) {
            REASONS[Integer.parseInt(pairs[i])] = pairs[i + 1];
        }
        for (int code = 100; code < 1000; code++) {
            String reason = REASONS[code] == null ? "" : REASONS[code];
            STATUS_LINES[code] = ("HTTP/1.1 " + code + " " + reason + "\r\n").getBytes(StandardCharsets.US_ASCII);
            ERROR_BODIES[code] = (code + " " + reason + "\n").getBytes(StandardCharsets.US_ASCII);
        }
    }

    private Status() {
    }

    /** The reason phrase for {@code code}, or {@code ""} when it has none. */
    public static String reason(int code) {
        String r = code >= 0 && code < REASONS.length ? REASONS[code] : null;
        return r == null ? "" : r;
    }

    /**
     * The body of every error answer of the server's own (the parser's rejections, the router's
     * 404/405/501, a failed handler's 500, an async timeout's 503): {@code "<code> <reason>\n"} as
     * {@code text/plain; charset=utf-8}. One rule, so a client sees the same shape whoever answered.
     * Shared: do not modify.
     */
    public static byte[] errorBody(int code) {
        return ERROR_BODIES[code];
    }

    /** {@code "HTTP/1.1 <code> <reason>\r\n"} as bytes; {@code code} from 100 to 999. Shared: do not modify. */
    public static byte[] statusLine(int code) {
        return STATUS_LINES[code];
    }
}
