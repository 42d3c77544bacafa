package dev.peregrine.proxy;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CidrTest {
    private static InetAddress a(String literal) throws UnknownHostException {
        return InetAddress.getByName(literal);
    }

    @Test
    void ipv4Blocks() throws Exception {
        Cidr ten = Cidr.parse("10.0.0.0/8");
        assertTrue(ten.contains(a("10.255.1.2")));
        assertFalse(ten.contains(a("11.0.0.0")));
        assertFalse(ten.contains(a("::1")));
        Cidr odd = Cidr.parse("192.168.4.0/22");
        assertTrue(odd.contains(a("192.168.7.255")));
        assertFalse(odd.contains(a("192.168.8.0")));
        assertTrue(Cidr.parse("0.0.0.0/0").contains(a("203.0.113.1")));
        assertTrue(Cidr.parse("127.0.0.1").contains(a("127.0.0.1")));
        assertFalse(Cidr.parse("127.0.0.1").contains(a("127.0.0.2")));
    }

    @Test
    void ipv6Blocks() throws Exception {
        Cidr ula = Cidr.parse("fd00::/8");
        assertTrue(ula.contains(a("fd12:3456::1")));
        assertFalse(ula.contains(a("fe80::1")));
        assertFalse(ula.contains(a("10.0.0.1")));
        assertTrue(Cidr.parse("::1").contains(a("::1")));
        assertTrue(Cidr.parse("2001:db8::/33").contains(a("2001:db8:7fff::1")));
        assertFalse(Cidr.parse("2001:db8::/33").contains(a("2001:db8:8000::1")));
    }

    @Test
    void ipv4MappedAddressesMatchTheirIpv4Block() throws Exception {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xFF;
        mapped[11] = (byte) 0xFF;
        mapped[12] = 10;
        mapped[15] = 7;
        InetAddress v6 = java.net.Inet6Address.getByAddress(null, mapped, null);
        assertTrue(Cidr.parse("10.0.0.0/8").contains(v6));
        assertTrue(Cidr.parse("::ffff:10.0.0.0/104").contains(a("10.0.0.7")));
    }

    @Test
    void onlyLiteralsWithSensiblePrefixesParse() {
        for (String bad : new String[]{"", "localhost", "example.com", "10.0.0.0/33", "::/129", "10.0.0/8", "10.0.0.256",
                "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "1.2.3.4.5", "10.1.0.0/8", "fe80::/x", "gg::1", "01.2.3.4x"}) {
            assertThrows(IllegalArgumentException.class, () -> Cidr.parse(bad), bad);
        }
        assertEquals("10.0.0.0/8", Cidr.parse(" 10.0.0.0/8 ").toString());
    }

    @Test
    void proxyProtocolParsesTheOutsideForm() throws Exception {
        ProxyProtocol p = ProxyProtocol.parse("10.0.0.0/8, 127.0.0.1,::1");
        assertEquals(3, p.trusted().size());
        assertTrue(p.trusts(a("10.1.1.1")));
        assertTrue(p.trusts(a("::1")));
        assertFalse(p.trusts(a("192.0.2.1")));
        assertThrows(IllegalArgumentException.class, () -> ProxyProtocol.parse(""));
        assertThrows(IllegalArgumentException.class, () -> ProxyProtocol.parse("10.0.0.0/8,,127.0.0.1"));
        assertThrows(IllegalArgumentException.class, () -> ProxyProtocol.trusting());
        assertThrows(IllegalArgumentException.class, () -> p.maxHeaderLength(100));
        assertEquals(1024, p.maxHeaderLength(1024).maxHeaderLength());
    }
}
