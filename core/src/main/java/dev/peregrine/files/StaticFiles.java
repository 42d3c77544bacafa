package dev.peregrine.files;

import dev.peregrine.Handler;
import dev.peregrine.Request;
import dev.peregrine.Response;
import dev.peregrine.StaticOptions;
import dev.peregrine.buffer.AsciiView;
import dev.peregrine.exchange.FileParts;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.AcceptEncoding;
import dev.peregrine.http1.MediaTypes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Locale;

/**
 * Serves the files under a directory for a {@code /prefix/*} route ({@code Server.Builder.staticFiles}),
 * for GET and HEAD:
 * <ul>
 *   <li>No escape from the root: segments {@code .}, {@code ..}, a backslash or NUL, an absolute path,
 *       hidden names (unless allowed) and symbolic links leading outside (unless allowed) get 404 (the
 *       router already answers 400 to encoded slashes and dot segments in the rest of the path).</li>
 *   <li>A directory serves its {@code index.html} at {@code dir/}; {@code dir} without the slash gets
 *       301 to {@code dir/} (so relative links in the index work); there are no listings.</li>
 *   <li>Validators: a strong {@code ETag} from size and modification time, and {@code Last-Modified}.
 *       Preconditions in the order of RFC 9110 §13.2.2: If-Match (412), If-Unmodified-Since (412),
 *       If-None-Match (304), If-Modified-Since (304), then If-Range ({@link Validators}). A 304 carries
 *       Vary, ETag and Cache-Control only (RFC 9110 §15.4.5: no representation metadata).</li>
 *   <li>Ranges (RFC 9110 §14): one range gets 206 with {@code Content-Range}; several get
 *       {@code multipart/byteranges}, streamed from the file as single ranges are (part heads from
 *       memory, each range by {@code sendfile}; see {@link #multipart}); none satisfiable gets 416 with {@code Content-Range: bytes *}/size.
 *       A malformed Range header is ignored (200). More than {@code maxRanges} ranges, or overlapping
 *       ones, get the whole file with 200: the answer Apache adopted after CVE-2011-3192, where many
 *       overlapping ranges made a small request cost the server a large response.</li>
 *   <li>Precompressed siblings ({@code name.br}, {@code .zst}, {@code .gz}) are served, in that order
 *       of preference, to clients whose Accept-Encoding takes them (q &gt; 0), with
 *       {@code Content-Encoding} and {@code Vary: Accept-Encoding}; their validators are their own (the
 *       sibling's size and time, the ETag suffixed with the coding), so replacing a sibling changes them.</li>
 *   <li>Without a sibling, a text file (by {@link StaticOptions.Builder#compression}: type and size) is
 *       compressed in the coding the client prefers, once per file version, and the bytes kept with its
 *       open-file entry ({@link CompressedVariants}); the ETag is the file's suffixed with the coding.
 *       Ranges, and clients that accept no coding, get the file itself.</li>
 *   <li>Bodies go out through {@code res.sendFile}: zero-copy ({@code sendfile}) on plain HTTP, through
 *       the loop's pooled buffers on TLS; cached files up to {@link OpenFileCache#IN_MEMORY_MAX} bytes are
 *       held in memory and leave with their head in one write (compressed only through their cached copy).</li>
 *   <li>Open files are kept in a bounded cache ({@link OpenFileCache}, {@code openFileCache} files, LRU): a
 *       request for a cached file costs one {@code stat}, which also validates it (size, modification
 *       time, inode; none within {@code StaticOptions.cacheValid}); a changed file is opened again. They
 *       are closed when evicted and when the server stops ({@link #close()}). The cache is looked up with
 *       the request's own bytes ({@link PathKey}, decoded into the thread's probe) and a cached file's
 *       fields are preformatted once ({@code ResponseView.fields}): a hit within the validity, and its
 *       304, allocate nothing.</li>
 * </ul>
 * It runs on the loop: file metadata calls are short, and reading the bytes happens as the socket takes them.
 *
 * <p>Thread: any loop (its only mutable state is the cache, which guards itself).
 */
public final class StaticFiles implements Handler, AutoCloseable {
    /**
     * What {@link #resolve} returns for a directory named without its trailing {@code /}: the handler
     * answers 301 to the path with the slash (compared by identity).
     */
    static final Path DIRECTORY_WITHOUT_SLASH = Path.of("directory-without-slash");

