package dev.peregrine.form;

import java.nio.file.Path;

/**
 * Limits and spooling for multipart bodies; past a limit a part gives {@link FormLimitException}
 * (413). Immutable; {@code with...} return a copy.
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><th>setting</th><th>default</th><th>bounds</th></tr>
 *   <tr><td>{@code maxParts}</td><td>100</td><td>parts in one body</td></tr>
 *   <tr><td>{@code maxPartHeaderSize}</td><td>8 KiB</td><td>bytes of one part's header block, CRLFs included</td></tr>
 *   <tr><td>{@code maxFieldSize}</td><td>64 KiB</td><td>bytes of a part without a filename (held in memory)</td></tr>
 *   <tr><td>{@code maxFileSize}</td><td>16 MiB</td><td>bytes of a part with a filename</td></tr>
 *   <tr><td>{@code spoolThreshold}</td><td>16 KiB</td><td>a file part past this goes to a temporary file</td></tr>
 *   <tr><td>{@code spoolDir}</td><td>{@code java.io.tmpdir}</td><td>where those files go</td></tr>
 * </table>
 */
public record MultipartLimits(int maxParts, int maxPartHeaderSize, long maxFieldSize, long maxFileSize,
                              int spoolThreshold, Path spoolDir) {
    /** The defaults of the table. */
    public static final MultipartLimits DEFAULTS = new MultipartLimits(100, 8192, 64 * 1024, 16L << 20, 16 * 1024,
            Path.of(System.getProperty("java.io.tmpdir")));

    /** @throws IllegalArgumentException for a limit below 1, a negative threshold or no directory */
    public MultipartLimits {
        if (maxParts < 1 || maxPartHeaderSize < 1 || maxFieldSize < 0 || maxFileSize < 0 || spoolThreshold < 0
                || spoolDir == null) {
            throw new IllegalArgumentException("invalid multipart limits: " + maxParts + ", " + maxPartHeaderSize + ", "
                    + maxFieldSize + ", " + maxFileSize + ", " + spoolThreshold + ", " + spoolDir);
        }
    }

    public MultipartLimits withMaxParts(int n) {
        return new MultipartLimits(n, maxPartHeaderSize, maxFieldSize, maxFileSize, spoolThreshold, spoolDir);
    }

    public MultipartLimits withMaxPartHeaderSize(int n) {
        return new MultipartLimits(maxParts, n, maxFieldSize, maxFileSize, spoolThreshold, spoolDir);
    }

    public MultipartLimits withMaxFieldSize(long n) {
        return new MultipartLimits(maxParts, maxPartHeaderSize, n, maxFileSize, spoolThreshold, spoolDir);
    }

    public MultipartLimits withMaxFileSize(long n) {
        return new MultipartLimits(maxParts, maxPartHeaderSize, maxFieldSize, n, spoolThreshold, spoolDir);
    }

    public MultipartLimits withSpoolThreshold(int n) {
        return new MultipartLimits(maxParts, maxPartHeaderSize, maxFieldSize, maxFileSize, n, spoolDir);
    }

    public MultipartLimits withSpoolDir(Path dir) {
        return new MultipartLimits(maxParts, maxPartHeaderSize, maxFieldSize, maxFileSize, spoolThreshold, dir);
    }
}
