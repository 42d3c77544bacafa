package dev.peregrine.transport.choice;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.transport.epoll.EpollAvailability;
import dev.peregrine.transport.iouring.IoUringAvailability;
import dev.peregrine.transport.nio.NioTransport;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How {@code Server} picks its transport from the setting and from what the platform offers. */
class TransportChoiceTest {
    private static final String WHY = "no native library for this test";

    @Test
    void nioWhenAskedEvenWhereEpollRuns() {
        assertInstanceOf(NioTransport.class, TransportChoice.select(Transport.parse("nio"), () -> null));
        assertInstanceOf(NioTransport.class, TransportChoice.select(Transport.parse(" NIO "), () -> null));
    }

    @Test
    void autoPrefersEpollWhereItRuns() {
        assertEquals("epoll", TransportChoice.select(Transport.AUTO, () -> null).name());
    }

    @Test
    void autoFallsBackToNioWhereEpollCannotRun() {
        assertInstanceOf(NioTransport.class, TransportChoice.select(Transport.AUTO, () -> WHY));
    }

    @Test
    void forcedEpollWhereItCannotRunFailsWithTheReason() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TransportChoice.select(Transport.EPOLL, () -> WHY));
        assertTrue(e.getMessage().contains(WHY), e.getMessage());
        assertTrue(e.getMessage().contains("epoll"), e.getMessage());
    }

    @Test
    void ioUringWhenAskedAndItRuns() {
        assertEquals(Transport.IO_URING, Transport.parse("io_uring"));
        assertEquals(Transport.IO_URING, Transport.parse(" IOURING "));
        assertEquals("io_uring", Transport.IO_URING.id());
        assertEquals("io_uring", TransportChoice.select(Transport.IO_URING, () -> null, () -> null).name());
    }

    /** Asked for io_uring where it cannot run: one INFO line naming the reason, then the next transport. */
    @Test
    void ioUringWhereItCannotRunFallsBackToEpollThenNioWithOneInfoLine() {
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.peregrine");
        List<java.util.logging.LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler h = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(h);
        try {
            assertEquals("epoll", TransportChoice.select(Transport.IO_URING, () -> null, () -> WHY).name());
            assertEquals(1, records.size());
            assertEquals(java.util.logging.Level.INFO, records.get(0).getLevel());
            String line = java.text.MessageFormat.format(records.get(0).getMessage(), records.get(0).getParameters());
            assertTrue(line.contains(WHY) && line.contains("io_uring") && line.contains("using epoll"), line);
            records.clear();
            assertInstanceOf(NioTransport.class, TransportChoice.select(Transport.IO_URING, () -> "no epoll either", () -> WHY));
            assertEquals(1, records.size());
            line = java.text.MessageFormat.format(records.get(0).getMessage(), records.get(0).getParameters());
            assertTrue(line.contains(WHY) && line.contains("no epoll either") && line.contains("using nio"), line);
        } finally {
            jul.removeHandler(h);
        }
    }

    @Test
    void autoNeverPicksIoUring() {
        assertEquals("epoll", TransportChoice.select(Transport.AUTO, () -> null, () -> null).name());
    }

    @Test
    void ioUringStartsWhereTheKernelAllowsIt() {
        org.junit.jupiter.api.Assumptions.assumeTrue(IoUringAvailability.isAvailable(),
                () -> "io_uring unavailable here: " + IoUringAvailability.unavailabilityReason());
        try (Server s = Server.builder().host("127.0.0.1").port(0).threads(1).transport("io_uring").start()) {
            assertEquals(Transport.IO_URING, s.transport());
        }
    }

    @Test
    void unknownNameFailsNamingTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Transport.parse("kqueue"));
        assertEquals("unknown transport 'kqueue' (expected auto, epoll, io_uring or nio)", e.getMessage());
        IllegalArgumentException viaBuilder = assertThrows(IllegalArgumentException.class,
                () -> Server.builder().port(0).transport("kqueue")); // at the call, not at start
        assertTrue(viaBuilder.getMessage().contains("kqueue"), viaBuilder.getMessage());
    }

    /** Netty ships epoll natives for Linux on x86-64 and aarch64: there auto must find them. */
    @Test
    void autoStartsOnEpollOnLinuxWithShippedNatives() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch");
        boolean shipped = os.startsWith("linux") && (arch.equals("amd64") || arch.equals("aarch64"));
        if (shipped) {
            assertNull(EpollAvailability.unavailabilityReason());
        }
        try (Server s = Server.builder().host("127.0.0.1").port(0).threads(1).transport("auto").start()) {
            assertEquals(shipped ? Transport.EPOLL : Transport.NIO, s.transport());
        }
    }

    @Test
    void systemPropertyChoosesTheTransport() {
        String before = System.getProperty("peregrine.transport");
        System.setProperty("peregrine.transport", "nio");
        try (Server s = Server.builder().host("127.0.0.1").port(0).threads(1).start()) {
            assertEquals(Transport.NIO, s.transport());
        } finally {
            if (before == null) {
                System.clearProperty("peregrine.transport");
            } else {
                System.setProperty("peregrine.transport", before);
            }
        }
    }
}
