package dev.peregrine.exchange;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The file a {@link ResponseView} sends as its body ({@code res.sendFile}): a path to open, or a
 * channel the caller opened and handed over, and the range {@code [offset, offset + length)}. The view
 * only records it. The view's owner opens a path when the handler has returned ({@link #open}, called
 * by {@code offloop.BodySource.openFile} on the loop, before the response is counted and logged), so
 * no file is opened in {@code http1}; a file removed between the handler's call and then is answered
 * 404 by that owner, and counted and logged as the 404 it is.
 *
 * <p>A detached response ({@code new ResponseView()}, tests and tools) has no owner: its file is
 * recorded and never opened, and {@link ResponseView#reset} forgets it (closing a handed-over channel,
 * which the response owns from the call on).
 *
 * <p>Thread: the response's thread until the handler returns, then the owning loop.
 */
public final class FileSend {
    /** The file to open, or null when the caller handed over {@link #channel}. */
    private Path path;
    /** The caller's open channel, or null when {@link #path} is to be opened. */
    private FileChannel channel;
    private long offset;
    private long length;
    /** Several ranges with heads between them ({@link #parts(FileParts)}), or null for one range. */
    private FileParts parts;

    FileSend() {
    }

    /** Whether a file is recorded. */
    boolean isSet() {
        return path != null || channel != null;
    }

    /** Where the bytes to send begin. */
    public long offset() {
        return offset;
    }

    /** How many bytes to send (the file's size at the call, the range's, or the whole of {@link #parts()}). */
    public long length() {
        return parts != null ? parts.total() : length;
    }

    /** The ranges and heads to send instead of one range, or null. */
    public FileParts parts() {
        return parts;
    }

    /**
     * Sends {@code p} (ranges of the recorded whole file, with their heads) instead of one range.
     *
     * @throws IllegalArgumentException when a range does not lie inside the file (the file is forgotten)
     */
    void parts(FileParts p) {
        if (offset != 0 || !p.inside(length)) {
            long size = length;
            clear();
            throw new IllegalArgumentException("ranges outside the file (" + size + " bytes)");
        }
        parts = p;
    }

    /** The path to be opened, or null when the caller handed over an open channel. */
    public Path path() {
        return path;
    }

    /**
     * Records the whole of {@code file}, sized now with a {@code stat} (no descriptor is opened), or
     * returns false when it is missing or not a regular file (the caller answers 404).
     *
     * @throws AccessDeniedException when it exists but cannot be read: at the call, as if opened now
     */
    boolean setPath(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        if (!Files.isReadable(file)) {
            throw new AccessDeniedException(file.toString());
        }
        long size;
        try {
            size = Files.size(file);
        } catch (NoSuchFileException gone) {
            return false; // removed since the check
        }
        clear();
        path = file;
        offset = 0;
        length = size;
        return true;
    }

    /**
     * Narrows the recorded file to {@code [offset, offset + length)}.
     *
     * @throws IllegalArgumentException when the range does not lie inside the file (the file is forgotten)
     */
    void narrow(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > this.length) {
            long size = this.length;
            clear();
            throw new IllegalArgumentException("range " + offset + "+" + length + " outside " + path + " (" + size + " bytes)");
        }
        this.offset = offset;
        this.length = length;
    }

    /**
     * Records the caller's open {@code ch}: the response owns it from now on.
     *
     * @throws IllegalArgumentException when the range does not lie inside the file (the channel is closed)
     */
    void setChannel(FileChannel ch, long offset, long length) throws IOException {
        long size = ch.size();
        if (offset < 0 || length < 0 || offset + length > size) {
            ch.close();
            throw new IllegalArgumentException("range " + offset + "+" + length + " outside the file (" + size + " bytes)");
        }
        clear();
        channel = ch;
        this.offset = offset;
        this.length = length;
    }

    /**
     * The channel to send from, which the caller now owns and must close: the handed-over one, or
     * {@link #path()} opened now. Forgets the file either way.
     *
     * @throws NoSuchFileException when the path was removed since it was recorded
     * @throws IOException when it cannot be opened
     */
    public FileChannel open() throws IOException {
        FileChannel ch = channel;
        Path p = path;
        channel = null;
        path = null;
        return ch != null ? ch : FileChannel.open(p, StandardOpenOption.READ);
    }

    /**
     * The owner opened the path early ({@link #open} then this): the channel is kept as a handed-over
     * one, for the owner's next {@link #open} to take (or {@link ResponseView#reset} to close).
     */
    public void opened(FileChannel ch) {
        path = null;
        channel = ch;
    }

    /** Forgets the file, closing a handed-over channel that was never taken. */
    void clear() {
        path = null;
        parts = null;
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // read-only; nothing was lost
            }
            channel = null;
        }
    }

    /**
     * {@code relativePath} under {@code root}, or null when it is not a plain relative path of normal
     * segments or its real path (symbolic links followed) is not inside root's real path.
     */
    static Path resolveUnder(Path root, String relativePath) throws IOException {
        if (relativePath.isEmpty() || relativePath.indexOf('\0') >= 0 || relativePath.indexOf('\\') >= 0
                || relativePath.startsWith("/")) {
            return null;
        }
        for (String segment : relativePath.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return null;
            }
        }
        Path base;
        Path candidate;
        try {
            base = root.toRealPath();
            candidate = base.resolve(relativePath).normalize();
        } catch (InvalidPathException | NoSuchFileException e) {
            return null;
        }
        if (!candidate.startsWith(base) || !Files.exists(candidate)) {
            return null;
        }
        Path real = candidate.toRealPath(); // follows links: a link out of root is refused here
        return real.startsWith(base) ? real : null;
    }
}
