package dev.peregrine.client;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The redirect rules of {@link HttpClient#send} when {@code followRedirects(n)} is set: given a
 * request and its response, the request to send next, or null to hand the response to the caller.
 * Pure: no I/O, no state.
 * <pre>
 *   status   method on the next hop                 body on the next hop
 *   301,302  POST becomes GET; any other method kept  dropped with POST, else kept
 *   303      GET (HEAD stays HEAD)                    dropped
 *   307,308  kept                                     kept (bodies are in memory, so replayable)
 *   other    (no redirect: the response is the answer)
 * </pre>
 * RFC 9110 §15.4.2–15.4.9: 303 asks for a GET; 307 and 308 forbid changing the method; for 301 and
 * 302 a user agent may turn POST into GET, which every browser and curl do, so this client does
 * too. A dropped body takes its {@code Content-*} headers with it.
 *
 * <p>The {@code Location} is resolved against the request's URL (RFC 9110 §10.2.2; relative
 * references per RFC 3986 §5). When the next hop's origin (scheme, host, port) differs from the
 * request's, {@code Authorization}, {@code Proxy-Authorization} and {@code Cookie} are dropped: a
 * credential meant for one origin must not travel to another. A 3xx without {@code Location} is
 * no redirect (RFC 9110 §15.4: the field is only a SHOULD for 301/302/307/308, and 300 and 304
 * are answers). A {@code Location} that is not an http or https URL fails the call.
 *
 * <p>A redirect from https to http fails the call (phase {@code REDIRECT}) unless the client allows it
 * ({@code allowRedirectDowngrade}): credentials are dropped across origins anyway, but the other headers
 * and a 307/308 body would go out in clear, to whoever answers on the path. Browsers follow such
 * redirects; a library caller who sent a request over TLS rarely means it to leave it, so the careful
 * choice is the default and the other is one call away.
 *
 * <p>Thread: any.
 */
final class Redirects {
    private Redirects() {
    }

    /** Whether {@code status} is one this client follows. */
    static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    /**
     * The next hop after {@code request} was answered {@code status} with {@code location}, or null
     * when the response is the caller's answer.
     *
     * @throws ClientException phase {@code REDIRECT} when {@code location} is not an http(s) URL
     */
    static ClientRequest next(ClientRequest request, int status, String location) throws ClientException {
        return next(request, status, location, false);
    }

    /**
     * {@link #next(ClientRequest, int, String)}, following an https to http redirect only when
     * {@code allowDowngrade}.
     *
     * @throws ClientException phase {@code REDIRECT} also for a refused downgrade
     */
    static ClientRequest next(ClientRequest request, int status, String location, boolean allowDowngrade) throws ClientException {
        if (!isRedirect(status) || location == null) {
            return null;
        }
        URI target = resolve(request, location.trim());
        if (!allowDowngrade && "https".equalsIgnoreCase(request.uri().getScheme()) && "http".equalsIgnoreCase(target.getScheme())) {
            // The rest of the request (its other headers, a 307/308 body) would go out in clear, and an
            // attacker on the path could answer it: what the caller sent over TLS stays on TLS.
            throw new ClientException(ClientException.Phase.REDIRECT, request.hostKey(),
                    "refused to follow a redirect from https to http (" + printable(target.toASCIIString())
                            + "); HttpClient.Builder.allowRedirectDowngrade(true) follows it");
        }
        String method = request.method();
        boolean dropBody;
        if (status == 303) {
            method = method.equals("HEAD") ? "HEAD" : "GET";
            dropBody = true;
        } else if ((status == 301 || status == 302) && method.equals("POST")) {
            method = "GET";
            dropBody = true;
        } else {
            dropBody = false;
        }
        if (!dropBody && !request.replayable()) {
            return null; // a streamed body cannot be sent again: the 307 or 308 is the caller's answer
        }
        boolean sameOrigin = sameOrigin(request.uri(), target);
        List<String[]> headers = new ArrayList<>(request.headers().size());
        for (String[] h : request.headers()) {
            String name = h[0].toLowerCase(Locale.ROOT);
            if (dropBody && name.startsWith("content-")) {
                continue;
            }
            if (!sameOrigin && (name.equals("authorization") || name.equals("proxy-authorization") || name.equals("cookie"))) {
                continue;
            }
            headers.add(h);
        }
        return ClientRequest.redirected(method, target, List.copyOf(headers), dropBody ? null : request.body());
    }

    private static URI resolve(ClientRequest request, String location) throws ClientException {
        URI target;
        try {
            URI base = request.uri();
            if (base.getRawPath() == null || base.getRawPath().isEmpty()) {
                base = new URI(base.getScheme() + "://" + base.getRawAuthority() + "/"); // URI.resolve needs a path
            }
            // toASCIIString: a non-ASCII Location goes out percent-encoded as UTF-8 (RFC 3986 §2.5)
            target = new URI(base.resolve(new URI(location)).toASCIIString());
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new ClientException(ClientException.Phase.REDIRECT, request.hostKey(), "Location is not a URL: " + printable(location));
        }
        String scheme = target.getScheme() == null ? "" : target.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || target.getHost() == null) {
            throw new ClientException(ClientException.Phase.REDIRECT, request.hostKey(),
                    "Location is not an http or https URL: " + printable(location));
        }
        return target;
    }

    /** RFC 6454 §4: scheme, host and port, the default port filled in. */
    static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme())
                && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b);
    }

    private static int port(URI u) {
        return u.getPort() > 0 ? u.getPort() : u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    /** A server's value in an error message: at most 200 characters, controls shown as '?'. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), 200));
        for (int i = 0; i < s.length() && i < 200; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7F ? '?' : c);
        }
        return s.length() > 200 ? b + "..." : b.toString();
    }
}
