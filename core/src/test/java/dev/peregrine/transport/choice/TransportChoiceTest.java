package dev.peregrine.transport.choice;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.transport.epoll.EpollAvailability;
import dev.peregrine.transport.epoll.EpollTransport;
import dev.peregrine.transport.nio.NioTransport;
import org.junit.jupiter.api.Test;

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
        assertInstanceOf(EpollTransport.class, TransportChoice.select(Transport.AUTO, () -> null));
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
    void unknownNameFailsNamingTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Transport.parse("kqueue"));
        assertEquals("unknown transport 'kqueue' (expected auto, epoll or nio)", e.getMessage());
        IllegalArgumentException viaBuilder = assertThrows(IllegalArgumentException.class,
                () -> Server.builder().port(0).transport("io_uring")); // at the call, not at start
        assertTrue(viaBuilder.getMessage().contains("io_uring"), viaBuilder.getMessage());
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
