package dev.peregrine.examples;

import dev.peregrine.Handler;
import dev.peregrine.Handlers;
import dev.peregrine.Request;
import dev.peregrine.Response;
import dev.peregrine.Server;
import dev.peregrine.form.BadFormException;
import dev.peregrine.form.FormCursor;
import dev.peregrine.form.FormLimitException;
import dev.peregrine.form.FormPart;
import dev.peregrine.form.MultipartForm;
import dev.peregrine.form.MultipartLimits;
import dev.peregrine.json.Json;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The examples app's form and JSON-object routes (a contract, like PlaintextApp's, which has
 * {@code GET /cookies}; the README shows them):
 * <ul>
 *   <li>{@code POST /upload} — a {@code multipart/form-data} or {@code application/x-www-form-urlencoded}
 *       form; answers {@code {"fields":[{"name":..,"size":..},{"name":..,"size":..,"filename":..,"sha256":..}]}},
 *       one entry per field in order, size in bytes (decoded, for urlencoded). 400 for a malformed or
 *       truncated body or a wrong boundary, 413 past a limit, 415 for another type.</li>
 *   <li>{@code GET /json-object} — the TechEmpower JSON message serialised from an object per request
 *       (through the JSON mapper; {@code /json} stays the constant bytes the benchmarks use).</li>
 * </ul>
 */
public final class WebRoutes {
    /** The TechEmpower message as an object. */
    public record Message(String message) {
    }

    private WebRoutes() {
    }

    /** Adds the routes, with uploads under {@code limits}. */
    public static Server.Builder routes(Server.Builder builder, MultipartLimits limits) {
        // Jackson's first use loads and builds its serialisers (~100 ms): here, not on an event loop
        try {
            Json.mapper().write(List.of(new Message("warm-up"), Map.of("k", 1)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return builder.post("/upload", upload(limits))
                .get("/json-object", (req, res) -> res.json(new Message("Hello, World!")));
    }

    /** The {@code /upload} handler (blocking: it reads the body as it arrives and may write files). */
    public static Handler upload(MultipartLimits limits) {
        return Handlers.blocking((req, res) -> {
            CharSequence type = req.headers().view("Content-Type");
            String mediaType = type == null ? "" : type.toString().split(";", 2)[0].trim();
            try {
                if (mediaType.equalsIgnoreCase("multipart/form-data")) {
                    multipart(req, res, limits);
                } else if (mediaType.equalsIgnoreCase("application/x-www-form-urlencoded")) {
                    urlencoded(req, res);
                } else {
                    res.status(415).text("POST /upload takes multipart/form-data or application/x-www-form-urlencoded\n");
                }
            } catch (BadFormException e) {
                res.status(e.status()).text(e.getMessage() + "\n");
            } catch (FormLimitException e) {
                res.status(e.status()).text(e.getMessage() + "\n");
            }
        });
    }

    private static void multipart(Request req, Response res, MultipartLimits limits) throws IOException {
        List<Map<String, Object>> fields = new ArrayList<>();
        try (MultipartForm form = req.multipart(limits)) {
            for (FormPart part : form.parts()) {
                Map<String, Object> field = new LinkedHashMap<>();
                field.put("name", part.name());
                field.put("size", part.size());
                if (part.filename() != null) {
                    field.put("filename", part.filename());
                    try (InputStream in = part.open()) {
                        field.put("sha256", sha256(in));
                    }
                }
                fields.add(field);
            }
        }
        res.json(Map.of("fields", fields));
    }

    private static void urlencoded(Request req, Response res) throws IOException {
        if (req.bodyStreamed()) {
            res.status(413).text("an urlencoded form must fit in memory\n");
            return;
        }
        List<Map<String, Object>> fields = new ArrayList<>();
        FormCursor pairs = req.form().pairs();
        byte[] scratch = new byte[req.bodyLength()];
        while (pairs.next()) {
            Map<String, Object> field = new LinkedHashMap<>();
            field.put("name", pairs.name());
            field.put("size", pairs.decodeValue(scratch, 0));
            fields.add(field);
        }
        res.json(Map.of("fields", fields));
    }

    static String sha256(InputStream in) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
        byte[] buf = new byte[16 * 1024];
        for (int n; (n = in.read(buf)) >= 0; ) {
            digest.update(buf, 0, n);
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
