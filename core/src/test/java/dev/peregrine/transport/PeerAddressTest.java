package dev.peregrine.transport;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class PeerAddressTest {
    @Test
    void ipv4AddressesAndPortsComeBackEqual() throws Exception {
        for (String ip : new String[] {"127.0.0.1", "0.0.0.0", "255.255.255.255", "10.128.0.255", "192.168.1.200"}) {
            for (int port : new int[] {0, 1, 80, 32768, 65535}) {
                InetSocketAddress a = new InetSocketAddress(InetAddress.getByName(ip), port);
                long packed = PeerAddress.pack(a);
                assertNotEquals(PeerAddress.NONE, packed, ip);
                InetSocketAddress back = PeerAddress.unpack(packed);
                assertEquals(a, back);
                assertEquals(ip, back.getAddress().getHostAddress());
                assertEquals(port, back.getPort());
            }
        }
    }

    @Test
    void whatIsNotAResolvedIpv4AddressIsKeptAsItIs() throws Exception {
        assertEquals(PeerAddress.NONE, PeerAddress.pack(new InetSocketAddress(InetAddress.getByName("::1"), 8080)));
        assertEquals(PeerAddress.NONE, PeerAddress.pack(InetSocketAddress.createUnresolved("example.com", 80)));
        assertEquals(PeerAddress.NONE, PeerAddress.pack(null));
    }
}
