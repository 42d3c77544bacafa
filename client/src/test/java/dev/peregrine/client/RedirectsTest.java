package dev.peregrine.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The redirect rules alone: method, body, headers and target of the next hop. */
class RedirectsTest {
    private static ClientRequest post(String url) {
        return ClientRequest.builder("POST", url).header("Content-Type", "text/plain").header("Authorization", "Bearer t")
                .header("Cookie", "s=1").header("Proxy-Authorization", "Basic p").header("Accept", "*/*").body("data").build();
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 204, 300, 304, 305, 306, 400, 404, 500})
    void otherStatusesAreTheAnswer(int status) throws Exception {
        assertNull(Redirects.next(post("http://h/a"), status, "/b"));
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 302, 303, 307, 308})
    void aRedirectWithoutLocationIsTheAnswer(int status) throws Exception {
        assertNull(Redirects.next(post("http://h/a"), status, null));
    }

    @Test
    void seeOtherBecomesGetWithoutBodyOrContentHeaders() throws Exception {
        ClientRequest next = Redirects.next(post("http://h/a"), 303, "/done");
        assertEquals("GET", next.method());
        assertEquals("http://h/done", next.uri().toString());
        assertNull(next.body());
        assertNull(next.header("Content-Type"));
        assertEquals("Bearer t", next.header("Authorization"), "same origin keeps credentials");
        assertEquals("*/*", next.header("Accept"));
        assertEquals("HEAD", Redirects.next(ClientRequest.builder("HEAD", "http://h/a").build(), 303, "/b").method());
        assertEquals("GET", Redirects.next(ClientRequest.builder("DELETE", "http://h/a").build(), 303, "/b").method());
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 302})
    void movedAndFoundTurnPostIntoGetButKeepOtherMethods(int status) throws Exception {
        ClientRequest get = Redirects.next(post("http://h/a"), status, "/b");
        assertEquals("GET", get.method());
        assertNull(get.body());
        assertNull(get.header("Content-Type"));
        ClientRequest put = Redirects.next(ClientRequest.builder("PUT", "http://h/a").header("Content-Type", "x/y").body("v").build(), status, "/b");
        assertEquals("PUT", put.method());
        assertArrayEquals("v".getBytes(StandardCharsets.UTF_8), put.body());
        assertEquals("x/y", put.header("Content-Type"));
    }

    @ParameterizedTest
    @ValueSource(ints = {307, 308})
    void temporaryAndPermanentRedirectKeepMethodAndBody(int status) throws Exception {
        ClientRequest next = Redirects.next(post("http://h/a"), status, "http://h/b");
        assertEquals("POST", next.method());
        assertArrayEquals("data".getBytes(StandardCharsets.UTF_8), next.body());
        assertEquals("text/plain", next.header("Content-Type"));
        assertEquals("s=1", next.header("Cookie"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://other/b", "http://h:8080/b", "https://h/b", "//other/b"})
    void credentialsStayBehindWhenTheOriginChanges(String location) throws Exception {
        ClientRequest next = Redirects.next(post("http://h/a"), 307, location);
        assertNull(next.header("Authorization"));
        assertNull(next.header("Proxy-Authorization"));
        assertNull(next.header("Cookie"));
        assertEquals("*/*", next.header("Accept"));
        assertEquals("text/plain", next.header("Content-Type"));
    }

    @Test
    void anExplicitDefaultPortIsTheSameOrigin() throws Exception {
        assertEquals("Bearer t", Redirects.next(post("http://H/a"), 307, "http://h:80/b").header("Authorization"));
        assertEquals("Bearer t", Redirects.next(post("https://h:443/a"), 307, "https://h/b").header("Authorization"));
    }

    @Test
    void locationsResolveAgainstTheRequestUrl() throws Exception {
        assertEquals("http://h/a/c", Redirects.next(post("http://h/a/b?q=1"), 302, "c").uri().toString());
        assertEquals("http://h/x?y=1", Redirects.next(post("http://h/a/b"), 302, " /x?y=1 ").uri().toString());
        assertEquals("http://h:81/x", Redirects.next(post("http://h:81"), 302, "x").uri().toString());
        assertEquals("https://o/p", Redirects.next(post("https://h/a"), 302, "//o/p").uri().toString());
        assertEquals("/caf%C3%A9", Redirects.next(post("http://h/a"), 302, "/café").target());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ftp://h/x", "mailto:a@b", "http://[bad/", "http:///nohost", "/a b\r\nX: y"})
    void aLocationThatIsNotAnHttpUrlFailsTheCall(String location) {
        ClientException e = assertThrows(ClientException.class, () -> Redirects.next(post("http://h/a"), 302, location));
        assertEquals(ClientException.Phase.REDIRECT, e.phase());
        assertEquals("h:80", e.host());
        assertNotNull(e.getMessage());
        assertEquals(-1, e.getMessage().indexOf('\n'), "no server bytes break the error line");
    }

    @Test
    void anHttpsToHttpRedirectIsRefusedUnlessAllowed() throws Exception {
        ClientException e = assertThrows(ClientException.class, () -> Redirects.next(post("https://h/a"), 307, "http://h/b"));
        assertEquals(ClientException.Phase.REDIRECT, e.phase());
        assertTrue(e.getMessage().contains("https to http") && e.getMessage().contains("http://h/b"), e.getMessage());
        assertThrows(ClientException.class, () -> Redirects.next(post("HTTPS://h/a"), 302, "HTTP://other/"));
        assertEquals("http://h/b", Redirects.next(post("https://h/a"), 307, "http://h/b", true).uri().toString());
        assertEquals("https://h/b", Redirects.next(post("http://h/a"), 307, "https://h/b").uri().toString(), "an upgrade is fine");
        assertEquals("https://o/b", Redirects.next(post("https://h/a"), 307, "https://o/b").uri().toString());
        assertEquals("https://h/b", Redirects.next(post("https://h/a"), 307, "/b").uri().toString(), "relative: stays https");
    }
}
