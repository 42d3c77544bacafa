package dev.peregrine.offloop;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where blocking handlers run: one virtual thread per task when the JVM is 21 or newer (found at run
 * time through {@link MethodHandles}, since the library is compiled for 17), otherwise a platform pool
 * of {@code poolSize} daemon threads whose idle threads end after 30 s; tasks beyond the pool's size
 * wait in its queue. Created on first use, so a server without blocking routes starts no thread.
 *
 * <p>Thread: any.
 */
public final class OffLoopExecutor {
    private static final MethodHandle NEW_VIRTUAL = findVirtualFactory();

    private final int poolSize;
    private volatile ExecutorService executor;
    private volatile boolean shutdown;

    /** @param poolSize platform threads when virtual threads are not available */
    public OffLoopExecutor(int poolSize) {
        this.poolSize = poolSize;
    }

    /** Whether tasks run on virtual threads (JDK 21+). */
    public static boolean virtualThreads() {
        return NEW_VIRTUAL != null;
    }

    /**
     * Runs {@code task} off the loop.
     *
     * @throws java.util.concurrent.RejectedExecutionException after {@link #shutdown()}
     */
    public void execute(Runnable task) {
        ExecutorService e = executor;
        if (e == null) {
            e = create();
        }
        e.execute(task);
    }

    private synchronized ExecutorService create() {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("server closed");
        }
        if (executor == null) {
            executor = NEW_VIRTUAL != null ? newVirtual() : newPlatformPool(poolSize);
        }
        return executor;
    }

    /** Accepts no more tasks; running ones carry on. */
    public synchronized void shutdown() {
        shutdown = true;
        if (executor != null) {
            executor.shutdown();
        }
    }

    private static ExecutorService newVirtual() {
        try {
            return (ExecutorService) NEW_VIRTUAL.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("cannot create a virtual-thread executor", t);
        }
    }

    private static ExecutorService newPlatformPool(int size) {
        AtomicInteger n = new AtomicInteger();
        ThreadFactory f = r -> {
            Thread t = new Thread(r, "peregrine-blocking-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        ThreadPoolExecutor pool = new ThreadPoolExecutor(size, size, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), f);
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static MethodHandle findVirtualFactory() {
        if (Runtime.version().feature() < 21) {
            return null;
        }
        try {
            return MethodHandles.publicLookup().findStatic(Executors.class, "newVirtualThreadPerTaskExecutor",
                    MethodType.methodType(ExecutorService.class));
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }
}