    private final Path root;
    private final Path realRoot;
    /** The precompressed siblings looked for, best first: coding and file suffix. */
    static final List<String[]> ENCODINGS = List.of(new String[] {"br", ".br"}, new String[] {"zstd", ".zst"},
            new String[] {"gzip", ".gz"});
    private final StaticOptions options;
    /** Open files by request path, or null when {@link StaticOptions#openFileCache} is 0. */
    private final OpenFileCache cache;
    /** Compressed copies of cached text files, or null (no {@link StaticOptions#compression}, or no cache). */
    private final CompressedVariants variants;
    /** Whether answers depend on Accept-Encoding (precompressed siblings or compressed copies): Vary. */
    private final boolean varies;

    /**
     * @throws IllegalArgumentException when {@code root} is not a directory
     */
    public StaticFiles(Path root, StaticOptions options) {
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("not a directory: " + root);
        }
        try {
            this.realRoot = root.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve " + root, e);
        }
        this.root = root;
        this.options = options;
        this.cache = options.openFileCache() > 0 ? new OpenFileCache(options.openFileCache(), options.cacheValidMillis()) : null;
        this.variants = cache != null && options.compression() != null ? new CompressedVariants(options.compression(), cache) : null;
        this.varies = options.precompressed() || variants != null;
    }

    @Override
    public void handle(Request req, Response res) throws Exception {
        PathKey key = cache == null ? null : key(req);
        OpenFileCache.OpenFile cached = key == null ? null : cache.lookup(key);
        Path file;
        if (cached != null) {
            file = cached.path; // resolved and checked when it was opened; unchanged since (same inode, size, time)
        } else {
            String rel = req.pathParam("*");
            file = resolve(rel == null ? "" : rel);
            if (file == null) {
                res.error(404);
                return;
            }
            if (file == DIRECTORY_WITHOUT_SLASH) {
                // As nginx and Apache do: relative links in the index must resolve against the directory.
                String query = req.rawQuery();
                res.status(301).header("Location", req.path() + "/" + (query == null || query.isEmpty() ? "" : "?" + query));
                return;
            }
            if (cache != null && (cached = cache.open(key, file)) == null) {
                res.error(404); // removed since it was resolved
                return;
            }
        }
        long size;
        long modifiedSeconds;
        String etag;
        String lastModified;
        if (cached != null) {
            size = cached.size;
            modifiedSeconds = cached.modifiedMillis / 1000;
            etag = cached.etag;
            lastModified = cached.lastModified;
        } else {
            BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
            size = attrs.size();
            modifiedSeconds = attrs.lastModifiedTime().toMillis() / 1000;
            etag = Validators.etag(size, attrs.lastModifiedTime().toMillis());
            lastModified = Validators.lastModified(attrs.lastModifiedTime().toMillis());
        }

        String encoding = null;
        Path body = file;
        OpenFileCache.OpenFile bodyFile = cached;
        String range = req.header("Range");
        CharSequence acceptEncoding = varies && range == null ? req.headers().view("Accept-Encoding") : null;
        byte[] compressed = null;
        if (acceptEncoding != null && options.precompressed()) {
            for (String[] e : ENCODINGS) {
                if (!AcceptEncoding.accepts(acceptEncoding, e[0])) {
                    continue;
                }
                Path sibling = file.resolveSibling(file.getFileName() + e[1]);
                OpenFileCache.OpenFile s = null;
                if (cache != null) {
                    int keyLength = key.length();
                    s = cache.lookup(key.appendSibling(e[1])); // NUL then the suffix: never a request's key
                    if (s == null && Files.isRegularFile(sibling) && inside(sibling)) {
                        s = cache.open(key, sibling);
                    }
                    key.truncate(keyLength);
                    if (s == null) {
                        continue; // absent, outside, or removed meanwhile
                    }
                } else if (!Files.isRegularFile(sibling) || !inside(sibling)) {
                    continue;
                }
                long siblingModified;
                if (s != null) {
                    size = s.size;
                    siblingModified = s.modifiedMillis;
                } else {
                    BasicFileAttributes a = Files.readAttributes(sibling, BasicFileAttributes.class);
                    size = a.size();
                    siblingModified = a.lastModifiedTime().toMillis();
                }
                encoding = e[0];
                body = sibling;
                bodyFile = s;
                // RFC 9110 §8.8.3: a strong validator changes with the representation, and the representation
                // sent is the sibling's bytes: its own size and time, with the coding, which keeps it apart
                // from the identity's. Last-Modified is the sibling's too (§8.8.2: the selected representation).
                etag = Validators.etag(size, siblingModified);
                etag = etag.substring(0, etag.length() - 1) + "-" + e[0] + "\"";
                modifiedSeconds = siblingModified / 1000;
                lastModified = Validators.lastModified(siblingModified);
                break;
            }
        }
        if (acceptEncoding != null && encoding == null && variants != null && cached != null
                && variants.eligible(size, mediaType(file, cached))) {
            dev.peregrine.compress.Coding coding = variants.choose(acceptEncoding);
            compressed = coding == null ? null : variants.variant(cached, coding);
            if (compressed != null) {
                // The file's own version in another coding: the identity's validators, the ETag marked with the
                // coding (RFC 9110 §8.8.3), Last-Modified unchanged (the same file version).
                encoding = coding.token();
                size = compressed.length;
                etag = cached.etag.substring(0, cached.etag.length() - 1) + "-" + encoding + "\"";
            }
        }
        // RFC 9110 §13.2.2: the order in which preconditions are evaluated.
        CharSequence ifMatch = req.headers().view("If-Match"); // views: the 304 path allocates nothing here
        boolean failed = ifMatch != null ? !Validators.matches(ifMatch, etag, false)
                : Validators.modifiedAfter(req.header("If-Unmodified-Since"), modifiedSeconds);
        if (!failed) {
            CharSequence ifNoneMatch = req.headers().view("If-None-Match");
            if (ifNoneMatch != null ? Validators.matches(ifNoneMatch, etag, true)
                    : Validators.notModifiedSince(req.headers().view("If-Modified-Since"), lastModified, modifiedSeconds)) {
                notModified(res, encoding == null ? cached : null, etag);
                return;
            }
        }
        String type = representation(res, file, encoding == null ? cached : null, cached, etag, lastModified);
        if (encoding != null) {
            res.header("Content-Encoding", encoding);
        }
        if (failed) {
            res.error(412);
            return;
        }
        if (range != null && req.method().equals("GET") && Validators.ifRangeHolds(req.header("If-Range"), etag, lastModified)) {
            List<long[]> ranges = Ranges.parse(range, size, options.maxRanges());
            if (ranges == Ranges.UNSATISFIABLE) {
                res.error(416);
                res.header("Content-Range", "bytes */" + size);
                return;
            }
            if (ranges != null && ranges.size() == 1) {
                long[] r = ranges.get(0);
                res.status(206).header("Content-Range", "bytes " + r[0] + "-" + r[1] + "/" + size);
                send(res, bodyFile, body, r[0], r[1] - r[0] + 1);
                return;
            }
            if (ranges != null && res instanceof ResponseView view) {
                multipart(view, bodyFile, body, ranges, size, type);
                return;
            }
            // malformed, too many or overlapping: the whole file (200); also for a Response of the
            // caller's own, which cannot stream parts (RFC 9110 §14.2: a server may ignore Range)
        }
        if (compressed != null) {
            if (res instanceof ResponseView view) {
                view.sendAsIs(); // compressed already (the server's compressor would leave it anyway: Content-Encoding)
            }
            res.body(compressed);
            return;
        }
        send(res, bodyFile, body, 0, size);
    }

    /**
     * Sends a range of {@code path}: from memory for a small cached file, through the cache's open file
     * when there is one, else opened now.
     */
    private void send(Response res, OpenFileCache.OpenFile open, Path path, long offset, long length) throws IOException {
        if (open != null && open.bytes != null && res instanceof ResponseView view) {
            view.sendAsIs(); // the ETag names these bytes: no coding on the fly
            byte[] b = open.bytes;
            if (offset == 0 && length == b.length) {
                res.body(b);
            } else {
                res.body(java.nio.ByteBuffer.wrap(b, (int) offset, (int) length));
            }
            return;
        }
        java.nio.channels.FileChannel ch = open == null ? null : cache.lend(open);
        if (ch != null) {
            res.sendFile(ch, offset, length);
        } else {
            res.sendFile(path, offset, length);
        }
    }

    /**
     * This request's cache key in the thread's probe: the {@code *} parameter decoded from the request's
     * own bytes when {@code req} is the loop's view (no allocation), else from its String.
     */
    private static PathKey key(Request req) {
        PathKey key = PathKey.probe();
        AsciiView raw = req instanceof RequestView view ? view.rawPathParam("*") : null;
        if (raw != null) {
            return key.decode(raw.buffer(), raw.start(), raw.end());
        }
        String rel = req.pathParam("*");
        return key.set(rel == null ? "" : rel);
    }

    /**
     * A 304 (RFC 9110 §15.4.5) carries the fields a cache must update: Vary, ETag and Cache-Control, and no
     * representation metadata (Content-Type, Last-Modified, Accept-Ranges: the ETag validates): the head
     * nginx sends, less its Last-Modified. {@code identity}: the cached file when the answer is its own
     * bytes (no precompressed sibling), whose fields are preformatted once.
     */
    private void notModified(Response res, OpenFileCache.OpenFile identity, String etag) {
        res.status(304);
        if (identity != null && res instanceof ResponseView view) {
            byte[] fields = identity.notModifiedFields;
            if (fields == null) {
                identity.notModifiedFields = fields = fields(etag, null);
            }
            view.fields(fields); // the same bytes for every 304 of this file: no per-request checks
        } else {
            if (varies) {
                res.header("Vary", "Accept-Encoding");
            }
            res.header("ETag", etag);
            if (options.cacheControl() != null) {
                res.header("Cache-Control", options.cacheControl());
            }
        }
    }

    /**
     * Sets the validators, Vary, Cache-Control and Content-Type of a 200, 206, 412 or 416 and returns the
     * type. {@code identity} as for {@link #notModified}; {@code cached}, the file's entry (its media type).
     */
    private String representation(Response res, Path file, OpenFileCache.OpenFile identity, OpenFileCache.OpenFile cached,
                                  String etag, String lastModified) {
        if (identity != null && res instanceof ResponseView view) {
            byte[] fields = identity.fields;
            if (fields == null) {
                identity.fields = fields = fields(etag, lastModified);
            }
            view.fields(fields);
        } else {
            if (varies) {
                res.header("Vary", "Accept-Encoding");
            }
            res.header("ETag", etag).header("Last-Modified", lastModified).header("Accept-Ranges", "bytes");
            if (options.cacheControl() != null) {
                res.header("Cache-Control", options.cacheControl());
            }
        }
        String type = mediaType(file, cached);
        res.contentType(type);
        return type;
    }

    /** The media type of {@code file}, remembered in its cache entry {@code cached} (may be null). */
    private String mediaType(Path file, OpenFileCache.OpenFile cached) {
        String type = cached != null ? cached.mediaType : null;
        if (type == null) {
            type = mediaType(file.getFileName().toString());
            if (cached != null) {
                cached.mediaType = type;
            }
        }
        return type;
    }

    /**
     * The fields {@link #representation} (or, without {@code lastModified}, {@link #notModified}) sets,
     * as {@link ResponseView#fields} takes them.
     */
    private byte[] fields(String etag, String lastModified) {
        StringBuilder b = new StringBuilder(160);
        if (varies) {
            b.append("Vary: Accept-Encoding\r\n");
        }
        b.append("ETag: ").append(etag).append("\r\n");
        if (lastModified != null) {
            b.append("Last-Modified: ").append(lastModified).append("\r\nAccept-Ranges: bytes\r\n");
        }
        if (options.cacheControl() != null) {
            b.append("Cache-Control: ").append(options.cacheControl()).append("\r\n"); // checked by StaticOptions
        }
        return b.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Closes the cached open files (the server stopped); the cache fills again if the handler is used again. */
    @Override
    public void close() {
        if (variants != null) {
            variants.close();
        }
        if (cache != null) {
            cache.close();
        }
    }

    /** Files held open by the cache now (tests, metrics). */
    public int openFiles() {
        return cache == null ? 0 : cache.openCount();
    }

    /**
     * Several ranges as one {@code multipart/byteranges} body (RFC 9110 §14.6). Each part's head is
     * formatted here; the ranges stay in the file and leave as a single range does ({@link FileParts}:
     * {@code sendfile} where the socket allows), so a request for many megabytes costs the server a few
     * hundred bytes of heads, never the ranges' bytes in memory. A cached file small enough to be held
     * in memory is answered from those bytes.
     * <pre>
     *   CRLF "--" boundary CRLF "Content-Type: " type CRLF "Content-Range: bytes a-b/size" CRLF CRLF &lt;bytes a..b&gt;
     *   ... one such part per range ...
     *   CRLF "--" boundary "--" CRLF
     * </pre>
     */
    private void multipart(ResponseView res, OpenFileCache.OpenFile open, Path file, List<long[]> ranges, long size,
                           String type) throws IOException {
        String boundary = "PEREGRINE" + Long.toHexString(System.nanoTime());
        int n = ranges.size();
        byte[][] heads = new byte[n + 1][];
        long[] offsets = new long[n];
        long[] lengths = new long[n];
        for (int i = 0; i < n; i++) {
            long[] r = ranges.get(i);
            heads[i] = ("\r\n--" + boundary + "\r\nContent-Type: " + type + "\r\nContent-Range: bytes "
                    + r[0] + "-" + r[1] + "/" + size + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
            offsets[i] = r[0];
            lengths[i] = r[1] - r[0] + 1;
        }
        heads[n] = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.ISO_8859_1);
        FileParts parts = new FileParts(heads, offsets, lengths);
        res.status(206).contentType("multipart/byteranges; boundary=" + boundary);
        if (open != null && open.bytes != null) {
            res.sendAsIs(); // small and already in memory: one body, with its head in one write
            byte[] body = new byte[(int) parts.total()];
            int at = 0;
            for (int i = 0; i <= n; i++) {
                System.arraycopy(heads[i], 0, body, at, heads[i].length);
                at += heads[i].length;
                if (i < n) {
                    System.arraycopy(open.bytes, (int) offsets[i], body, at, (int) lengths[i]);
                    at += (int) lengths[i];
                }
            }
            res.body(body);
            return;
        }
        java.nio.channels.FileChannel ch = open == null ? null : cache.lend(open);
        if (ch != null) {
            res.sendFileParts(ch, parts);
        } else {
            res.sendFileParts(file, parts);
        }
    }

    /**
     * {@code rel} under the root, or null: not a plain path of normal segments, hidden (unless allowed),
     * missing, not a regular file (after the index of a directory), a file named with a trailing
     * {@code /}, or leading outside through a link; {@link #DIRECTORY_WITHOUT_SLASH} for a directory
     * named without its trailing {@code /}.
     */
    Path resolve(String rel) throws IOException {
        if (rel.indexOf('\\') >= 0 || rel.indexOf('\0') >= 0 || rel.startsWith("/")) {
            return null;
        }
        Path p = root;
        boolean trailingSlash = rel.endsWith("/");
        if (!rel.isEmpty()) {
            String[] segments = rel.split("/", -1);
            int count = trailingSlash ? segments.length - 1 : segments.length; // "css/" names the directory css
            for (int i = 0; i < count; i++) {
                String segment = segments[i];
                if (segment.isEmpty() || segment.equals(".") || segment.equals("..")
                        || (!options.allowHidden() && segment.startsWith("."))) {
                    return null;
                }
                p = p.resolve(segment);
            }
        }
        if (Files.isDirectory(p)) {
            if (options.index() == null) {
                return null;
            }
            if (!rel.isEmpty() && !trailingSlash) {
                if (!options.followSymlinksOut() && !p.toRealPath().startsWith(realRoot)) {
                    return null; // no redirect that would tell a directory outside exists
                }
                return DIRECTORY_WITHOUT_SLASH;
            }
            p = p.resolve(options.index());
        } else if (trailingSlash) {
            return null; // a file named as a directory
        }
        if (!Files.isRegularFile(p)) {
            return null;
        }
        if (!options.followSymlinksOut() && !p.toRealPath().startsWith(realRoot)) {
            return null;
        }
        return p;
    }

    /** Whether {@code p} (a sibling named from a checked file) stays under the root, links followed, unless links out are allowed. */
    private boolean inside(Path p) throws IOException {
        return options.followSymlinksOut() || p.toRealPath().startsWith(realRoot);
    }

    private String mediaType(String name) {
        int dot = name.lastIndexOf('.');
        if (dot >= 0) {
            String custom = options.mediaTypes().get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
            if (custom != null) {
                return custom;
            }
        }
        return MediaTypes.forFileName(name);
    }
}
