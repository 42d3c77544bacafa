package dev.peregrine.exchange;

import dev.peregrine.BodyProducer;
import dev.peregrine.Completion;
import dev.peregrine.Response;
import dev.peregrine.http1.HeaderRules;
import dev.peregrine.http1.MediaTypes;
import dev.peregrine.http1.ResponseEncoder;
import dev.peregrine.http1.ResponseSource;
import dev.peregrine.http1.Status;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The loop's one {@link Response}: records what the handler sets — status, headers, a reference to
 * the body — in the fields of its superclass, the codec's {@link ResponseSource}, for
 * {@link ResponseEncoder} (or HTTP/2's responder) to write once the handler returns. Reused for every request.
 * It holds nothing that outlives the handler call by itself: {@code async()}, {@code outputStream()}
 * and interim responses go to its {@link ResponseOwner}, and {@code sendFile} only records the file
 * ({@link FileSend}), which the owner opens when the response leaves. Header rules: {@link HeaderRules}.
 *
 * <p>Thread: the owning event loop.
 */
public final class ResponseView extends ResponseSource implements Response, dev.peregrine.ServerEngine.AfterHook {
    private static final String TEXT_PLAIN = "text/plain; charset=utf-8";
    private static final String APPLICATION_JSON = "application/json";

    /**
     * 0 for a response the encoder writes whole once the handler returns (the inline fast path);
     * otherwise why the connection must treat it specially ({@link #ASYNC}, {@link #FILE},
     * {@link #OUTPUT_STREAM}). One field, so the inline path tests one int.
     */
    int special;
    /** {@link #special} bit: {@link #async()} was called. */
    public static final int ASYNC = 1;
    /** {@link #special} bit: the body is a file ({@link #takeFile()}). */
    public static final int FILE = 2;
    /** {@link #special} bit: the body is being written through {@link #outputStream()}. */
    public static final int OUTPUT_STREAM = 4;
    /** {@link #special} bit: the body comes from {@link #producer()}. */
    public static final int PRODUCER = 8;
    private BodyProducer producer;
    /** The file {@code sendFile} recorded; set only while {@link #FILE} is. */
    private final FileSend file = new FileSend();
    private final ResponseOwner owner;
    // requestId (the superclass's) is kept by reset(): it belongs to the request, and is set for each
    // one while ids are on.
    /** {@link #async()} gave the answer to an exchange's own response: this one must not be written. */
    private boolean handedOver;
    /** {@link #sendAsIs()} was called: the compressor leaves the body alone. */
    boolean asIs;
    /** An error page is being rendered into this response (see {@link #error}). */
    private boolean renderingErrorPage;
    /**
     * The last Content-Type value found valid, a {@code String} (immutable, so valid for good): a handler
     * that sets the same constant on every response has it checked once. Kept across {@link #reset}.
     */
    private CharSequence checkedType;

    /**
     * A response with no exchange behind it (tests, tools): {@link #async()}, {@link #outputStream()}
     * and {@link #interim} throw; {@code sendFile} records the file ({@link #takeFile()}), which
     * nothing opens (see {@link FileSend}).
     */
    public ResponseView() {
        this(Detached.INSTANCE);
    }

    /** The owner of a {@link ResponseView#ResponseView() detached} response. */
    private static final class Detached implements ResponseOwner {
        static final Detached INSTANCE = new Detached();

        @Override
        public Completion startAsync(ResponseView res) {
            throw new IllegalStateException("this response belongs to no connection");
        }

        @Override
        public OutputStream openStream(ResponseView res) {
            throw new IllegalStateException("this response belongs to no connection");
        }

        @Override
        public void sendInterim(ResponseView res, int status, String[] headers) {
            throw new IllegalStateException("this response belongs to no connection");
        }
    }

    /** @param owner what {@link #async()} and {@link #outputStream()} turn to */
    public ResponseView(ResponseOwner owner) {
        this.owner = owner;
        this.status = 200;
    }

    /** Clears the response for the next request. */
    public void reset() {
        status = 200;
        contentType = null;
        for (int i = 0; i < headerCount; i++) {
            headerValues[i] = null;
        }
        headerCount = 0;
        fields = null;
        bodyKind = BODY_NONE;
        bodyBytes = null;
        bodyBuffer = null;
        bodyChars = null;
        asIs = false;
        if (special != 0) {
            special = 0;
            handedOver = false;
            producer = null;
            file.clear();
        }
    }

    /**
     * The body is sent exactly as set, never compressed on the fly: a static file's bytes held in memory,
     * whose strong ETag and ranges name these bytes (a file sent with {@code sendFile} is never compressed
     * either). For this response only.
     */
    public void sendAsIs() {
        asIs = true;
    }

    /**
     * Header lines the encoder copies as they are after those set with {@link #header}: each
     * {@code Name: value\r\n}, already checked as {@link #header} checks (no CR, LF or NUL inside a line),
     * kept by reference and not copied. For a handler that answers the same fields many times
     * ({@code files.StaticFiles}: a cached file's ETag and Last-Modified). For this response only.
     */
    public void fields(byte[] lines) {
        fields = lines;
    }

    /** Sets the id the encoder echoes as {@code X-Request-Id} (null: none). */
    public void requestId(CharSequence id) {
        requestId = id;
    }

    /**
     * The body's length in bytes as it will be sent: a file's length, {@code -1} for a body produced
     * in pieces (a producer or an output stream), otherwise the length of the bytes or text set.
     */
    public long bodyLengthToSend() {
        if ((special & FILE) != 0) {
            return file.length();
        }
        if ((special & (PRODUCER | OUTPUT_STREAM)) != 0) {
            return -1;
        }
        return ResponseEncoder.bodyLength(this);
    }

    /**
     * Whether the in-memory body is certainly shorter than {@code min} bytes (text: at most 3 UTF-8
     * bytes a char), read from the fields here: the compressor asks this of every response.
     */
    boolean bodyShorterThan(int min) {
        switch (bodyKind) {
            case BODY_BYTES:
                return bodyBytes.length < min;
            case BODY_BUFFER:
                return bodyBuffer.remaining() < min;
            case BODY_CHARS:
                return 3L * bodyChars.length() < min;
            default:
                return false;
        }
    }

    /**
     * Whether the compressor may change this response: not sent as is ({@link #asIs}), and a body
     * that is not in memory or may reach {@code minSize} bytes. The server asks this before it calls
     * {@link ResponseCompressor#apply}, so that the usual small answer does not enter the compressor;
     * the compressor asks it again for the callers that do not.
     */
    public boolean compressible(int minSize) {
        return !asIs && (special != 0 || !bodyShorterThan(minSize));
    }

    /** What this response turns to for the parts that outlive the handler (the loop's {@code OffLoop}, or an exchange). */
    public ResponseOwner owner() {
        return owner;
    }

    /** Non-zero when the response is not a plain one: a bit set of {@link #ASYNC}, {@link #FILE}, {@link #OUTPUT_STREAM}. */
    public int special() {
        return special;
    }

    /** The file {@code sendFile} recorded, left in place; null when the body is no file. */
    public FileSend file() {
        return (special & FILE) != 0 ? file : null;
    }

    /**
     * The file {@code sendFile} recorded, for its owner to {@link FileSend#open} when the response
     * leaves; null when the body is no file. Clears {@link #FILE}: the owner now sends it, and opens
     * (or otherwise empties) it before this view is reset. Thread: the owning loop.
     */
    public FileSend takeFile() {
        if ((special & FILE) == 0) {
            return null;
        }
        special &= ~FILE;
        return file;
    }

    /** The producer set by {@link #stream(BodyProducer)}, or null. */
    public BodyProducer producer() {
        return producer;
    }

    /** Marks the body as streamed (set by the stream's owner when it is opened). */
    public void markOutputStream() {
        special |= OUTPUT_STREAM;
    }

    /**
     * Makes this an error answer of the server's own: {@code status} with the one short body every
     * such answer carries ({@link Status#errorBody}). No allocation.
     */
    public ResponseView error(int status) {
        status(status);
        contentType = TEXT_PLAIN;
        body(Status.errorBody(status));
        dev.peregrine.ErrorPage page = owner.errorPage();
        if (page != null && !renderingErrorPage) {
            renderPage(page, status);
        }
        return this;
    }

    /** The application's error page for {@code status}; the default body stays if it throws. */
    private void renderPage(dev.peregrine.ErrorPage page, int status) {
        renderingErrorPage = true; // a page calling res.error(...) gets the default, not itself again
        try {
            page.render(status, Status.reason(status), this);
        } catch (Throwable t) {
            System.getLogger("dev.peregrine").log(System.Logger.Level.WARNING, "errorPage failed for " + status
                    + "; the default body was sent", t);
            this.status = status;
            contentType = TEXT_PLAIN;
            bodyKind = BODY_BYTES;
            bodyBytes = Status.errorBody(status);
        } finally {
            renderingErrorPage = false;
        }
    }

    @Override
    public Response status(int code) {
        checkNotHandedOver();
        if (code < 200 || code > 999) {
            // RFC 9110 §15.2: a 1xx is interim and never ends an exchange; sent as the final status it
            // would leave the client waiting for another and shift every pipelined response after it.
            throw new IllegalArgumentException(code >= 100 && code < 200
                    ? "status " + code + " is interim (1xx), not a final status"
                    : "status code out of range: " + code);
        }
        status = code;
        return this;
    }

    @Override
    public Response header(String name, CharSequence value) {
        checkNotHandedOver();
        if (name.length() == 12 && name.equalsIgnoreCase("Content-Type")) {
            return contentType(value); // one Content-Type, however it is set
        }
        HeaderRules.checkName(name);
        value = HeaderRules.immutable(value);
        HeaderRules.checkValue(value);
        if (headerCount == headerNames.length) {
            headerNames = Arrays.copyOf(headerNames, headerCount * 2);
            headerValues = Arrays.copyOf(headerValues, headerCount * 2);
        }
        headerNames[headerCount] = name;
        headerValues[headerCount] = value;
        headerCount++;
        return this;
    }

    @Override
    public Response contentType(CharSequence type) {
        checkNotHandedOver();
        if (type != null && type != checkedType) {
            type = HeaderRules.immutable(type);
            HeaderRules.checkValue(type);
            checkedType = type;
        }
        contentType = type;
        return this;
    }

    @Override
    public Response body(byte[] bytes) {
        checkNotHandedOver();
        bodyKind = BODY_BYTES;
        bodyBytes = bytes;
        return this;
    }

    @Override
    public Response body(ByteBuffer body) {
        checkNotHandedOver();
        bodyKind = BODY_BUFFER;
        bodyBuffer = body;
        return this;
    }

    @Override
    public Response body(CharSequence text) {
        checkNotHandedOver();
        bodyKind = BODY_CHARS;
        bodyChars = text;
        return this;
    }

    @Override
    public Response text(CharSequence text) {
        checkNotHandedOver();
        contentType = TEXT_PLAIN;
        return body(text);
    }

    @Override
    public Response rawJson(CharSequence json) {
        checkNotHandedOver();
        contentType = APPLICATION_JSON;
        return body(json);
    }

    /**
     * Marks this response as replaced by the completion's own ({@link Completion#response()}): from
     * now until {@link #reset}, writing to it throws instead of being silently ignored.
     */
    public void handOver() {
        handedOver = true;
    }

    /**
     * Copies what the handler (and the filters around it) set so far — status, content type and
     * headers — into {@code to}, the completion's own response, at {@code async()}: a CORS or
     * request-recording filter that ran before the handler keeps its headers.
     */
    public void copyHeadTo(ResponseView to) {
        to.status = status;
        to.contentType = contentType;
        for (int i = 0; i < headerCount; i++) {
            if (to.headerCount == to.headerNames.length) {
                to.headerNames = Arrays.copyOf(to.headerNames, to.headerCount * 2);
                to.headerValues = Arrays.copyOf(to.headerValues, to.headerCount * 2);
            }
            to.headerNames[to.headerCount] = headerNames[i];
            to.headerValues[to.headerCount] = headerValues[i];
            to.headerCount++;
        }
    }

    /**
     * Runs {@code hook} on the response that is finally sent: at once on this one, or, once it was
     * handed over ({@code async()}), on the completion's response when it completes (on the loop,
     * before it is encoded). What {@code after(...)} uses, so an after-hook sees the final answer.
     */
    @Override
    public void afterHandler(dev.peregrine.Handler hook, dev.peregrine.Request req) throws Exception {
        if (handedOver) {
            owner.deferAfter(this, hook);
        } else {
            hook.handle(req, this);
        }
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public String header(String name) {
        if (name.length() == 12 && name.equalsIgnoreCase("Content-Type")) {
            return contentType == null ? null : contentType.toString();
        }
        for (int i = 0; i < headerCount; i++) {
            if (headerNames[i].equalsIgnoreCase(name)) {
                return headerValues[i].toString();
            }
        }
        return null;
    }

    @Override
    public boolean committed() {
        return handedOver || (special & OUTPUT_STREAM) != 0;
    }

    @Override
    public long bodyLength() {
        return bodyLengthToSend();
    }

    private void checkNotHandedOver() {
        if (handedOver) {
            throw new IllegalStateException("res.async() was called: fill completion.response() and call"
                    + " completion.complete(); this response is no longer the one sent");
        }
    }

    @Override
    public Response interim(int status, String... headers) {
        checkNotHandedOver();
        if (status < 102 || status > 199) {
            throw new IllegalArgumentException("an interim status is 102-199 (100 and 101 are the server's): " + status);
        }
        if (headers.length % 2 != 0) {
            throw new IllegalArgumentException("headers are name, value pairs: " + headers.length + " strings");
        }
        for (int i = 0; i < headers.length; i += 2) {
            HeaderRules.checkName(headers[i]);
            HeaderRules.checkValue(headers[i + 1]);
        }
        owner.sendInterim(this, status, headers.clone());
        return this;
    }

    @Override
    public Completion async() {
        Completion c = owner.startAsync(this);
        special |= ASYNC;
        return c;
    }

    @Override
    public OutputStream outputStream() {
        checkNotHandedOver();
        return owner.openStream(this);
    }

    @Override
    public Response stream(BodyProducer p) {
        checkNotHandedOver();
        if (p == null) {
            throw new NullPointerException("producer");
        }
        producer = p;
        special |= PRODUCER;
        bodyKind = BODY_NONE;
        return this;
    }

    @Override
    public Response sendFile(Path path) throws IOException {
        checkNotHandedOver();
        if (!file.setPath(path)) {
            return error(404);
        }
        if (contentType == null) {
            Path name = path.getFileName();
            contentType = MediaTypes.forFileName(name == null ? "" : name.toString());
        }
        special |= FILE;
        bodyKind = BODY_NONE;
        return this;
    }

    @Override
    public Response sendFile(Path path, long offset, long length) throws IOException {
        sendFile(path);
        if ((special & FILE) == 0) {
            return this; // 404
        }
        try {
            file.narrow(offset, length);
        } catch (IllegalArgumentException e) {
            special &= ~FILE;
            throw e;
        }
        return this;
    }

    @Override
    public Response sendFile(FileChannel channel, long offset, long length) throws IOException {
        checkNotHandedOver();
        file.setChannel(channel, offset, length);
        special |= FILE;
        bodyKind = BODY_NONE;
        return this;
    }

    /**
     * Sends several ranges of the whole of {@code path} with a head before each and a closing piece
     * ({@link FileParts}; {@code files.StaticFiles}' {@code multipart/byteranges}), each range as
     * {@link #sendFile(Path, long, long)} sends one: by {@code sendfile} where the socket allows, never
     * read into memory whole. The status and content type are the caller's. 404 when the file is gone.
     *
     * @throws IllegalArgumentException when a range does not lie inside the file
     */
    public Response sendFileParts(Path path, FileParts parts) throws IOException {
        sendFile(path);
        return (special & FILE) == 0 ? this : withParts(parts);
    }

    /** {@link #sendFileParts(Path, FileParts)} from the caller's open channel, which the response owns from now on. */
    public Response sendFileParts(FileChannel channel, FileParts parts) throws IOException {
        sendFile(channel, 0, channel.size());
        return withParts(parts);
    }

    private Response withParts(FileParts parts) {
        try {
            file.parts(parts);
        } catch (IllegalArgumentException e) {
            special &= ~FILE;
            throw e;
        }
        return this;
    }

    @Override
    public Response sendFile(Path root, String relativePath) throws IOException {
        checkNotHandedOver();
        Path found = FileSend.resolveUnder(root, relativePath);
        return found == null ? error(404) : sendFile(found);
    }
}
