package dev.peregrine.buffer;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link Swar}: the first marked byte of each mask equals a byte-by-byte scan, for any bytes. */
class SwarTest {

    private static int firstScalar(long w, java.util.function.IntPredicate p) {
        for (int i = 0; i < 8; i++) {
            if (p.test((int) (w >>> (8 * i)) & 0xFF)) {
                return i;
            }
        }
        return -1;
    }

    private static int first(long mask) {
        return mask == 0 ? -1 : Swar.firstIndex(mask);
    }

    @Test
    void masksAgreeWithAScalarScan() {
        SplittableRandom rnd = new SplittableRandom(42);
        int[] interesting = {0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x3F, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF};
        for (int n = 0; n < 200_000; n++) {
            long w = 0;
            for (int i = 0; i < 8; i++) {
                int b = rnd.nextInt(3) == 0 ? interesting[rnd.nextInt(interesting.length)] : rnd.nextInt(256);
                w |= (long) b << (8 * i);
            }
            final long word = w;
            for (int limit : new int[] {0x20, 0x21, 0x80}) {
                assertEquals(firstScalar(word, c -> c < limit), first(Swar.lessMask(word, limit)), () -> Long.toHexString(word));
            }
            for (int target : new int[] {'\n', '?', 0x7F, 0x00, 0xFF}) {
                assertEquals(firstScalar(word, c -> c == target), first(Swar.equalMask(word, Swar.broadcast(target))), () -> Long.toHexString(word));
            }
            assertEquals(firstScalar(word, c -> c == 0), first(Swar.zeroMask(word)));
        }
    }

    @Test
    void wordsReadLittleEndianPutTheFirstByteLowest() {
        ByteBuffer b = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
        b.put(0, "abc\rdefg".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(3, Swar.firstIndex(Swar.equalMask(b.getLong(0), Swar.broadcast('\r'))));
        assertEquals(Ascii.packLong("abc\rdefg"), b.getLong(0));
        assertEquals(0x4141_4141_4141_4141L, Swar.broadcast('A'));
    }

    @Test
    void wordReadsWhatGetLongReadsFromALittleEndianBufferAndChecksItsIndex() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (ByteBuffer b : new ByteBuffer[] {ByteBuffer.allocateDirect(64), ByteBuffer.allocate(64)}) {
            b.order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 64; i++) {
                b.put(i, (byte) rnd.nextInt(256));
            }
            for (int i = 0; i <= 56; i++) {
                assertEquals(b.getLong(i), Swar.word(b, i), "index " + i);
            }
            b.limit(40);
            assertEquals(b.getLong(32), Swar.word(b, 32));
            ByteBuffer limited = b;
            assertThrows(IndexOutOfBoundsException.class, () -> Swar.word(limited, 33)); // past the limit, as getLong
            assertThrows(IndexOutOfBoundsException.class, () -> Swar.word(limited, -1));
            assertEquals(b.getLong(8), Swar.word(b.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN), 8));
        }
    }

    private static boolean alnumDash(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-';
    }

    @Test
    void notAlnumDashMaskIsExactInEveryLane() {
        SplittableRandom rnd = new SplittableRandom(9);
        for (int n = 0; n < 100_000; n++) {
            long w = rnd.nextLong();
            if (n < 256 * 8) {
                // every byte value in every lane, among letters
                w = Ascii.packLong("abcdefgh") & ~(0xFFL << (8 * (n / 256))) | (long) (n % 256) << (8 * (n / 256));
            }
            long mask = Swar.notAlnumDashMask(w);
            for (int i = 0; i < 8; i++) {
                int c = (int) (w >>> (8 * i)) & 0xFF;
                boolean marked = (mask >>> (8 * i + 7) & 1) != 0;
                assertEquals(!alnumDash(c), marked, "byte " + c + " in lane " + i + " of " + Long.toHexString(w));
            }
            assertEquals(0, mask & ~0x8080_8080_8080_8080L);
        }
    }

    @Test
    void controlAndTargetStopMasksAreExactInEveryLane() {
        SplittableRandom rnd = new SplittableRandom(27);
        for (int n = 0; n < 100_000; n++) {
            long w = rnd.nextLong();
            if (n < 256 * 8) {
                // every byte value in every lane, among visible bytes
                w = Ascii.packLong("abcdefgh") & ~(0xFFL << (8 * (n / 256))) | (long) (n % 256) << (8 * (n / 256));
            }
            long controls = Swar.controlMask(w);
            long targetStop = Swar.targetStopMask(w);
            for (int i = 0; i < 8; i++) {
                int c = (int) (w >>> (8 * i)) & 0xFF;
                assertEquals(c < 0x20 || c == 0x7F, (controls >>> (8 * i + 7) & 1) != 0, "control " + c + " in lane " + i);
                assertEquals(c < 0x21 || c > 0x7E || c == '?' || c == '#', (targetStop >>> (8 * i + 7) & 1) != 0,
                        "target stop " + c + " in lane " + i);
            }
            assertEquals(0, (controls | targetStop) & ~0x8080_8080_8080_8080L);
        }
    }
}
