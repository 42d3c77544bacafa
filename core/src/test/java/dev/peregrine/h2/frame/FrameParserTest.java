package dev.peregrine.h2.frame;

import dev.peregrine.buffer.OutputSink;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static dev.peregrine.h2.frame.Frames.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Every frame type written by {@link FrameWriter}, read back by {@link FrameParser} at every split point; the rule table. */
class FrameParserTest {
    /** A sink over a growing heap buffer. */
    static final class Sink implements OutputSink {
        ByteBuffer out = ByteBuffer.allocate(64);
        final java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();

        @Override
        public ByteBuffer out() {
            return out;
        }

        @Override
        public void drain() {
            all.write(out.array(), 0, out.position());
            out.clear();
        }

        byte[] bytes() {
            drain();
            return all.toByteArray();
        }
    }

    static byte[] sample() {
        Sink s = new Sink();
        FrameWriter.settings(s, SETTINGS_MAX_CONCURRENT_STREAMS, 100, SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20);
        FrameWriter.settingsAck(s);
        FrameWriter.ping(s, false, 0x0102030405060708L);
        byte[] block = new byte[40_000];
        FrameWriter.headers(s, 1, false, block, block.length, DEFAULT_MAX_FRAME_SIZE); // HEADERS + 2 CONTINUATION
        FrameWriter.data(s, 1, true, "hello".getBytes(), 0, 5);
        FrameWriter.windowUpdate(s, 0, 1000);
        FrameWriter.rstStream(s, 3, CANCEL);
        FrameWriter.goAway(s, 7, ENHANCE_YOUR_CALM);
        return s.bytes();
    }

    /** Parses everything offered in pieces as a connection would: unconsumed bytes kept and offered again. */
    static List<String> parseSplit(byte[] wire, int split) {
        FrameParser p = new FrameParser();
        List<String> out = new ArrayList<>();
        ByteBuffer held = ByteBuffer.allocateDirect(wire.length);
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
                    out.add("ERROR " + errorName(p.errorCode()) + " on " + p.errorStream());
                    return out;
                }
                out.add(p.type() + "/" + p.flags() + "/" + p.streamId() + "/" + (p.dataEnd() - p.dataStart()));
                pos = r;
            }
            held.put(0, held, pos, heldLen - pos);
            heldLen -= pos;
        }
        return out;
    }

    @Test
    void everySplitPointGivesTheSameFrames() {
        byte[] wire = sample();
        List<String> whole = parseSplit(wire, 0);
        assertEquals(List.of("4/0/0/12", "4/1/0/0", "6/0/0/8", "1/0/1/16384", "9/0/1/16384", "9/4/1/7232", "0/1/1/5",
                "8/0/0/4", "3/0/3/4", "7/0/0/8"), whole);
        for (int split = 1; split < wire.length; split++) {
            assertEquals(whole, parseSplit(wire, split), "split at " + split);
        }
    }

    @Test
    void fieldsReadBack() {
        byte[] wire = sample();
        ByteBuffer b = ByteBuffer.wrap(wire);
        FrameParser p = new FrameParser();
        int pos = p.parse(b, 0, wire.length);
        assertEquals(SETTINGS_MAX_CONCURRENT_STREAMS, FrameParser.int32(b, p.payloadStart()) >>> 16);
        pos = p.parse(b, pos, wire.length);
        pos = p.parse(b, pos, wire.length);
        assertEquals(0x01020304, FrameParser.int32(b, p.payloadStart()));
        while (p.type() != GOAWAY) {
            pos = p.parse(b, pos, wire.length);
        }
        assertEquals(7, p.lastStreamId(b));
        assertEquals(ENHANCE_YOUR_CALM, p.errorCodeField(b));
    }

    static String one(String hex) {
        byte[] wire = HexFormat.of().parseHex(hex.replaceAll("\\s", ""));
        List<String> r = parseSplit(wire, 0);
        return r.isEmpty() ? "NEED_MORE" : r.get(0);
    }

    @Test
    void rules() {
        assertEquals("ERROR FRAME_SIZE_ERROR on 0", one("004001 00 00 00000001"), "above max frame size, from the header alone");
        assertEquals("ERROR PROTOCOL_ERROR on 0", one("000000 00 00 00000000"), "DATA on 0");
        assertEquals("ERROR PROTOCOL_ERROR on 0", one("000000 01 04 00000000"), "HEADERS on 0");
        assertEquals("ERROR FRAME_SIZE_ERROR on 3", one("000004 02 00 00000003 00000000"), "PRIORITY of 4 bytes");
        assertEquals("ERROR PROTOCOL_ERROR on 0", one("000005 02 00 00000000 0000000010"), "PRIORITY on 0");
        assertEquals("ERROR FRAME_SIZE_ERROR on 0", one("000003 03 00 00000001 000000"), "RST_STREAM of 3");
        assertEquals("ERROR FRAME_SIZE_ERROR on 0", one("000001 04 01 00000000 00"), "SETTINGS ACK with payload");
        assertEquals("ERROR FRAME_SIZE_ERROR on 0", one("000003 04 00 00000000 000000"), "SETTINGS of 3");
        assertEquals("ERROR PROTOCOL_ERROR on 0", one("000000 04 00 00000001"), "SETTINGS on a stream");
        assertEquals("ERROR FRAME_SIZE_ERROR on 0", one("000006 06 00 00000000 000000000000"), "PING of 6");
        assertEquals("ERROR PROTOCOL_ERROR on 0", one("000008 06 00 00000001 0000000000000000"), "PING on a stream");
        assertEquals("ERROR PROTOCOL_ERROR on 5", one("000004 08 00 00000005 00000000"), "WINDOW_UPDATE of 0");
        assertEquals("ERROR PROTOCOL_ERROR on 0", one("000004 08 00 00000000 80000000"), "WINDOW_UPDATE of 0, reserved bit set");
        assertEquals("ERROR PROTOCOL_ERROR on 0", one("000003 00 08 00000001 030000"), "padding as long as the payload");
        assertEquals("0/8/1/0", one("000003 00 08 00000001 020000"), "padding one shorter");
        assertEquals("ERROR FRAME_SIZE_ERROR on 0", one("000000 00 08 00000001"), "PADDED without the pad length");
        assertEquals("1/36/1/1", one("000006 01 24 80000001 0000000310 82"), "HEADERS with priority: block is after it");
        assertEquals("255/255/2147483647/2", one("000002 ff ff ffffffff 0000"), "unknown type, reserved bit: parsed");
        assertEquals("NEED_MORE", one("000004 08 00 000000"));
    }
}
