package dev.peregrine.files;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** {@link PathKey}: a probe decoded from request bytes finds the key stored for the same decoded path. */
class PathKeyTest {
    private static PathKey decoded(String raw) {
        byte[] b = ("xx" + raw + "yy").getBytes(StandardCharsets.ISO_8859_1); // the range, not the whole buffer
        return PathKey.probe().decode(ByteBuffer.wrap(b), 2, 2 + raw.length());
    }

    @Test
    void aDecodedProbeEqualsTheStoredKeyOfTheSameString() {
        Map<PathKey, String> map = new HashMap<>();
        map.put(PathKey.of("css/a b.css"), "a b");
        map.put(PathKey.of("caf\u00e9.txt"), "cafe");
        assertEquals("a b", map.get(decoded("css/a%20b.css")));
        assertEquals("a b", map.get(decoded("css/a%20b%2ecss")));
        assertEquals("cafe", map.get(decoded("caf%C3%A9.txt")), "percent-decoded bytes, read as UTF-8 only by the String");
        assertEquals("cafe", map.get(decoded("caf%c3%a9.txt")));
        assertNull(map.get(decoded("css/a%20b.cs")));
        assertNull(map.get(decoded("css/a+b.css")), "'+' is a plus in a path");
    }

    @Test
    void aPercentWithoutTwoHexDigitsStaysAsItIs() {
        assertEquals(PathKey.of("100%"), decoded("100%").copy());
        assertEquals(PathKey.of("a%zzb"), decoded("a%zzb").copy());
        assertEquals(PathKey.of("a%2"), decoded("a%2").copy());
        assertEquals(PathKey.of("a%"), decoded("a%25").copy());
    }

    @Test
    void aSiblingSuffixMakesAnotherKeyAndTruncateComesBack() {
        PathKey probe = decoded("a.css");
        int n = probe.length();
        PathKey sibling = probe.appendSibling(".gz").copy();
        assertNotEquals(PathKey.of("a.css.gz"), sibling, "NUL before the suffix: never a request's path");
        assertEquals(PathKey.of("a.css\0.gz"), sibling);
        assertEquals(PathKey.of("a.css"), probe.truncate(n));
        assertEquals(PathKey.of("a.css").hashCode(), probe.hashCode());
    }

    @Test
    void theProbeGrowsForLongPathsAndIsOneAThread() {
        String longPath = "d/".repeat(200) + "f";
        assertEquals(PathKey.of(longPath), decoded(longPath).copy());
        assertSame(PathKey.probe(), PathKey.probe());
    }
}
