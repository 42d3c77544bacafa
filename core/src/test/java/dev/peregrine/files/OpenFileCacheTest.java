package dev.peregrine.files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link OpenFileCache}: LRU bound, validation by size/time/inode, and closing only once no response sends the file. */
class OpenFileCacheTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void leastRecentlyUsedOutAndClosedWhenNotLent() throws Exception {
        OpenFileCache cache = new OpenFileCache(2);
        OpenFileCache.OpenFile a = cache.open(PathKey.of("a"), file("a", "A"));
        OpenFileCache.OpenFile b = cache.open(PathKey.of("b"), file("b", "B"));
        assertSame(a, cache.lookup(PathKey.of("a"))); // a is now the most recent
        OpenFileCache.OpenFile c = cache.open(PathKey.of("c"), file("c", "C"));
        assertEquals(2, cache.openCount());
        assertFalse(b.channel.isOpen(), "b was the eldest");
        assertNull(cache.lookup(PathKey.of("b")));
        assertSame(a, cache.lookup(PathKey.of("a")));
        assertSame(c, cache.lookup(PathKey.of("c")));
        cache.close();
        assertFalse(a.channel.isOpen());
        assertFalse(c.channel.isOpen());
        assertEquals(0, cache.openCount());
    }

    @Test
    void aLentFileOutlivesItsEvictionUntilReleased() throws Exception {
        OpenFileCache cache = new OpenFileCache(1);
        OpenFileCache.OpenFile a = cache.open(PathKey.of("a"), file("a", "hello"));
        FileChannel lent = cache.lend(a);
        assertNotNull(lent);
        cache.open(PathKey.of("b"), file("b", "B")); // evicts a while it is being sent
        assertTrue(a.channel.isOpen());
        ByteBuffer buf = ByteBuffer.allocate(5);
        lent.read(buf, 0);
        assertEquals("hello", new String(buf.array(), StandardCharsets.US_ASCII));
        assertEquals(2, cache.openCount());
        lent.close();
        assertFalse(a.channel.isOpen(), "closed by the last release");
        assertNull(cache.lend(a), "a closed file is not lent again");
        assertEquals(1, cache.openCount());
        assertThrows(java.nio.channels.NonWritableChannelException.class, () -> cache.lend(cache.lookup(PathKey.of("b"))).write(ByteBuffer.allocate(1)));
        cache.close();
    }

    @Test
    void aChangedOrRemovedFileIsDropped() throws Exception {
        OpenFileCache cache = new OpenFileCache(4);
        Path p = file("a", "one");
        OpenFileCache.OpenFile a = cache.open(PathKey.of("a"), p);
        assertSame(a, cache.lookup(PathKey.of("a")));
        Files.writeString(p, "three");
        assertNull(cache.lookup(PathKey.of("a")), "size changed");
        assertFalse(a.channel.isOpen());
        OpenFileCache.OpenFile a2 = cache.open(PathKey.of("a"), p);
        Files.setLastModifiedTime(p, FileTime.fromMillis(a2.modifiedMillis + 2000));
        assertNull(cache.lookup(PathKey.of("a")), "time changed");
        OpenFileCache.OpenFile a3 = cache.open(PathKey.of("a"), p);
        Files.delete(p);
        Files.writeString(dir.resolve("x"), "three");
        Files.move(dir.resolve("x"), p);
        Files.setLastModifiedTime(p, FileTime.fromMillis(a3.modifiedMillis));
        assertNull(cache.lookup(PathKey.of("a")), "another inode with the same size and time");
        cache.open(PathKey.of("a"), p);
        Files.delete(p);
        assertNull(cache.lookup(PathKey.of("a")), "removed");
        assertEquals(0, cache.openCount());
        cache.close();
    }

    @Test
    void withinItsValidityAnEntryIsTrustedWithoutAStatAndSmallFilesAreHeldInMemory() throws Exception {
        OpenFileCache cache = new OpenFileCache(4, 3_600_000);
        Path p = file("a", "one");
        OpenFileCache.OpenFile a = cache.open(PathKey.of("a"), p);
        assertEquals("one", new String(a.bytes, StandardCharsets.US_ASCII));
        Files.writeString(p, "three");
        assertSame(a, cache.lookup(PathKey.of("a")), "trusted for an hour: no stat saw the change");
        cache.close();
        OpenFileCache strict = new OpenFileCache(4, 0);
        OpenFileCache.OpenFile b = strict.open(PathKey.of("a"), p);
        assertEquals("three", new String(b.bytes, StandardCharsets.US_ASCII));
        // Another size: "three" and a five-byte rewrite in the same mtime tick (the filesystem's clock
        // granularity) on the same inode are indistinguishable to a stat, which made this flaky.
        Files.writeString(p, "four!!");
        assertNull(strict.lookup(PathKey.of("a")), "validated on every lookup");
        Path large = Files.write(dir.resolve("large"), new byte[OpenFileCache.IN_MEMORY_MAX + 1]);
        assertNull(strict.open(PathKey.of("large"), large).bytes, "above IN_MEMORY_MAX: sent from the file");
        strict.close();
    }
}
