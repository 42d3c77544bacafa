package dev.peregrine;

import dev.peregrine.form.FormCursor;
import dev.peregrine.form.MultipartForm;
import dev.peregrine.form.MultipartLimits;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One parsed HTTP/1.1 request, seen through a flyweight over the bytes as they arrived.
 *
 * <p><b>Accessor groups.</b> Besides the request line, the body and the one shortcut
 * {@link #header(String)}, the fields are read through four groups, each the request's own object
 * (asking for one allocates nothing; each refuses use after the exchange as the request does):
 * <pre>{@code
 * // GET /search?q=caf%C3%A9&tag=a&tag=b   Cookie: sid=abc   Accept: text/html
 * req.header("Accept");              // "text/html": the shortcut for headers().get
 * req.headers().view("Accept");      // no copy; also has, all, size/name(i)/value(i)
 * req.query().get("q");              // "café"; all("tag") is [a, b]; map(); pairs() a cursor
 * req.rawQuery();                    // "q=caf%C3%A9&tag=a&tag=b"
 * req.form().get("name");            // an application/x-www-form-urlencoded body's field
 * req.cookies().get("sid");          // "abc"; map(); cursor()
 * }</pre>
 *
 * <p><b>Validity.</b> A {@code Request} and every view it returns ({@link CharSequence} and
 * {@link ByteBuffer} results) are valid only while the handler that received it runs: the loop reuses
 * the object and the memory behind it for the next request. Methods returning {@code String} or
 * {@code byte[]} return copies that may be kept; {@link #copy()} copies the whole request. A blocking
 * handler's request ({@link Handlers#blocking}) and {@link Completion#request()} are copies made at
 * hand-off, valid until the handler returns or the completion ends.
 *
 * <p><b>Cost.</b> Methods returning views, groups, {@code int}, {@code long} or {@code boolean}
 * allocate nothing. Methods returning {@code String} or {@code byte[]} allocate the result (method names are
 * the exception: {@link #method()} returns a constant for the standard methods).
 *
 * <p>Thread: the thread running the handler (the event loop for inline handlers).
 */
public interface Request {
    /** The method token, e.g. {@code "GET"}; a shared constant for the standard methods. */
    String method();

    /** The request target's path as sent (percent-encoding kept), e.g. {@code "/users/42"}. */
    String path();

    /** The path as a view (no allocation). */
    CharSequence pathView();

    /**
     * The raw query after {@code '?'} (percent-encoding kept), or {@code null} if there is none. On
     * {@code Request} rather than on {@link #query()}'s {@link Params}: a form body has no such text, so
     * the pairs read the same whichever source they come from.
     */
    String rawQuery();

    /**
     * The query string's pairs, decoded ({@link Params}): {@code req.query().get("page")}. The request's
     * own object, allocated with it: calling this allocates nothing.
     */
    Params query();

    /**
     * The value matched by {@code {name}} in the route's path, percent-decoded, or {@code null}.
     *
     * <p>What a value can hold: a {@code {name}} parameter is one non-empty segment that is neither
     * {@code .} nor {@code ..} and holds no {@code /}, {@code \} or NUL, encoded or not. The rest of a
     * {@code /*} route ({@code pathParam("*")}) is empty, or segments separated by single {@code /}, each
     * following the same rule; it never begins with {@code /}, and only its last segment may be empty
     * (a trailing {@code /}). So {@code root.resolve(req.pathParam("*"))} stays under {@code root}
     * (symbolic links aside: {@link Response#sendFile(java.nio.file.Path, String)} checks those too).
     * Requests that would give any other value are answered 400 by the router, before any handler.
     */
    String pathParam(String name);

    /**
     * The value of attribute {@code name} ({@link #attribute(String, Object)}), or {@code null}: what a
     * filter learned about the request (a principal, a tenant, a parsed token) for the handler.
     */
    <T> T attribute(String name);

    /**
     * Sets attribute {@code name} to {@code value} ({@code null} removes it) for the rest of this
     * request: the filters inside and the handler see it, on the loop or off it, and it goes with the
     * request into {@link Response#async()}'s {@link Completion#request()}, a blocking hand-off and
     * {@link #copy()} (the values themselves are shared, not copied). Unlike a {@code ThreadLocal} it
     * survives a change of thread; like the request, it is not thread-safe: set attributes before the
     * request is handed to another thread. Nothing is allocated for a request that sets none.
     */
    Request attribute(String name, Object value);

    /** {@code "HTTP/1.1"} or {@code "HTTP/1.0"}. */
    String version();

    /**
     * The first value of header {@code name} (case-insensitive), or {@code null} when absent: the one
     * shortcut for {@code headers().get(name)}, the accessor handlers use most.
     */
    String header(String name);

    /**
     * The header fields ({@link Headers}): by name ({@code get}, {@code view}, {@code has}, {@code all})
     * and by index, trailers not included ({@link #trailers()}). The request's own object, allocated
     * with it: calling this allocates nothing.
     */
    Headers headers();

    /**
     * The host (and port, if given) the request is for: the authority of an absolute-form target
     * ({@code GET http://example.com:8080/x}), which wins over the Host header (RFC 9112 §3.2.2), else
     * the Host header's value; null when neither is there (HTTP/1.0 without Host). Both are validated
     * by the parser (400 otherwise). Allocates a String.
     */
    String host();

    /**
     * The trailer fields that ended the body (HTTP/1.1 chunked trailers, HTTP/2's trailing HEADERS),
     * kept apart from the header fields ({@link Trailers} says which are refused and why none is
     * merged): {@link Trailers#EMPTY} when there were none, and until the body has been read to its
     * end. A body in memory has been (they are here when the handler runs); a body streamed to a
     * blocking handler once {@link #bodyStream()} returned -1 (or {@link #body()} read it whole); a
     * body streamed to a {@link BodyListener} just before its {@code onEnd}, through
     * {@link BodyListener#onTrailers} (this request view may describe another request by then).
     * Never null; allocates nothing for a request without trailers.
     */
    Trailers trailers();

    /**
     * The body (decoded if it was chunked) as a read-only view positioned at its first byte; empty
     * when there is none. The buffer is shared: read it, do not keep it.
     *
     * <p>The limit is the route's, not the framing's: in a blocking handler a body streamed because it
     * is larger than {@link ServerConfig#streamBodyThreshold()} (up to {@code maxStreamedBodySize}) is
     * read whole by the first call of this method, {@link #bodyLength()}, {@link #bodyBytes()},
     * {@link #bodyString()}, {@link #bodyAs} or {@link #form()}'s methods (blocking
     * until it has arrived; what the handler already read through {@link #bodyStream()} is not
     * included); read {@link #bodyStream()} instead to keep it out of memory.
     *
     * @throws IllegalStateException when the body is streamed to a {@link Handlers#streaming} handler
     *     on the loop ({@link #bodyStreamed()}): read it with {@link #onBody}. The same holds for
     *     {@link #bodyLength()}, {@link #bodyBytes()} and {@link #bodyString()}: a streamed body is never
     *     reported as empty.
     * @throws java.io.UncheckedIOException when a streamed body did not arrive whole (the client left)
     */
    ByteBuffer body();

    /**
     * The body length in bytes (after chunked decoding).
     *
     * @throws IllegalStateException when the body is streamed (see {@link #body()})
     */
    int bodyLength();

    /**
     * A copy of the body.
     *
     * @throws IllegalStateException when the body is streamed (see {@link #body()})
     */
    byte[] bodyBytes();

    /**
     * The body decoded as UTF-8.
     *
     * @throws IllegalStateException when the body is streamed (see {@link #body()})
     */
    String bodyString();

    /** Whether the connection stays open after this request's response (HTTP/1.1 and 1.0 rules). */
    boolean keepAlive();

    /** The peer's address. */
    InetSocketAddress remoteAddress();

    /**
     * This request's id when the server gives ids ({@code Server.Builder.requestIds(true)}): the
     * client's valid {@code X-Request-Id}, else one generated; echoed in the response's
     * {@code X-Request-Id} and written to the access log. {@code null} when ids are off.
     */
    default String requestId() {
        return null;
    }

    /**
     * A copy of this request — head, body and path parameters — in its own heap memory, valid forever
     * and usable from any thread. Allocates; meant for handlers that keep a request after returning.
     * A streamed body ({@link #bodyStreamed()}) is not copied: the copy's body is empty.
     */
    Request copy();

    /**
     * Whether the body is streamed: it was larger than {@link ServerConfig#streamBodyThreshold()}, or
     * came without a length (HTTP/1.1 chunked, unless it all came with the head and fits
     * {@code maxBodySize}; HTTP/2 without {@code content-length}), and the handler is blocking
     * ({@link Handlers#blocking}) or streaming ({@link Handlers#streaming}). Then {@link #bodyStream()}
     * (or the listener) delivers it as it arrives, and {@link #body()}, {@link #bodyBytes()},
     * {@link #bodyString()} and {@link #bodyLength()} throw {@link IllegalStateException} rather than
     * report it empty (in a blocking handler they read it whole instead). A body without a length that
     * passes {@code maxStreamedBodySize}, or whose chunk framing breaks, makes the stream's reads throw
     * {@link RequestBodyException} after the bytes before it.
     */
    boolean bodyStreamed();

    /**
     * The body as a stream: for a streamed body, bytes as they arrive (a read blocks until the client
     * sends more; reading only from a blocking handler's thread); otherwise a stream over
     * {@link #body()}. End of stream is the end of the body. If the connection closes early, reads
     * throw {@link java.io.IOException}. The server reads no further from the socket while the handler
     * leaves a few chunks unread (backpressure), so memory stays bounded whatever the body's size.
     */
    InputStream bodyStream();

    /**
     * Delivers the body to {@code listener} on the event loop. For a handler declared with
     * {@link Handlers#streaming} and a streamed body, pieces come as they arrive, after the handler
     * returns; otherwise the whole in-memory body is delivered at once, during this call. Only from
     * the event loop; for a streamed body only once.
     *
     * @throws IllegalStateException for a body streamed to a blocking handler (use {@link #bodyStream()})
     */
    void onBody(BodyListener listener) throws Exception;

    /**
     * The fields of an {@code application/x-www-form-urlencoded} body, decoded ({@link Params}):
     * {@code req.form().get("name")}. The request's own object, allocated with it.
     *
     * <p>{@link Params#get}, {@link Params#all} and {@link Params#map} read the body as such a form only:
     * <ul>
     *   <li>they throw {@link dev.peregrine.form.BadFormException} (uncaught: 415) for another
     *       Content-Type (read a {@code multipart/form-data} body with {@link #multipart}); a request with
     *       neither a Content-Type nor a body has no fields;</li>
     *   <li>they throw {@link IllegalStateException} when the body is streamed to a streaming handler on
     *       the loop (a blocking handler's streamed body is read whole, as {@link #body()} says);</li>
     *   <li>they throw {@link dev.peregrine.form.FormLimitException} for more than
     *       {@link FormCursor#DEFAULT_MAX_PAIRS} pairs (uncaught, the server answers 413).</li>
     * </ul>
     * {@link Params#pairs()} does not check the Content-Type (check it first where it matters) and
     * throws {@link IllegalStateException} as above. All of them use the form's one cursor.
     */
    Params form();

    /**
     * The cookies of the {@code Cookie} fields ({@link Cookies}): {@code req.cookies().get("sid")}. The
     * request's own object, allocated with it: calling this allocates nothing.
     */
    Cookies cookies();

    /**
     * The JSON body as a {@code type}, through {@link dev.peregrine.json.Json#mapper()}.
     *
     * <p>Reads a body with no Content-Type, or one of {@code application/json} or any {@code +json}
     * type (RFC 6839 §3.1); any other Content-Type throws {@link dev.peregrine.form.BadFormException},
     * which, uncaught, answers 415. A body above the stream threshold in a blocking handler is read
     * whole (see {@link #body()}).
     *
     * @throws java.io.IOException when the body is not JSON of that shape (answer 400 for it)
     * @throws dev.peregrine.form.BadFormException (uncaught: 415) for a Content-Type that is not JSON
     * @throws IllegalStateException when the body is streamed to a streaming handler on the loop, or
     *     no JSON mapper is available
     */
    default <T> T bodyAs(Class<T> type) throws java.io.IOException {
        String contentType = header("Content-Type");
        if (contentType != null && !MediaTypes.isJson(contentType)) {
            throw dev.peregrine.form.BadFormException.unsupportedType("bodyAs", contentType);
        }
        return dev.peregrine.json.Json.mapper().read(bodyBytes(), type);
    }

    // ---- Multipart (dev.peregrine.form)

    /**
     * Reads a {@code multipart/form-data} body whole, files past the limits' threshold spooled to disk;
     * close the result to delete them (see {@link MultipartForm}). Blocks on the body stream: call it from
     * a blocking handler ({@link Handlers#blocking}), or for an in-memory body only. To handle parts as
     * they arrive, use {@link dev.peregrine.form.MultipartParser} with a {@link dev.peregrine.form.PartListener}.
     *
     * @throws dev.peregrine.form.BadFormException for a Content-Type other than {@code multipart/form-data}
     *     (415); a missing or bad boundary, a malformed or truncated body (400)
     * @throws dev.peregrine.form.FormLimitException past a limit (413)
     * @throws java.io.IOException when the connection closed before the body ended
     */
    default MultipartForm multipart(MultipartLimits limits) throws java.io.IOException {
        return MultipartForm.read(bodyStream(), headers().view("Content-Type"), limits);
    }
}
