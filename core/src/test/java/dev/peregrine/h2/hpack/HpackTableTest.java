package dev.peregrine.h2.hpack;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The dynamic table against a plain model of RFC 7541 §4 (a deque of entries, evicted oldest first
 * until the new one fits, an entry larger than the table emptying it): random names and values, table
 * size updates, and the ring growing from nothing up to its capacity while entries wrap around it.
 */
class HpackTableTest {
    private record Entry(String name, String value) {
        int size() {
            return name.length() + value.length() + HpackTable.ENTRY_OVERHEAD;
        }
    }

    private static String text(Random r, int max) {
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(max + 1);
        for (int i = 0; i < n; i++) {
            b.append((char) ('a' + r.nextInt(26)));
        }
        return b.toString();
    }

    private static String read(HpackTable t, int index, boolean name) {
        ByteBuffer dst = ByteBuffer.allocate(8192);
        int end = name ? t.copyName(index, dst, 0) : t.copyValue(index, dst, 0);
        return new String(dst.array(), 0, end, StandardCharsets.ISO_8859_1);
    }

    @Test
    void matchesTheModelThroughGrowthWrapAndSizeUpdates() {
        for (int seed = 0; seed < 50; seed++) {
            Random r = new Random(seed);
            int capacity = 64 + r.nextInt(4096);
            HpackTable t = new HpackTable(capacity);
            ArrayDeque<Entry> model = new ArrayDeque<>(); // newest first
            int maxSize = capacity;
            for (int step = 0; step < 400; step++) {
                if (r.nextInt(40) == 0) {
                    maxSize = r.nextInt(capacity + 1);
                    t.maxSize(maxSize);
                } else {
                    Entry e = new Entry(text(r, 40), text(r, r.nextInt(10) == 0 ? 600 : 60));
                    t.add(e.name().getBytes(StandardCharsets.ISO_8859_1), e.value().getBytes(StandardCharsets.ISO_8859_1));
                    if (e.size() > maxSize) {
                        model.clear();
                    } else {
                        model.addFirst(e);
                    }
                }
                int size = 0;
                List<Entry> kept = new ArrayList<>();
                for (Iterator<Entry> it = model.iterator(); it.hasNext(); ) {
                    Entry e = it.next();
                    if (size + e.size() > maxSize) {
                        it.remove();
                        while (it.hasNext()) {
                            it.next();
                            it.remove();
                        }
                        break;
                    }
                    size += e.size();
                    kept.add(e);
                }
                assertEquals(kept.size(), t.dynamicCount(), "seed " + seed + " step " + step);
                assertEquals(size, t.size(), "seed " + seed + " step " + step);
                for (int i = 0; i < kept.size(); i++) {
                    int index = HpackTable.STATIC_COUNT + 1 + i;
                    assertEquals(kept.get(i).name(), read(t, index, true), "seed " + seed + " step " + step + " index " + index);
                    assertEquals(kept.get(i).value(), read(t, index, false), "seed " + seed + " step " + step + " index " + index);
                }
            }
        }
    }
}
