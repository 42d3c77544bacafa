package dev.peregrine.files;

import dev.peregrine.Compression;
import dev.peregrine.compress.Coding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CompressedVariants} with its {@link OpenFileCache}: one copy per file version and coding, copies not
 * worth keeping skipped, the byte budget held and given back when entries go, and loops racing for one slot.
 */
class CompressedVariantsTest {
    @TempDir
    Path dir;

    private static byte[] text(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) ("lorem ipsum dolor sit amet ".charAt(i % 27));
        }
        return b;
    }

    private OpenFileCache.OpenFile open(OpenFileCache cache, String name, byte[] content) throws Exception {
        return cache.open(PathKey.of(name), Files.write(dir.resolve(name), content));
    }

    @Test
    void oneCopyPerVersionAndCodingCountedUntilItsEntryIsDropped() throws Exception {
        OpenFileCache cache = new OpenFileCache(1);
        CompressedVariants variants = new CompressedVariants(Compression.defaults(), cache);
        byte[] content = text(20_000);
        OpenFileCache.OpenFile f = open(cache, "a.txt", content);

        byte[] gz = variants.variant(f, Coding.GZIP);
        assertNotNull(gz);
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            assertArrayEquals(content, in.readAllBytes());
        }
        assertSame(gz, variants.variant(f, Coding.GZIP), "made once");
        assertEquals(gz.length, cache.variantBytes());
        byte[] deflate = variants.variant(f, Coding.DEFLATE);
        assertEquals(gz.length + deflate.length, cache.variantBytes());

        open(cache, "b.txt", text(5_000)); // evicts a.txt (capacity 1)
        assertEquals(0, cache.variantBytes(), "the copies went with their entry");
        assertNull(variants.variant(f, Coding.BR), "a dropped entry gets no new copy");
        variants.close();
        cache.close();
    }

    @Test
    void aCopyNotSmallerThanTheFileIsNotKept() throws Exception {
        OpenFileCache cache = new OpenFileCache(4);
        CompressedVariants variants = new CompressedVariants(Compression.defaults(), cache);
        byte[] random = new byte[8_000];
        new java.util.Random(7).nextBytes(random);
        OpenFileCache.OpenFile f = open(cache, "noise.txt", random);
        assertNull(variants.variant(f, Coding.GZIP));
        assertSame(CompressedVariants.SKIPPED, f.variant(Coding.GZIP));
        assertEquals(0, cache.variantBytes());
        variants.close();
        cache.close();
    }

    @Test
    void theBudgetBoundsWhatIsHeld() throws Exception {
        OpenFileCache cache = new OpenFileCache(4);
        OpenFileCache.OpenFile f = open(cache, "a.txt", text(10));
        byte[] almostAll = new byte[(int) CompressedVariants.BUDGET - 10];
        assertTrue(cache.claimVariant(f, Coding.GZIP));
        assertTrue(cache.holdVariant(f, Coding.GZIP, almostAll));
        assertTrue(cache.claimVariant(f, Coding.DEFLATE));
        assertFalse(cache.holdVariant(f, Coding.DEFLATE, new byte[11]), "one byte past the budget");
        assertSame(CompressedVariants.SKIPPED, f.variant(Coding.DEFLATE));
        assertEquals(almostAll.length, cache.variantBytes());
        cache.close();
        assertEquals(0, cache.variantBytes());
    }

    @Test
    void loopsRacingForOneSlotCompressOnce() throws Exception {
        OpenFileCache cache = new OpenFileCache(4);
        CompressedVariants variants = new CompressedVariants(Compression.defaults(), cache);
        OpenFileCache.OpenFile f = open(cache, "a.txt", text(60_000));
        int threads = 8;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        java.util.List<java.util.concurrent.Future<byte[]>> results = new java.util.ArrayList<>();
        for (int i = 0; i < threads; i++) {
            results.add(pool.submit(() -> {
                go.await();
                return variants.variant(f, Coding.GZIP);
            }));
        }
        go.countDown();
        int made = 0;
        for (var r : results) {
            if (r.get() != null) {
                made++; // the claimant's copy, or a later reader's view of it
            }
        }
        pool.shutdown();
        assertTrue(made >= 1);
        assertEquals(((byte[]) f.variant(Coding.GZIP)).length, cache.variantBytes(), "counted once");
        variants.close();
        cache.close();
    }
}
