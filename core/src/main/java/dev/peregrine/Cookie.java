package dev.peregrine;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * A {@code Set-Cookie} value (RFC 6265 §4.1, plus {@code SameSite} and {@code Partitioned}), checked
 * when it is built: a name that is not a token, or a value with a byte outside cookie-octet (no
 * space, {@code "}, {@code ,}, {@code ;} or {@code \\} unquoted, no control byte), throws at the call.
 * <pre>{@code
 * res.cookie(Cookie.of("session", id).path("/").httpOnly().secure().sameSite(Cookie.SameSite.LAX).maxAge(Duration.ofHours(1)));
 * }</pre>
 * Immutable: every setter returns a new cookie.
 */
public final class Cookie {
    /** The {@code SameSite} attribute. */
    public enum SameSite { STRICT, LAX, NONE }

    private static final DateTimeFormatter IMF = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private final String name;
    private final String value;
    private final Long maxAge;
    private final Instant expires;
    private final String path;
    private final String domain;
    private final boolean secure;
    private final boolean httpOnly;
    private final SameSite sameSite;
    private final boolean partitioned;

    private Cookie(String name, String value, Long maxAge, Instant expires, String path, String domain, boolean secure,
                   boolean httpOnly, SameSite sameSite, boolean partitioned) {
        this.name = name;
        this.value = value;
        this.maxAge = maxAge;
        this.expires = expires;
        this.path = path;
        this.domain = domain;
        this.secure = secure;
        this.httpOnly = httpOnly;
        this.sameSite = sameSite;
        this.partitioned = partitioned;
    }

    /**
     * A session cookie {@code name=value}.
     *
     * @throws IllegalArgumentException for an invalid name or value
     */
    public static Cookie of(String name, String value) {
        if (!dev.peregrine.buffer.HttpTokens.isToken(name)) {
            throw new IllegalArgumentException("invalid cookie name (not an RFC 9110 token): " + name);
        }
        String v = value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"") ? value.substring(1, value.length() - 1) : value;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            // cookie-octet = %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E
            if (c < 0x21 || c == '"' || c == ',' || c == ';' || c == '\\' || c > 0x7E) {
                throw new IllegalArgumentException("invalid byte in the value of cookie " + name + " at " + i
                        + " (RFC 6265 cookie-octet; encode it first, e.g. with Base64 or percent-encoding)");
            }
        }
        return new Cookie(name, value, null, null, null, null, false, false, null, false);
    }

    /** {@code Max-Age} in seconds (zero or negative: expire now). */
    public Cookie maxAge(Duration d) {
        return new Cookie(name, value, d.getSeconds(), expires, path, domain, secure, httpOnly, sameSite, partitioned);
    }

    /** {@code Expires} (an IMF-fixdate). */
    public Cookie expires(Instant at) {
        return new Cookie(name, value, maxAge, at, path, domain, secure, httpOnly, sameSite, partitioned);
    }

    /** {@code Path}; must not hold control characters or {@code ;}. */
    public Cookie path(String p) {
        return new Cookie(name, value, maxAge, expires, attribute(p, "Path"), domain, secure, httpOnly, sameSite, partitioned);
    }

    /** {@code Domain}; must not hold control characters or {@code ;}. */
    public Cookie domain(String d) {
        return new Cookie(name, value, maxAge, expires, path, attribute(d, "Domain"), secure, httpOnly, sameSite, partitioned);
    }

    public Cookie secure() {
        return new Cookie(name, value, maxAge, expires, path, domain, true, httpOnly, sameSite, partitioned);
    }

    public Cookie httpOnly() {
        return new Cookie(name, value, maxAge, expires, path, domain, secure, true, sameSite, partitioned);
    }

    /** {@code SameSite}; {@code NONE} also needs {@link #secure()} in browsers. */
    public Cookie sameSite(SameSite s) {
        return new Cookie(name, value, maxAge, expires, path, domain, secure, httpOnly, s, partitioned);
    }

    /** {@code Partitioned} (CHIPS); implies {@link #secure()}. */
    public Cookie partitioned() {
        return new Cookie(name, value, maxAge, expires, path, domain, true, httpOnly, sameSite, true);
    }

    private static String attribute(String v, String what) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < 0x20 || c == 0x7F || c == ';' || c > 0x7E) {
                throw new IllegalArgumentException("invalid character in cookie " + what + ": " + v);
            }
        }
        return v;
    }

    /** The {@code Set-Cookie} header value. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(name).append('=').append(value);
        if (maxAge != null) {
            b.append("; Max-Age=").append(Math.max(0, maxAge));
        }
        if (expires != null) {
            b.append("; Expires=").append(IMF.format(expires));
        }
        if (path != null) {
            b.append("; Path=").append(path);
        }
        if (domain != null) {
            b.append("; Domain=").append(domain);
        }
        if (secure) {
            b.append("; Secure");
        }
        if (httpOnly) {
            b.append("; HttpOnly");
        }
        if (sameSite != null) {
            b.append("; SameSite=").append(sameSite == SameSite.STRICT ? "Strict" : sameSite == SameSite.LAX ? "Lax" : "None");
        }
        if (partitioned) {
            b.append("; Partitioned");
        }
        return b.toString();
    }
}
