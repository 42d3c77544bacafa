package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Http2Options}: a value out of range fails at the call that sets it, naming the limit. */
class Http2OptionsTest {
    @Test
    void outOfRangeValuesFailAtTheCall() {
        Http2Options.Builder b = Http2Options.builder();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.maxConcurrentStreams(0)).getMessage().contains("maxConcurrentStreams"));
        assertThrows(IllegalArgumentException.class, () -> b.connectionWindow(65_534));
        assertThrows(IllegalArgumentException.class, () -> b.initialStreamWindow(-1));
        assertThrows(IllegalArgumentException.class, () -> b.maxHeaderListSize(65_536));
        assertThrows(IllegalArgumentException.class, () -> b.maxHeaderBlockBytes(100));
        assertThrows(IllegalArgumentException.class, () -> b.maxPings(0));
        // a connection counts each kind in 16 bits and keeps its window's start as 32 bits of milliseconds
        for (java.util.function.IntConsumer limit : new java.util.function.IntConsumer[] {b::maxPings, b::maxClientResets,
                b::maxServerResets, b::maxSettingsFrames, b::maxEmptyFrames}) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> limit.accept(65_536)).getMessage().contains("65535"));
            limit.accept(65_535);
        }
        assertThrows(IllegalArgumentException.class, () -> b.floodWindow(Duration.ofDays(1).plusMillis(1)));
        b.floodWindow(Duration.ofDays(1));
        assertThrows(IllegalArgumentException.class, () -> b.floodWindow(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> b.stalledWriteTimeout(null));
        assertThrows(NullPointerException.class, () -> Server.builder().http2((Http2Options) null));
    }

    @Test
    void everyLimitInRangeBuilds() {
        Http2Options o = Http2Options.builder().maxConcurrentStreams(1).initialStreamWindow(1024).connectionWindow(65_535)
                .headerTableSize(0).maxHeaderListSize(64).maxHeaderBlockBytes(1024).maxHeaderBlockFrames(1)
                .maxClientResets(1).maxServerResets(1).maxSettingsFrames(1).maxPings(1).maxEmptyFrames(1)
                .floodWindow(Duration.ofMillis(1)).stalledWriteTimeout(Duration.ofMillis(1)).build();
        assertTrue(dev.peregrine.h2.Http2Settings.of(o) != null);
        assertEquals(1, o.maxConcurrentStreams());
        assertEquals(1, o.stalledWriteMillis());
        assertSame(Http2Options.DEFAULTS, Server.builder().http2Options);
    }
}
