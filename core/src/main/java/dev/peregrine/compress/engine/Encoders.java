package dev.peregrine.compress.engine;

import dev.peregrine.compress.Coding;

import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Map;

/**
 * A loop's encoders: one per coding for whole bodies (used and finished within one call, so one is
 * enough), and a free list per coding for streamed bodies, of which several may be under way at once
 * on one loop (one per connection). A stream's encoder is borrowed when its head is written and given
 * back when the body ends or is abandoned; at most {@link #IDLE_PER_CODING} wait per coding, the rest
 * are closed. Encoders are made at first use, so a coding no client asks for costs nothing.
 *
 * <p>Thread: the owning loop.
 */
public final class Encoders {
    /** Idle stream encoders kept per coding; more are closed when given back. */
    static final int IDLE_PER_CODING = 8;

    private final int deflateLevel;
    private final int brotliQuality;
    private final int brotliWindow;
    private final int zstdLevel;
    private final Map<Coding, Encoder> whole = new EnumMap<>(Coding.class);
    private final Map<Coding, ArrayDeque<Encoder>> idle = new EnumMap<>(Coding.class);
    private int lent;

    public Encoders(int deflateLevel, int brotliQuality, int brotliWindow, int zstdLevel) {
        this.deflateLevel = deflateLevel;
        this.brotliQuality = brotliQuality;
        this.brotliWindow = brotliWindow;
        this.zstdLevel = zstdLevel;
    }

    /** The encoder for whole bodies in {@code coding}: begin, write and finish it in one go. */
    public Encoder whole(Coding coding) {
        Encoder e = whole.get(coding);
        if (e == null) {
            e = create(coding);
            whole.put(coding, e);
        }
        return e;
    }

    /** An encoder for one streamed body in {@code coding}, begun; give it back with {@link #giveBack}. */
    public Encoder borrow(Coding coding) {
        ArrayDeque<Encoder> q = idle.get(coding);
        Encoder e = q == null ? null : q.pollFirst();
        if (e == null) {
            e = create(coding);
        }
        lent++;
        e.begin();
        return e;
    }

    /** The stream of {@code e} ended or was abandoned. */
    public void giveBack(Encoder e) {
        lent--;
        ArrayDeque<Encoder> q = idle.computeIfAbsent(e.coding(), k -> new ArrayDeque<>());
        if (q.size() < IDLE_PER_CODING) {
            e.clearOut();
            q.addFirst(e);
        } else {
            e.close();
        }
    }

    /** Stream encoders borrowed and not yet given back. */
    public int lent() {
        return lent;
    }

    /** Closes every encoder held here (the loop stopped). Lent ones are closed by their streams' ends. */
    public void close() {
        whole.values().forEach(Encoder::close);
        whole.clear();
        idle.values().forEach(q -> q.forEach(Encoder::close));
        idle.clear();
    }

    private Encoder create(Coding coding) {
        switch (coding) {
            case GZIP:
                return new DeflateEncoder(true, deflateLevel);
            case DEFLATE:
                return new DeflateEncoder(false, deflateLevel);
            case BR:
                return new BrotliEncoder(brotliQuality, brotliWindow);
            case ZSTD:
                return new ZstdEncoder(zstdLevel);
            default:
                throw new IllegalArgumentException(coding.toString());
        }
    }
}
