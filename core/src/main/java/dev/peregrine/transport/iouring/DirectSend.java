package dev.peregrine.transport.iouring;

import io.netty.channel.IoRegistration;
import io.netty.channel.uring.IoUringIoHandler;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * One loop's {@code IORING_OP_SEND} entries, written straight into Netty's submission queue: the entry
 * names the bytes itself (address and length), so the kernel imports no {@code msghdr} and no
 * {@code iovec} per send as it does for {@code IORING_OP_SENDMSG} (its {@code io_sendmsg_setup}, which
 * copies the {@code msghdr} in and imports the {@code iovec}: 1.9% of the time under {@code tcp_sendmsg}
 * pipelined and 2.7% keep-alive in {@code scripts/profile io_uring}, 0.1-0.2% as a {@code SEND}; one send
 * per keep-alive request, one per 16 pipelined).
 *
 * <p><b>Why not through Netty's public API.</b> {@code IoUringIoOps} is immutable and names the address
 * and length, so a send through {@code IoRegistration.submit} needs an object per send (64 bytes): the
 * JIT removes it only where it inlines the whole submit into the caller, and on the server's path it does
 * not (measured 74 B per keep-alive request on the loop), while the request path allocates nothing. So
 * this does what Netty's own fast path does ({@code DefaultIoUringIoRegistration.submitFastPath0}):
 * {@code SubmissionQueue.enqueueSqe} with the entry's fields, and the registration's count of
 * outstanding completions up by one (Netty counts it down at each last completion). Both are
 * package-private in Netty 4.2.18 (pinned in the parent pom), reached once through
 * {@code privateLookupIn} as {@link RecvRing} reaches the buffer ring: allowed on the class path, where
 * Netty's packages are open to us; on the module path only with
 * {@code --add-opens io.netty.transport.classes.io_uring/io.netty.channel.uring=dev.peregrine}. Where the
 * access cannot be had, {@link #of} returns null (one INFO line) and sends stay {@code SENDMSG}s with a
 * constant entry ({@link NettyIoUring.Fd#send}).
 *
 * <p>The queue is found from the registration Netty hands the socket group's first completion
 * ({@code DefaultIoUringIoRegistration}, whose enclosing handler holds the ring), so a loop sends
 * through Netty's API until a completion has come; the user data is {@link RingSockets#userData},
 * which every submit through Netty checks.
 *
 * <p>Thread: the loop (as Netty's fast path: the queue is the loop thread's alone).
 */
final class DirectSend {
    private static final byte IORING_OP_SEND = 26;
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    private static volatile boolean unavailableSaid;

    /** The loop's {@code SubmissionQueue}. */
    private final Object queue;

    private DirectSend(Object queue) {
        this.queue = queue;
    }

    /**
     * The direct sends of the loop whose handler made {@code registration} (the one Netty passes a
     * completion's handle), or null: the access is missing (one INFO line per JVM) or the registration
     * is not Netty's own.
     */
    static DirectSend of(IoRegistration registration) {
        String why = Access.UNAVAILABLE;
        if (why == null && !Access.REGISTRATION.isInstance(registration)) {
            why = "the registration is a " + registration.getClass().getName();
        }
        if (why == null) {
            try {
                Object handler = Access.HANDLER.invokeExact((Object) registration);
                Object ring = Access.RING.invokeExact(handler);
                Object queue = Access.QUEUE.invokeExact(ring);
                if (queue != null) {
                    return new DirectSend(queue);
                }
                why = "Netty's loop has no submission queue";
            } catch (Throwable t) {
                why = t.toString();
            }
        }
        if (!unavailableSaid) {
            unavailableSaid = true;
            LOG.log(System.Logger.Level.INFO, "io_uring: sends are IORING_OP_SENDMSG (" + why + ")");
        }
        return null;
    }

    /**
     * Queues a non-blocking send of {@code length} bytes at native {@code address} on {@code fd}, with
     * {@code userData}, for the next {@code io_uring_enter}, and counts its completion on
     * {@code registration} (Netty's own, of this loop: the one {@link #of} was given, or another of its
     * kind from the same loop).
     */
    void send(IoRegistration registration, int fd, long address, int length, int msgFlags, long userData) {
        try {
            long queued = (long) Access.ENQUEUE.invokeExact(queue, IORING_OP_SEND, (byte) 0, (short) 0, fd, 0L,
                    address, length, msgFlags, userData, (short) 0, (short) 0, 0, 0L); // returns userData
            int outstanding = (int) Access.OUTSTANDING.invokeExact((Object) registration);
            Access.SET_OUTSTANDING.invokeExact((Object) registration, outstanding + 1);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("io_uring: direct send failed", t);
        }
    }

    /** The package-private steps into Netty 4.2.18, found once. Thread: any; immutable. */
    private static final class Access {
        /** {@code DefaultIoUringIoRegistration}. */
        static final Class<?> REGISTRATION;
        /** Its enclosing {@code IoUringIoHandler} ({@code this$0}), as {@code (Object) Object}. */
        static final MethodHandle HANDLER;
        /** {@code IoUringIoHandler.ringBuffer}, as {@code (Object) Object}. */
        static final MethodHandle RING;
        /** {@code RingBuffer.ioUringSubmissionQueue()}, as {@code (Object) Object}. */
        static final MethodHandle QUEUE;
        /** {@code SubmissionQueue.enqueueSqe(...)}, the queue as {@code Object}. */
        static final MethodHandle ENQUEUE;
        /** The registration's {@code outstandingCompletions}: getter and setter, the registration as {@code Object}. */
        static final MethodHandle OUTSTANDING;
        static final MethodHandle SET_OUTSTANDING;
        /** Why they cannot be had, or null. */
        static final String UNAVAILABLE;

        static {
            Class<?> registration = null;
            MethodHandle handler = null;
            MethodHandle ring = null;
            MethodHandle queue = null;
            MethodHandle enqueue = null;
            MethodHandle outstanding = null;
            MethodHandle setOutstanding = null;
            String why = null;
            try {
                ClassLoader loader = IoUringIoHandler.class.getClassLoader();
                registration = Class.forName("io.netty.channel.uring.IoUringIoHandler$DefaultIoUringIoRegistration", false, loader);
                Class<?> ringClass = Class.forName("io.netty.channel.uring.RingBuffer", false, loader);
                Class<?> queueClass = Class.forName("io.netty.channel.uring.SubmissionQueue", false, loader);
                MethodHandles.Lookup l = MethodHandles.privateLookupIn(IoUringIoHandler.class, MethodHandles.lookup());
                MethodHandles.Lookup r = MethodHandles.privateLookupIn(registration, MethodHandles.lookup());
                MethodType object = MethodType.methodType(Object.class, Object.class);
                handler = r.findGetter(registration, "this$0", IoUringIoHandler.class).asType(object);
                ring = l.findGetter(IoUringIoHandler.class, "ringBuffer", ringClass).asType(object);
                queue = l.findVirtual(ringClass, "ioUringSubmissionQueue", MethodType.methodType(queueClass)).asType(object);
                enqueue = l.findVirtual(queueClass, "enqueueSqe", MethodType.methodType(long.class, byte.class, byte.class,
                                short.class, int.class, long.class, long.class, int.class, int.class, long.class, short.class,
                                short.class, int.class, long.class))
                        .asType(MethodType.methodType(long.class, Object.class, byte.class, byte.class, short.class,
                                int.class, long.class, long.class, int.class, int.class, long.class, short.class,
                                short.class, int.class, long.class));
                outstanding = r.findGetter(registration, "outstandingCompletions", int.class)
                        .asType(MethodType.methodType(int.class, Object.class));
                setOutstanding = r.findSetter(registration, "outstandingCompletions", int.class)
                        .asType(MethodType.methodType(void.class, Object.class, int.class));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                why = e.toString();
            }
            REGISTRATION = why == null ? registration : null;
            HANDLER = handler;
            RING = ring;
            QUEUE = queue;
            ENQUEUE = enqueue;
            OUTSTANDING = outstanding;
            SET_OUTSTANDING = setOutstanding;
            UNAVAILABLE = why;
        }

        private Access() {
        }
    }
}
