package dev.peregrine.h2;

import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.frame.FrameWriter;
import dev.peregrine.h2.frame.Frames;
import dev.peregrine.buffer.OutputSink;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Frames of every type as bytes, and a parse at a split point that keeps unconsumed bytes as a connection does. */
final class FrameSamples {
    private FrameSamples() {
    }

    static byte[] sample() {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        OutputSink sink = new OutputSink() {
            final ByteBuffer out = ByteBuffer.allocate(64);

            @Override
            public ByteBuffer out() {
                return out;
            }

            @Override
            public void drain() {
                all.write(out.array(), 0, out.position());
                out.clear();
            }
        };
        FrameWriter.settings(sink, Frames.SETTINGS_MAX_CONCURRENT_STREAMS, 100);
        FrameWriter.ping(sink, false, 42);
        FrameWriter.headers(sink, 1, false, new byte[100], 100, Frames.DEFAULT_MAX_FRAME_SIZE);
        FrameWriter.data(sink, 1, true, "hello".getBytes(), 0, 5);
        FrameWriter.windowUpdate(sink, 0, 1000);
        FrameWriter.rstStream(sink, 3, Frames.CANCEL);
        FrameWriter.goAway(sink, 7, Frames.NO_ERROR);
        sink.drain();
        return all.toByteArray();
    }

    static String parse(byte[] wire, int split) {
        FrameParser p = new FrameParser();
        List<String> out = new ArrayList<>();
        ByteBuffer held = ByteBuffer.allocate(wire.length);
        int heldLen = 0;
        int[] cuts = split <= 0 ? new int[] {wire.length} : new int[] {split, wire.length};
        int from = 0;
        for (int cut : cuts) {
            held.put(heldLen, wire, from, cut - from);
            heldLen += cut - from;
            from = cut;
            int pos = 0;
            while (true) {
                int r = p.parse(held, pos, heldLen);
                if (r == FrameParser.NEED_MORE) {
                    break;
                }
                if (r == FrameParser.ERROR) {
                    out.add("E" + p.errorCode() + "/" + p.errorStream());
                    if (p.errorStream() == 0) {
                        return out.toString();
                    }
                    r = p.frameEnd();
                } else {
                    out.add(p.type() + "/" + p.flags() + "/" + p.streamId() + "/" + p.dataStart() % 1 + (p.dataEnd() - p.dataStart()));
                }
                pos = r;
            }
            held.put(0, held, pos, heldLen - pos);
            heldLen -= pos;
        }
        return out.toString();
    }
}
