package dev.peregrine;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The response being built for one request. Nothing is written until the handler returns; then the
 * status line, {@code Server}, {@code Date}, the headers set here, {@code Content-Length} and the body
 * are appended to the loop's output in one go.
 *
 * <p>The server owns the framing headers: {@code Content-Length}, {@code Transfer-Encoding},
 * {@code Connection} and {@code Date} set through {@link #header} are rejected with
 * {@link IllegalArgumentException}.
 *
 * <p><b>Body references.</b> {@code body(byte[])}, {@code body(ByteBuffer)} and
 * {@code body(CharSequence)} keep a reference, not a copy: the object must not change until the
 * handler returns. Passing a constant is the fast, allocation-free way to answer.
 *
 * <p>Valid only while the handler runs; thread: the thread running the handler (the event loop for
 * inline handlers). A blocking handler's response, and {@link Completion#response()}, belong to their
 * exchange and are written when it completes; {@code body(...)} references must stay unchanged until then.
 */
public interface Response {
    /**
     * Sets the final status code (200–999; default 200).
     *
     * @throws IllegalArgumentException for 1xx (interim, never final) or a code out of range
     */
    Response status(int code);

    /**
     * Adds a header field. Name and value must be visible ASCII (the value may hold spaces and tabs):
     * CR, LF, NUL, other controls and non-ASCII characters are refused, so no value can split or
     * corrupt the response. A value that is not a {@code String} is copied now, so later changes to it
     * do not reach the wire. {@code Content-Type} is the same as {@link #contentType}; {@code Date},
     * {@code Server}, {@code Content-Length}, {@code Transfer-Encoding} and {@code Connection} are set
     * by the server and refused here.
     *
     * @throws IllegalArgumentException for a refused name or value
     */
    Response header(String name, CharSequence value);

    /** Sets {@code Content-Type} (one value: a later call replaces it; validated like {@link #header}). */
    Response contentType(CharSequence type);

    /** Uses {@code bytes} as the body. */
    Response body(byte[] bytes);

    /** Uses the remaining bytes of {@code body} as the body (its position is not moved). */
    Response body(ByteBuffer body);

    /** Uses {@code text}, encoded as UTF-8, as the body. */
    Response body(CharSequence text);

    /** A {@code text/plain; charset=utf-8} body. */
    Response text(CharSequence text);

    /**
     * An {@code application/json} body of JSON text the caller already has, sent as it is (nothing is
     * serialised). To serialise a value, {@link #json(Object)}.
     */
    Response rawJson(CharSequence json);

    /**
     * Sends an interim (1xx) response now, ahead of the final one: {@code 103 Early Hints} with
     * {@code Link} headers, for instance. {@code headers} are name, value pairs, validated like
     * {@link #header}. Not sent to an HTTP/1.0 client (RFC 9110 §15.2: it knows no 1xx), nor after
     * the final response has begun. From an inline handler it goes out in the same write as the final
     * response, before it; from a blocking handler or a {@link Completion} it is written at once.
     *
     * @throws IllegalArgumentException for a status outside 102–199 (100 is the server's own, sent for
     *     {@code Expect: 100-continue}; 101 belongs to a protocol switch) or a refused header
     */
    Response interim(int status, String... headers);

    /**
     * Finishes this response later, from any thread: the returned {@link Completion} carries a copy of
     * the request and its own response, and the loop writes that response once
     * {@link Completion#complete()} is called (or answers 503 after
     * {@link ServerConfig#asyncTimeoutMillis()}). After this call the handler must not use this
     * {@code Response} any more. Requests pipelined behind this one wait, so responses keep their order.
     */
    Completion async();

    /**
     * Sends the body as it is written, with chunked transfer encoding (RFC 9112 §7.1; to an HTTP/1.0
     * client: unframed, then the connection closes). Status and headers are sent with the first bytes
     * that leave; set them before writing. {@code flush()} pushes what is buffered; {@code close()} ends
     * the body (a blocking handler's stream is closed for it when it returns). Writes block while the
     * connection's unsent output is over {@link ServerConfig#maxPendingOutput()}.
     *
     * <p>Only for blocking handlers ({@link Handlers#blocking}) and {@link Completion#response()};
     * an inline handler gets {@link IllegalStateException}: it must not block its loop.
     * If the handler fails after bytes have left, the connection is closed: the client sees a
     * truncated body, never a second status line.
     */
    OutputStream outputStream();

    /**
     * Sends a body of unknown length that {@code producer} makes on the event loop, pulled piece by
     * piece as the socket can take it, with chunked transfer encoding (to an HTTP/1.0 client: unframed,
     * then the connection closes). The head leaves when the handler returns. For inline handlers (a
     * blocking one can simply use {@link #outputStream()}).
     */
    Response stream(BodyProducer producer);

    /**
     * Sends the file at {@code file} as the body, with {@code Content-Length}, straight from the file
     * system to the socket ({@code FileChannel.transferTo}) where the transport allows, otherwise
     * through the loop's buffers. The file is checked and sized now, opened when the response leaves
     * (on the loop, just before its head) and read as the socket takes it; it should not change
     * meanwhile. A missing file (or a directory) answers 404, as does one removed before the response
     * leaves. Without a content type set, one is chosen from the file name
     * ({@code text/html; charset=utf-8} for {@code .html}...).
     *
     * @throws IOException if the file exists but cannot be read
     */
    Response sendFile(Path file) throws IOException;

    /**
     * Sends the file {@code relativePath} under the directory {@code root}, as {@link #sendFile(Path)},
     * but never one outside it: a path that is absolute, holds a NUL, a backslash or a {@code .} or
     * {@code ..} segment, or leads out of {@code root} through a symbolic link, answers 404, as does a
     * missing file. For {@code req.pathParam("*")} of a {@code /files/*} route, for instance.
     *
     * @throws IOException if the file exists but cannot be read
     */
    Response sendFile(Path root, String relativePath) throws IOException;

    /**
     * Sends {@code length} bytes of {@code file} from {@code offset} as the body (a byte range), as
     * {@link #sendFile(Path)} otherwise. The status and any {@code Content-Range} are the caller's.
     *
     * @throws IllegalArgumentException when the range does not lie inside the file
     * @throws IOException if the file exists but cannot be read
     */
    Response sendFile(Path file, long offset, long length) throws IOException;

    /**
     * Sends {@code length} bytes of the open {@code channel} from {@code offset} as the body, as
     * {@link #sendFile(Path)} otherwise (no content type is guessed). The response owns the channel
     * from this call: it closes it once the bytes are sent, or when the response is abandoned.
     *
     * @throws IllegalArgumentException when the range does not lie inside the channel's file
     * @throws IOException if the channel's size cannot be read
     */
    Response sendFile(java.nio.channels.FileChannel channel, long offset, long length) throws IOException;

    /**
     * Answers {@code status} the way the server answers its own errors: a {@code text/plain} body
     * "{@code <status> <reason>}" and a newline ({@code 404 Not Found}).
     */
    Response error(int status);

    // ---- Reading back what was set (for filters and after-hooks; a wrapper delegates these too)

    /** The status set so far (200 until one is set). */
    int status();

    /**
     * The first value set for header {@code name} (case-insensitive; {@code Content-Type} included), or
     * {@code null}. Only what the handler and filters set: not the server's framing headers
     * ({@code Content-Length}, {@code Date}...), which are written when the response leaves.
     */
    String header(String name);

    /**
     * Whether this object can no longer change what is sent: {@link #async()} handed the answer to its
     * {@link Completion}, or {@link #outputStream()} was opened (its status and headers leave with the
     * first bytes). Nothing is committed while an ordinary handler runs: its response leaves once it returns.
     */
    boolean committed();

    /**
     * The body's length in bytes as it will be sent: the bytes or text set, a file's length;
     * {@code -1} for a body sent in pieces ({@link #stream}, {@link #outputStream()}); 0 when none.
     */
    long bodyLength();

    /** Adds a {@code Set-Cookie} header for {@code cookie} (several cookies give several headers). */
    default Response cookie(Cookie cookie) {
        return header("Set-Cookie", cookie.toString());
    }

    /**
     * {@code value} serialised as the JSON body ({@code application/json}), through
     * {@link dev.peregrine.json.Json#mapper()}. A {@code CharSequence} is refused: JSON text the caller
     * already has goes through {@link #rawJson(CharSequence)}, and which of the two a String meant
     * cannot be guessed (it would otherwise be sent quoted, or not, silently).
     *
     * @throws java.io.IOException when the mapper cannot write {@code value}
     * @throws IllegalArgumentException when {@code value} is a {@code CharSequence}
     * @throws IllegalStateException when no JSON mapper is available (the message says what to add)
     */
    default Response json(Object value) throws java.io.IOException {
        if (value instanceof CharSequence) {
            throw new IllegalArgumentException("json(Object) serialises a value: for JSON text use rawJson(text);"
                    + " for a JSON string, serialise it with Json.mapper() and send that with rawJson");
        }
        return contentType("application/json").body(dev.peregrine.json.Json.mapper().write(value));
    }

    /** A {@code 302 Found} redirect to {@code location}; see {@link #redirect(String, int)}. */
    default Response redirect(String location) {
        return redirect(location, 302);
    }

    /**
     * Redirects to {@code location} (RFC 9110 §10.2.2, a URI reference, absolute or relative) with
     * {@code status}: 301, 302, 303, 307 or 308 (RFC 9110 §15.4). Sets the status and {@code Location};
     * the body is left as it is (empty unless set).
     *
     * @throws IllegalArgumentException for another status, or a location that is empty or holds a
     *     space, a control character (CR, LF, NUL...) or non-ASCII (percent-encode it first)
     */
    default Response redirect(String location, int status) {
        if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) {
            throw new IllegalArgumentException("redirect status must be 301, 302, 303, 307 or 308: " + status);
        }
        if (location == null || location.isEmpty()) {
            throw new IllegalArgumentException("redirect location must not be empty");
        }
        for (int i = 0; i < location.length(); i++) {
            char c = location.charAt(i);
            if (c <= 0x20 || c >= 0x7F) {
                throw new IllegalArgumentException("redirect location must be a percent-encoded URI reference; "
                        + "character " + (int) c + " at " + i + " is not allowed");
            }
        }
        return status(status).header("Location", location);
    }
}
