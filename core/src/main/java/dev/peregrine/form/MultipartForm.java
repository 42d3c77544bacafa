package dev.peregrine.form;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A whole {@code multipart/form-data} body read into {@link FormPart}s: fields in memory, files in
 * memory up to {@link MultipartLimits#spoolThreshold()} and in temporary files in
 * {@link MultipartLimits#spoolDir()} beyond it. {@link #close()} deletes those files: use it in
 * try-with-resources. If reading fails (a bad or truncated body, a limit, the connection lost, the
 * listener's own failure) every file made so far is deleted before the exception leaves.
 *
 * <pre>{@code
 * try (MultipartForm form = req.multipart(MultipartLimits.DEFAULTS)) {   // a blocking handler
 *     for (FormPart p : form.parts()) { ... }
 * } catch (BadFormException | FormLimitException e) { res.status(e instanceof FormLimitException ? 413 : 400); }
 * }</pre>
 * To handle parts as they arrive without keeping them, drive a {@link MultipartParser} with a
 * {@link PartListener} instead ({@link #stream}, or from a streaming handler's body listener).
 *
 * <p>Thread: the thread reading the body (it blocks on the body stream and on the file system);
 * afterwards any.
 */
public final class MultipartForm implements AutoCloseable {
    private final List<FormPart> parts;
    private final List<Path> files;

    private MultipartForm(List<FormPart> parts, List<Path> files) {
        this.parts = Collections.unmodifiableList(parts);
        this.files = files;
    }

    /**
     * Reads the whole body from {@code body}, framed by {@code contentType}'s boundary.
     *
     * @throws BadFormException for a wrong type, a missing or wrong boundary, or a malformed or truncated body
     * @throws FormLimitException past a limit
     * @throws IOException when the body cannot be read (the connection closed) or a file not written
     */
    public static MultipartForm read(InputStream body, CharSequence contentType, MultipartLimits limits) throws IOException {
        Collector collector = new Collector(limits);
        try {
            stream(body, contentType, limits, collector);
        } catch (IOException | RuntimeException | Error e) {
            collector.discard();
            throw e;
        } catch (Exception e) {
            collector.discard();
            throw new IllegalStateException(e); // not reached: the collector throws only IOException
        }
        return new MultipartForm(collector.parts, collector.files);
    }

    /**
     * Feeds the whole body from {@code body} to {@code listener} part by part as it arrives, with
     * the parser's checks and limits.
     */
    public static void stream(InputStream body, CharSequence contentType, MultipartLimits limits, PartListener listener)
            throws Exception {
        MultipartParser parser = new MultipartParser(MultipartParser.boundaryOf(contentType), limits, listener);
        byte[] chunk = new byte[16 * 1024];
        ByteBuffer view = ByteBuffer.wrap(chunk);
        for (int n; (n = body.read(chunk)) >= 0; ) {
            view.limit(n).position(0);
            parser.feed(view);
        }
        parser.finish();
    }

    /** The parts in the order they came. */
    public List<FormPart> parts() {
        return parts;
    }

    /** The first part named {@code name}, or null. */
    public FormPart part(String name) {
        for (FormPart p : parts) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** Deletes the spooled files; idempotent. */
    @Override
    public void close() {
        deleteAll(files);
    }

    private static void deleteAll(List<Path> files) {
        for (Path f : files) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                System.getLogger("dev.peregrine").log(System.Logger.Level.WARNING, "could not delete upload spool file " + f, e);
            }
        }
    }

    /** Keeps each part in memory, moving a file part to disk once it passes the threshold. */
    private static final class Collector implements PartListener {
        private final MultipartLimits limits;
        final List<FormPart> parts = new ArrayList<>();
        final List<Path> files = new ArrayList<>();
        private PartHeaders headers;
        private ByteArrayOutputStream memory;
        private FileChannel channel;
        private Path file;
        private long size;

        Collector(MultipartLimits limits) {
            this.limits = limits;
        }

        @Override
        public void onPartStart(PartHeaders h) {
            headers = h;
            memory = new ByteArrayOutputStream();
            file = null;
            size = 0;
        }

        @Override
        public void onPartData(ByteBuffer data) throws IOException {
            size += data.remaining();
            if (channel == null && headers.isFile() && size > limits.spoolThreshold()) {
                file = Files.createTempFile(limits.spoolDir(), "peregrine-upload-", ".part");
                files.add(file);
                channel = FileChannel.open(file, StandardOpenOption.WRITE);
                writeFully(ByteBuffer.wrap(memory.toByteArray()));
                memory = null;
            }
            if (channel != null) {
                writeFully(data);
            } else {
                byte[] b = new byte[data.remaining()];
                data.get(b);
                memory.write(b, 0, b.length);
            }
        }

        private void writeFully(ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                channel.write(b);
            }
        }

        @Override
        public void onPartEnd() throws IOException {
            if (channel != null) {
                channel.close();
                channel = null;
                parts.add(new FormPart(headers, null, file, size));
            } else {
                parts.add(new FormPart(headers, memory.toByteArray(), null, size));
            }
        }

        void discard() {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    channel = null;
                    deleteAll(files);
                }
            }
            deleteAll(files);
        }
    }
}
