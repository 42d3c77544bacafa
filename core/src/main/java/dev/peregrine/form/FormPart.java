package dev.peregrine.form;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One part of a {@link MultipartForm}: its headers and its bytes, held in memory or, for a file past
 * {@link MultipartLimits#spoolThreshold()}, in a temporary file that {@link MultipartForm#close()}
 * deletes. Valid until the form is closed. Thread: any, once the form is read.
 */
public final class FormPart {
    private final PartHeaders headers;
    private final byte[] bytes;
    private final Path file;
    private final long size;

    FormPart(PartHeaders headers, byte[] bytes, Path file, long size) {
        this.headers = headers;
        this.bytes = bytes;
        this.file = file;
        this.size = size;
    }

    public PartHeaders headers() {
        return headers;
    }

    /** The field name. */
    public String name() {
        return headers.name();
    }

    /** The client's file name, or null for a plain field. Never use it as a path. */
    public String filename() {
        return headers.filename();
    }

    /** The part's length in bytes. */
    public long size() {
        return size;
    }

    /** The spooled file, or null when the part is in memory. Deleted when the form closes. */
    public Path file() {
        return file;
    }

    /** The bytes, from the file if spooled (then read now). Allocates. */
    public byte[] bytes() {
        if (bytes != null) {
            return bytes.clone();
        }
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The bytes decoded as UTF-8. */
    public String text() {
        return new String(bytes != null ? bytes : bytes(), StandardCharsets.UTF_8);
    }

    /** A stream over the bytes; close it. */
    public InputStream open() throws IOException {
        return bytes != null ? new ByteArrayInputStream(bytes) : Files.newInputStream(file);
    }

    @Override
    public String toString() {
        return headers + ", " + size + " bytes" + (file != null ? " in " + file : "");
    }
}
