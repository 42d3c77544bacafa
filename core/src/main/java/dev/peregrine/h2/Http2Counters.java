package dev.peregrine.h2;

/**
 * What the HTTP/2 connections of one loop counted: streams, and each defence that fired (see
 * {@link Http2Settings}). Plain fields written by the loop thread only; read by others as a
 * monitoring snapshot (like {@code loop.LoopMetrics}).
 */
public final class Http2Counters {
    public long connections;
    public long streams;
    public long refusedStreams;
    public long rapidResets;
    public long serverResetFloods;
    public long continuationFloods;
    public long settingsFloods;
    public long pingFloods;
    public long emptyDataFloods;
    public long headerListTooLarge;
    public long stalledWrites;
    public long connectionErrors;
    public long streamErrors;

    /** The defences' names, in the order of {@link #defences()}: the values of the metric's label. */
    public static final java.util.List<String> DEFENCES = dev.peregrine.Metrics.HTTP2_DEFENCES;

    /** How often each defence fired, in the order of {@link #DEFENCES}. */
    public long[] defences() {
        return new long[] {refusedStreams, rapidResets, serverResetFloods, continuationFloods, settingsFloods, pingFloods,
            emptyDataFloods, headerListTooLarge, stalledWrites};
    }
}
