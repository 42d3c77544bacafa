import com.sun.jdi.Bootstrap;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventQueue;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.MethodEntryRequest;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * scripts/trace-get's tracer (run as a single-file program: {@code java scripts/lib/TraceGet.java JDWP_PORT
 * HTTP_PORT}). Attaches to the examples app over JDWP, warms a keep-alive connection with three
 * {@code GET /plaintext}, then records which methods of {@code dev.peregrine} classes run: first over an
 * idle window (the loop's own timer passes), then over the same window around one more GET on that
 * connection. A method seen in the idle window is left out; the classes of the rest, in the order they
 * were first entered, are the classes the GET entered. The app's handler ({@code dev.peregrine.examples})
 * is not counted, nor are other threads (the watchdog).
 */
public final class TraceGet {
    private static final byte[] GET = "GET /plaintext HTTP/1.1\r\nHost: trace\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final long WINDOW_MILLIS = 600;

    public static void main(String[] args) throws Exception {
        AttachingConnector attach = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        Map<String, Connector.Argument> a = attach.defaultArguments();
        a.get("hostname").setValue("127.0.0.1");
        a.get("port").setValue(args[0]);
        VirtualMachine vm = attach.attach(a);
        try (Socket s = new Socket("127.0.0.1", Integer.parseInt(args[1]))) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            for (int i = 0; i < 3; i++) {
                out.write(GET);
                in.read(buf);
            }
            MethodEntryRequest entries = vm.eventRequestManager().createMethodEntryRequest();
            entries.addClassFilter("dev.peregrine.*");
            entries.addClassExclusionFilter("dev.peregrine.examples.*");
            entries.setSuspendPolicy(EventRequest.SUSPEND_NONE);
            entries.enable();
            Set<String> idle = record(vm.eventQueue(), null, null, null).keySet();
            Map<String, String> get = record(vm.eventQueue(), out, in, buf);
            entries.disable();
            Set<String> classes = new LinkedHashSet<>();
            for (Map.Entry<String, String> m : get.entrySet()) {
                if (!idle.contains(m.getKey()) && m.getValue().startsWith("peregrine-") && !m.getValue().equals("peregrine-watchdog")) {
                    classes.add(m.getKey().substring(0, m.getKey().lastIndexOf('.')).replaceAll("\\$.*", ""));
                }
            }
            classes.forEach(c -> System.out.println("  " + c));
            System.out.println(classes.size() + " classes entered by one keep-alive GET /plaintext");
        } finally {
            vm.dispose();
        }
    }

    /** Method (class.name) to its thread's name, for the entries seen over one window; with a GET sent in it when out is given. */
    private static Map<String, String> record(EventQueue queue, OutputStream out, InputStream in, byte[] buf) throws Exception {
        Map<String, String> seen = new LinkedHashMap<>();
        long end = System.currentTimeMillis() + WINDOW_MILLIS;
        if (out != null) {
            drain(queue, seen, System.currentTimeMillis() + 50);
            seen.clear();
            out.write(GET);
            if (in.read(buf) <= 0) {
                throw new IllegalStateException("no response");
            }
        }
        drain(queue, seen, end);
        return seen;
    }

    private static void drain(EventQueue queue, Map<String, String> seen, long until) throws InterruptedException {
        while (System.currentTimeMillis() < until) {
            EventSet set = queue.remove(20);
            if (set == null) {
                continue;
            }
            for (Event e : set) {
                if (e instanceof MethodEntryEvent) {
                    MethodEntryEvent m = (MethodEntryEvent) e;
                    seen.putIfAbsent(m.method().declaringType().name() + "." + m.method().name(), m.thread().name());
                }
            }
        }
    }
}
