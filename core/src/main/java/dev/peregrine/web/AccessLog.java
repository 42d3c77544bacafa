package dev.peregrine.web;

import org.jctools.queues.atomic.MpscAtomicArrayQueue;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The access log ({@code Server.Builder.accessLog}): one line per answered request, in the combined
 * (NCSA) format or as JSON lines, written by a thread of its own so that a loop never waits on a disk.
 * <pre>{@code
 * .accessLog(AccessLog.combined(Path.of("/var/log/app/access.log")))
 * .accessLog(AccessLog.builder().format(AccessLog.Format.JSON).to(System.out).build())
 * .accessLog(AccessLog.builder().to(line -> logger.info(line)).build())   // SLF4J, JUL...
 * }</pre>
 *
 * <p><b>Path of a line.</b> The loop formats the line when the response is encoded (the request's
 * bytes are valid only then) and offers it to a bounded multi-producer queue; the writer thread takes
 * lines, writes them through a buffer and flushes whenever the queue runs empty. The loop never blocks:
 * when the queue is full, in lines ({@link Builder#queueCapacity}) or in bytes ({@link Builder#queueBytes},
 * the characters of the lines waiting, 16 MiB by default), the line is dropped and counted
 * ({@link #dropped()}), and the writer logs one WARNING (at most every 10 s, and once more at close)
 * saying how many were lost. Each field taken from the request is cut at {@link Builder#maxFieldLength}
 * characters of escaped text (then {@code ...}), so one line is bounded whatever the request carried:
 * escaping can make a field four times its bytes on the wire ({@code \xhh}). A write that fails
 * is counted and reported the same way. Off by default; when off, the loops pay one null test per
 * request and allocate nothing.
 *
 * <p><b>Fields</b> ({@link Format}): remote address, time (when the request was dispatched, UTC),
 * method, target, protocol, status, body bytes sent ({@code -} when streamed in pieces of unknown
 * total), referer, user agent, duration (from dispatch to the response's encoding: the handler's
 * time, off the loop too) and the request id
 * ({@code Server.Builder.requestIds}). Requests the parser rejects (400, 413, 431...) and protocol
 * upgrades are not logged; they are counted in the server's metrics.
 *
 * <p><b>Rotation</b> (a file destination). The writer keeps the file open and checks, at most once a
 * second and only while lines arrive, whether its path still names the file it opened (device and inode,
 * links followed); when the path is gone or names another file it closes its file and opens the path
 * again (created if missing). So logrotate's usual {@code create} mode (rename, then a new file) works
 * without {@code copytruncate} and without signals: nginx reopens on {@code SIGUSR1}, which Java cannot
 * trap portably. Lines written between the rename and the next check land at the end of the renamed
 * file, as nginx's do before its signal. {@link #reopen()} asks for the same at once (after a move done
 * by the application itself). While the path cannot be opened, lines are dropped and counted, and
 * opening is tried again at the next check.
 *
 * <p>Lifecycle: the server starts the writer at {@code start()} and closes it (draining what is queued)
 * at {@code close()}. One log serves one server. Thread: any.
 */
public final class AccessLog implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    private static final long REPORT_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How often, at most, the writer compares the path with the file it has open (rotation). */
    private static final long ROTATION_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** How each line is written. */
    public enum Format {
        /**
         * Apache's combined format plus the duration in microseconds ({@code %D}) and the request id:
         * {@code 127.0.0.1 - - [23/Nov/2026:11:40:00 +0000] "GET /a?b=1 HTTP/1.1" 200 13 "-" "curl/8.5.0" 412 "3f9c0a7d51e2-1"}.
         * Quotes, backslashes and bytes outside printable ASCII in quoted fields are escaped as
         * Apache does ({@code \"}, {@code \\}, {@code \xhh}).
         */
        COMBINED,
        /**
         * One JSON object per line: {@code {"time":"2026-11-23T11:40:00.123Z","remote":"127.0.0.1",
         * "method":"GET","target":"/a?b=1","protocol":"HTTP/1.1","status":200,"bytes":13,
         * "referer":null,"userAgent":"curl/8.5.0","durationMicros":412,"requestId":"3f9c0a7d51e2-1"}}
         * ({@code bytes} is -1 for a body of unknown length).
         */
        JSON
    }

    private final Format format;
    private final int capacity;
    private final long maxQueuedBytes;
    private final int maxFieldLength;
    /** Characters of the lines in {@link #queue}: added by producers before they offer, taken off by the writer. */
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Path file;
    private final OutputStream stream;
    private final Consumer<String> consumer;
    private final MpscAtomicArrayQueue<String> queue;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private volatile boolean closing;
    private volatile Thread writerThread;
    /** Set by the writer just before it parks; producers unpark it when they see it. */
    private volatile boolean parked;
    private Writer out;
    /** The identity (device and inode) of the file {@link #out} writes, or null (not a file, or not known). */
    private Object openKey;
    private long lastRotationCheckNanos;
    /** {@link #reopen()} was called: the writer reopens the file before its next line. */
    private volatile boolean reopenAsked;
    private long reported;
    private long lastReportNanos;

    private AccessLog(Builder b) {
        this.format = b.format;
        this.capacity = b.capacity;
        this.maxQueuedBytes = b.queueBytes;
        this.maxFieldLength = b.maxFieldLength;
        this.file = b.file;
        this.stream = b.stream;
        this.consumer = b.consumer;
        this.queue = new MpscAtomicArrayQueue<>(capacity);
    }

    /** A builder: combined format, no destination yet, a queue of 65,536 lines and 16 MiB, fields of 1,024 characters. */
    public static Builder builder() {
        return new Builder();
    }

    /** The combined format, appended to {@code file} (created if missing). */
    public static AccessLog combined(Path file) {
        return builder().to(file).build();
    }

    /** JSON lines, appended to {@code file} (created if missing). */
    public static AccessLog json(Path file) {
        return builder().format(Format.JSON).to(file).build();
    }

    /** The format of this log's lines. */
    public Format format() {
        return format;
    }

    /** The most characters of escaped text one field taken from the request contributes to a line. */
    public int maxFieldLength() {
        return maxFieldLength;
    }

    /** Lines lost so far: the queue was full (in lines or in bytes), or writing them failed. */
    public long dropped() {
        return dropped.get();
    }

    /** Lines handed to the destination so far. */
    public long written() {
        return written.get();
    }

    /**
     * Starts the writer thread; the server calls it from {@code start()}.
     *
     * @throws IllegalStateException when already started (one log serves one server)
     * @throws UncheckedIOException when the file cannot be opened
     */
    public synchronized void start() {
        if (writerThread != null || closing) {
            throw new IllegalStateException("this access log is already in use by a server");
        }
        try {
            if (file != null) {
                Path parent = file.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                openFile();
                lastRotationCheckNanos = System.nanoTime();
            } else if (stream != null) {
                out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 64 * 1024);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the access log " + file + ": " + e.getMessage(), e);
        }
        Thread t = new Thread(this::run, "peregrine-access-log");
        t.setDaemon(true);
        writerThread = t;
        t.start();
    }

    /** Opens (creates) {@link #file} for appending and remembers which file it is. Writer thread, or start(). */
    private void openFile() throws IOException {
        out = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(file, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND, StandardOpenOption.WRITE), StandardCharsets.UTF_8), 64 * 1024);
        openKey = fileKey();
    }

    /** The identity of the file {@link #file} names now (links followed), or null when there is none. */
    private Object fileKey() {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (IOException gone) {
            return null;
        }
    }

    /**
     * Asks the writer to close the log file and open its path again (created if missing) before the
     * next line: after the application moved the file itself. Renames by logrotate are noticed without
     * it (see the class comment). No effect on a stream or consumer destination. Thread: any.
     */
    public void reopen() {
        reopenAsked = true;
        Thread t = writerThread;
        if (t != null && parked) {
            LockSupport.unpark(t);
        }
    }

    /**
     * Reopens the file when asked to, or when (checked at most once a second) its path no longer names
     * the file open. Writer thread.
     */
    private void followRotation() {
        if (file == null) {
            return;
        }
        boolean asked = reopenAsked;
        long now = System.nanoTime();
        if (!asked && out != null && now - lastRotationCheckNanos < ROTATION_CHECK_NANOS) {
            return;
        }
        lastRotationCheckNanos = now;
        if (!asked && out != null) {
            Object key = fileKey();
            if (key != null && key.equals(openKey)) {
                return; // still the same file
            }
        }
        reopenAsked = false;
        if (out != null) {
            flush();
            try {
                out.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "access log: closing the rotated " + file + " failed: " + e.getMessage());
            }
            out = null;
        }
        try {
            openFile();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "access log: cannot reopen " + file + " (lines are dropped until it can): "
                    + e.getMessage());
        }
    }

    /**
     * Queues {@code line} (without its line end) for the writer. Never blocks: a full queue drops the
     * line and counts it. Thread: any (the loops).
     */
    public void offer(String line) {
        int size = line.length(); // a Latin-1 String: a byte of heap per character
        if (closing || queuedBytes.addAndGet(size) > maxQueuedBytes) { // closing: a loop that outlived the grace
            queuedBytes.addAndGet(-size);
            dropped.incrementAndGet();
            return;
        }
        if (!queue.offer(line)) {
            queuedBytes.addAndGet(-size);
            dropped.incrementAndGet();
            return;
        }
        if (parked) {
            LockSupport.unpark(writerThread);
        }
    }

    /**
     * Stops the writer once every queued line is written, flushes, and closes the file it opened
     * (a {@link Builder#to(OutputStream) stream} is flushed, not closed). The server calls it from
     * {@code close()}. Waits at most 5 s for the writer. Idempotent.
     */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            t = writerThread;
        }
        if (t == null) {
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The writer thread: takes lines until closed and the queue is empty. */
    private void run() {
        while (true) {
            String line = queue.relaxedPoll();
            if (line != null) {
                queuedBytes.addAndGet(-line.length());
                followRotation();
                write(line);
                continue;
            }
            if (reopenAsked) {
                followRotation();
            }
            flush();
            report(false);
            if (closing) {
                if (queue.isEmpty()) {
                    break;
                }
                continue;
            }
            parked = true;
            // Re-check after announcing the park: a producer that queued before seeing the flag
            // would not unpark, so its line must be seen here.
            if (queue.isEmpty() && !closing && !reopenAsked) {
                LockSupport.parkNanos(this, REPORT_EVERY_NANOS);
            }
            parked = false;
        }
        flush();
        report(true);
        if (file != null && out != null) {
            try {
                out.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "access log: closing " + file + " failed: " + e.getMessage());
            }
        }
    }

    private void write(String line) {
        try {
            if (out != null) {
                out.write(line);
                out.write('\n');
            } else if (consumer != null) {
                consumer.accept(line);
            } else {
                throw new IOException(file + " is not open");
            }
            written.incrementAndGet();
        } catch (IOException | RuntimeException e) {
            dropped.incrementAndGet();
            if (dropped.get() == reported + 1) {
                LOG.log(System.Logger.Level.WARNING, "access log: writing a line failed: " + e);
            }
        }
    }

    private void flush() {
        if (out == null) {
            return;
        }
        try {
            out.flush();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "access log: flush failed: " + e.getMessage());
        }
    }

    /** One WARNING when lines were lost since the last one, at most every 10 s (always at the end). */
    private void report(boolean last) {
        long lost = dropped.get();
        if (lost == reported) {
            return;
        }
        long now = System.nanoTime();
        if (!last && reported != 0 && now - lastReportNanos < REPORT_EVERY_NANOS) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "access log: " + (lost - reported) + " line(s) dropped (" + lost
                + " in all): the queue (" + capacity + " lines, " + maxQueuedBytes + " bytes) was full or writing failed");
        reported = lost;
        lastReportNanos = now;
    }

    /** Collects the log's settings. Not thread-safe. */
    public static final class Builder {
        private Format format = Format.COMBINED;
        private int capacity = 65_536;
        private long queueBytes = 16L << 20;
        private int maxFieldLength = 1024;
        private Path file;
        private OutputStream stream;
        private Consumer<String> consumer;

        private Builder() {
        }

        /** The line format; default {@link Format#COMBINED}. */
        public Builder format(Format format) {
            this.format = Objects.requireNonNull(format, "format");
            return this;
        }

        /** Appends lines to {@code file} (created, with its directories, if missing). */
        public Builder to(Path file) {
            this.file = Objects.requireNonNull(file, "file");
            this.stream = null;
            this.consumer = null;
            return this;
        }

        /** Writes lines to {@code stream} (e.g. {@code System.out}), UTF-8; flushed, never closed by the log. */
        public Builder to(OutputStream stream) {
            this.stream = Objects.requireNonNull(stream, "stream");
            this.file = null;
            this.consumer = null;
            return this;
        }

        /**
         * Hands each line to {@code lines} on the writer thread (a logging framework, a test); an
         * exception it throws counts the line as dropped.
         */
        public Builder to(Consumer<String> lines) {
            this.consumer = Objects.requireNonNull(lines, "lines");
            this.file = null;
            this.stream = null;
            return this;
        }

        /** Lines that may wait for the writer before new ones are dropped; default 65,536. */
        public Builder queueCapacity(int lines) {
            if (lines < 16) {
                throw new IllegalArgumentException("queueCapacity must be at least 16: " + lines);
            }
            this.capacity = lines;
            return this;
        }

        /**
         * The most characters the lines waiting for the writer may hold together before new ones are
         * dropped (counted); default 16 MiB. The line count ({@link #queueCapacity}) applies as well.
         */
        public Builder queueBytes(long bytes) {
            if (bytes < 64 * 1024) {
                throw new IllegalArgumentException("queueBytes must be at least 65536: " + bytes);
            }
            this.queueBytes = bytes;
            return this;
        }

        /**
         * The most characters of escaped text each field taken from the request (method, target,
         * Referer, User-Agent, request id) contributes to a line; longer ones are cut and end with
         * {@code ...}. Default 1,024; at least 16, at most 65,536.
         */
        public Builder maxFieldLength(int chars) {
            if (chars < 16 || chars > 65_536) {
                throw new IllegalArgumentException("maxFieldLength must be between 16 and 65536: " + chars);
            }
            this.maxFieldLength = chars;
            return this;
        }

        /**
         * The log.
         *
         * @throws IllegalStateException when no destination was given
         */
        public AccessLog build() {
            if (file == null && stream == null && consumer == null) {
                throw new IllegalStateException("access log: no destination; call to(Path), to(OutputStream) or to(Consumer)");
            }
            return new AccessLog(this);
        }
    }
}
