package dev.peregrine.route;

import dev.peregrine.Handler;
import dev.peregrine.buffer.OutputSink;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.HeadParser;
import dev.peregrine.http1.ResponseEncoder;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Router}: static and pattern routes and the router's own answers. */
class RouterTest {
    private final Handler getUsers = (q, s) -> s.status(200);
    private final Handler postUsers = (q, s) -> s.status(201);
    private final Handler getUser = (q, s) -> s.status(200);
    private final Handler putUser = (q, s) -> s.status(200);
    private final Handler files = (q, s) -> s.status(200);
    private final Router router = Router.builder()
            .add("GET", "/users", getUsers)
            .add("POST", "/users", postUsers)
            .add("GET", "/users/{id}", getUser)
            .add("PUT", "/users/{id}", putUser)
            .add("DELETE", "/a/{x}/b/{y}", files)
            .build();

    private RequestView req(String method, String target) {
        byte[] bytes = (method + " " + target + " HTTP/1.1\r\nHost: h\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocateDirect(bytes.length).order(ByteOrder.LITTLE_ENDIAN).put(0, bytes);
        RequestView r = new RequestView(8);
        assertEquals(bytes.length, new HeadParser(1024, 4096, 8).parse(b, 0, bytes.length, r));
        return r;
    }

    private Handler resolve(RequestView r) {
        return router.resolve(r, new int[16], new int[16]);
    }

    /** Runs the router's own handler and returns the response head as text. */
    private String answer(String method, String target) throws Exception {
        RequestView r = req(method, target);
        ResponseView res = new ResponseView();
        res.reset();
        resolve(r).handle(r, res);
        ByteBuffer out = ByteBuffer.allocate(4096);
        ResponseEncoder e = new ResponseEncoder();
        e.encode(res, false, true, false, new OutputSink() {
            @Override
            public ByteBuffer out() {
                return out;
            }

            @Override
            public void drain() {
                throw new AssertionError("fits");
            }
        });
        return new String(out.array(), 0, out.position(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void staticAndPatternRoutes() {
        assertSame(getUsers, resolve(req("GET", "/users")));
        assertSame(postUsers, resolve(req("POST", "/users?x=1")));
        assertSame(getUsers, resolve(req("GET", "http://example.com/users")));
        RequestView r = req("GET", "/users/42");
        assertSame(getUser, resolve(r));
        assertEquals("42", r.pathParam("id"));
        RequestView two = req("DELETE", "/a/1/b/%7E2");
        assertSame(files, resolve(two));
        assertEquals("1", two.pathParam("x"));
        assertEquals("~2", two.pathParam("y"));
    }

    @Test
    void parametersThatCouldLeaveTheirSegmentAre400() throws Exception {
        for (String bad : new String[] {"%2F", "a%2fb", "%5C", "a%5cb", "%00", "x%00.png", "..", ".", "%2e%2E", "%2e", ".%2e"}) {
            assertTrue(answer("GET", "/users/" + bad).startsWith("HTTP/1.1 400 "), bad);
        }
        for (String fine : new String[] {"...", "a..b", "%2e%2e%2e", "%41", "%2", "a%2"}) {
            assertSame(getUser, resolve(req("GET", "/users/" + fine)), fine);
        }
    }

    @Test
    void anyMethodTokenCanBeRegisteredAndWildcardsTakeTheRestOfThePath() throws Exception {
        Handler purge = (q, s) -> s.status(200);
        Handler propfind = (q, s) -> s.status(207);
        Handler statics = (q, s) -> s.status(200);
        Handler specific = (q, s) -> s.status(200);
        Router r = Router.builder()
                .add("GET", "/static/*", statics)
                .add("GET", "/static/{name}/special", specific)
                .add("PURGE", "/cache/*", purge)
                .add("PROPFIND", "/dav", propfind)
                .add("GET", "/dav", getUsers)
                .build();
        int[] s = new int[16];
        int[] e = new int[16];
        RequestView deep = req("GET", "/static/css/site/main.css");
        assertSame(statics, r.resolve(deep, s, e));
        assertEquals("css/site/main.css", deep.pathParam("*"));
        RequestView empty = req("GET", "/static/");
        assertSame(statics, r.resolve(empty, s, e));
        assertEquals("", empty.pathParam("*"));
        assertSame(specific, r.resolve(req("GET", "/static/x/special"), s, e), "patterns before wildcards");
        assertSame(statics, r.resolve(req("HEAD", "/static/a"), s, e));
        assertSame(purge, r.resolve(req("PURGE", "/cache/a/b"), s, e));
        assertSame(propfind, r.resolve(req("PROPFIND", "/dav"), s, e));
        for (String bad : new String[] {"/static/a/..%2fb", "/static/../etc/passwd", "/static/a/%2e%2e/b", "/static/a%00"}) {
            ResponseView res = new ResponseView();
            res.reset();
            RequestView q = req("GET", bad);
            r.resolve(q, s, e).handle(q, res);
            assertEquals(400, res.statusCode(), bad);
        }
        // A registered custom method elsewhere is known (405 with Allow); an unknown one is 501.
        ResponseView res = new ResponseView();
        res.reset();
        RequestView q = req("PROPFIND", "/cache/x");
        r.resolve(q, s, e).handle(q, res);
        assertEquals(405, res.statusCode());
        res.reset();
        q = req("BREW", "/dav");
        r.resolve(q, s, e).handle(q, res);
        assertEquals(501, res.statusCode());
        assertThrows(IllegalArgumentException.class, () -> Router.builder().add("BAD METHOD", "/x", purge));
        assertThrows(IllegalArgumentException.class, () -> Router.builder().add("GET", "/a/*/b", purge));
        assertThrows(IllegalArgumentException.class, () -> Router.builder().add("CONNECT", "/x", purge));
    }

    @Test
    void headIsServedByGet() {
        assertSame(getUsers, resolve(req("HEAD", "/users")));
        assertSame(getUser, resolve(req("HEAD", "/users/7")));
    }

    @Test
    void unknownPathsAre404() throws Exception {
        assertTrue(answer("GET", "/nowhere").startsWith("HTTP/1.1 404 "));
        assertTrue(answer("GET", "/users/").startsWith("HTTP/1.1 404 "), "an empty parameter does not match");
        assertTrue(answer("GET", "/users/1/2").startsWith("HTTP/1.1 404 "));
        assertTrue(answer("GET", "/Users").startsWith("HTTP/1.1 404 "), "paths are case-sensitive");
        assertTrue(answer("GET", "/users/").startsWith("HTTP/1.1 404 "));
        assertTrue(answer("GET", "http://example.com").startsWith("HTTP/1.1 404 "), "empty absolute path is /");
    }

    @Test
    void otherMethodsOnAKnownPathAre405WithAllow() throws Exception {
        String a = answer("DELETE", "/users");
        assertTrue(a.startsWith("HTTP/1.1 405 Method Not Allowed\r\n"), a);
        assertTrue(a.contains("Allow: GET, HEAD, POST, OPTIONS\r\n"), a);
        String b = answer("POST", "/users/1");
        assertTrue(b.startsWith("HTTP/1.1 405 "), b);
        assertTrue(b.contains("Allow: GET, HEAD, PUT, OPTIONS\r\n"), b);
    }

    @Test
    void optionsIsBuiltIn() throws Exception {
        String path = answer("OPTIONS", "/users");
        assertTrue(path.startsWith("HTTP/1.1 204 No Content\r\n"), path);
        assertTrue(path.contains("Allow: GET, HEAD, POST, OPTIONS\r\n"), path);
        String star = answer("OPTIONS", "*");
        assertTrue(star.startsWith("HTTP/1.1 204 "), star);
        assertTrue(star.contains("Allow: GET, HEAD, POST, PUT, DELETE, OPTIONS\r\n"), star);
    }

    @Test
    void unknownMethodsAre501() throws Exception {
        assertTrue(answer("PURGE", "/users").startsWith("HTTP/1.1 501 Not Implemented\r\n"));
    }

    /**
     * Static paths are hashed and compared as words (the first eight bytes, the last eight, the ones
     * between): every length from 1 to 40 bytes finds its own route, and a path that differs from a
     * registered one in any single byte, or only in length, is a 404.
     */
    @Test
    void staticPathsOfEveryLengthMatchExactly() throws Exception {
        Router.Builder b = Router.builder();
        Handler[] handlers = new Handler[41];
        for (int n = 1; n <= 40; n++) {
            int status = 200 + n;
            handlers[n] = (q, s) -> s.status(status);
            b.add("GET", path(n), handlers[n]);
        }
        Router many = b.build();
        for (int n = 1; n <= 40; n++) {
            assertSame(handlers[n], many.resolve(req("GET", path(n)), new int[4], new int[4]), path(n));
            for (int i = 1; i < n; i++) {
                char[] c = path(n).toCharArray();
                c[i] = c[i] == 'z' ? 'y' : 'z';
                RequestView other = req("GET", new String(c));
                assertEquals(-1, routeIdOf(many, other), new String(c));
            }
            RequestView longer = req("GET", path(n) + "x");
            if (n < 40) {
                assertEquals(-1, routeIdOf(many, longer), path(n) + "x");
            }
        }
        // An absolute-form target without a path is "/": a one-byte buffer of its own.
        Handler root = (q, s) -> s.status(200);
        assertSame(root, Router.builder().add("GET", "/", root).build().resolve(req("GET", "http://example.com"), new int[4], new int[4]));
    }

    /**
     * A table crowded with static paths that share their first or last eight bytes, or both with only
     * their length or a middle word apart (the packed slots, probed past collisions): each path finds
     * its own handler, and a path one byte off or one byte short of any of them finds none.
     */
    @Test
    void aCrowdedStaticTableFindsEachPathAndNoOther() throws Exception {
        Router.Builder b = Router.builder();
        java.util.List<String> paths = new java.util.ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String middle = "m".repeat(i % 13) + i + "q".repeat(i % 7);
            paths.add("/same-first-" + middle + "/same-last"); // first and last words shared by many
            paths.add("/p" + i); // short: first word only
        }
        Handler[] handlers = new Handler[paths.size()];
        for (int i = 0; i < paths.size(); i++) {
            int status = 200 + i % 300;
            handlers[i] = (q, s) -> s.status(status);
            b.add("GET", paths.get(i), handlers[i]);
        }
        Router crowded = b.build();
        java.util.Set<String> known = new java.util.HashSet<>(paths);
        for (int i = 0; i < paths.size(); i++) {
            String p = paths.get(i);
            assertSame(handlers[i], crowded.resolve(req("GET", p), new int[4], new int[4]), p);
            String shorter = p.substring(0, p.length() - 1);
            if (!known.contains(shorter)) {
                assertEquals(-1, routeIdOf(crowded, req("GET", shorter)), shorter);
            }
            char[] c = p.toCharArray();
            c[c.length / 2] = '~';
            String off = new String(c);
            if (!known.contains(off)) {
                assertEquals(-1, routeIdOf(crowded, req("GET", off)), off);
            }
        }
    }

    /** "/a", "/ab", "/abc"... with a letter per position that no other path of that length shares. */
    private static String path(int n) {
        StringBuilder s = new StringBuilder("/");
        for (int i = 1; i < n; i++) {
            s.append((char) ('a' + (i * 7 + n) % 23));
        }
        return s.toString();
    }

    private static int routeIdOf(Router r, RequestView req) {
        r.resolve(req, new int[4], new int[4]);
        return req.routeId();
    }

    @Test
    void staticPathLookupAllocatesNothing() {
        RequestView r = req("GET", "/users");
        RequestView p = req("GET", "/users/42");
        int[] s = new int[16];
        int[] e = new int[16];
        long allocated = dev.peregrine.testing.AllocationMeter.leastAllocated(3, () -> {
            for (int i = 0; i < 10_000; i++) {
                router.resolve(r, s, e);
                router.resolve(p, s, e);
            }
        });
        assertTrue(allocated < 1024, "allocated " + allocated + " bytes for 20,000 lookups");
    }

    @Test
    void badRegistrationsAreRefused() {
        Router.Builder b = Router.builder().add("GET", "/x", getUsers);
        assertThrows(IllegalArgumentException.class, () -> b.add("GET", "/x", getUsers));
        assertThrows(IllegalArgumentException.class, () -> b.add("GET", "x", getUsers));
        assertThrows(IllegalArgumentException.class, () -> b.add("GET", "", getUsers));
        assertThrows(IllegalArgumentException.class, () -> b.add("CONNECT", "/y", getUsers));
        assertThrows(IllegalArgumentException.class, () -> b.add("PUR GE", "/y", getUsers));
        assertThrows(IllegalArgumentException.class, () -> b.add("GET", "/a{b}", getUsers));
        assertThrows(IllegalArgumentException.class, () -> b.add("GET", "/{a}/{a}", getUsers));
        assertThrows(NullPointerException.class, () -> b.add("GET", "/z", null));
    }

    @Test
    void aRouterWithoutRoutesAnswersOptionsStar() throws Exception {
        Router empty = Router.builder().build();
        RequestView r = req("OPTIONS", "*");
        ResponseView res = new ResponseView();
        res.reset();
        empty.resolve(r, new int[16], new int[16]).handle(r, res);
        assertEquals(204, res.statusCode());
        assertNull(r.pathParam("x"));
    }
}
