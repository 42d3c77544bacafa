package dev.peregrine.form;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The header block of one multipart part, parsed (RFC 7578 §4.2, §4.4): the field {@link #name()}, the
 * {@link #filename()} when the part is a file, the {@link #contentType()}, and every field as sent.
 *
 * <pre>
 *  Content-Disposition: form-data; name="doc"; filename="a.txt"; filename*=UTF-8''%C3%A9.txt
 *  Content-Type: text/plain
 * </pre>
 * {@code filename*} (RFC 8187 ext-value: charset {@code UTF-8} or {@code ISO-8859-1}, an optional
 * language, percent-encoded bytes) wins over {@code filename} (RFC 6266 §4.3). Quoted strings lose
 * their quotes and backslash escapes. The filename is as the client sent it: never use it as a path.
 *
 * <p>Immutable; any thread.
 */
public final class PartHeaders {
    private final List<String> names;
    private final List<String> values;
    private final String name;
    private final String filename;
    private final String contentType;

    private PartHeaders(List<String> names, List<String> values, String name, String filename, String contentType) {
        this.names = names;
        this.values = values;
        this.name = name;
        this.filename = filename;
        this.contentType = contentType;
    }

    /** The form field's name. */
    public String name() {
        return name;
    }

    /** The file name the client gave, or null for a plain field. */
    public String filename() {
        return filename;
    }

    /** Whether the part is a file (it has a filename). */
    public boolean isFile() {
        return filename != null;
    }

    /** {@code Content-Type}, or {@code text/plain} when absent (RFC 7578 §4.4). */
    public String contentType() {
        return contentType;
    }

    /** The first value of header {@code field} (case-insensitive), or null. */
    public String header(String field) {
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equalsIgnoreCase(field)) {
                return values.get(i);
            }
        }
        return null;
    }

    /**
     * Parses a header block: lines of {@code bytes[0, length)} separated by CRLF, without the empty line.
     *
     * @throws BadFormException for a line without a colon, a folded line, or no
     *     {@code Content-Disposition: form-data} with a {@code name}
     */
    static PartHeaders parse(byte[] bytes, int length) {
        List<String> names = new ArrayList<>(2);
        List<String> values = new ArrayList<>(2);
        int p = 0;
        while (p < length) {
            int eol = p;
            while (eol < length && bytes[eol] != '\r') {
                eol++;
            }
            if (bytes[p] == ' ' || bytes[p] == '\t') {
                throw new BadFormException("folded part header line (obsolete line folding, RFC 9112 §5.2)");
            }
            int colon = p;
            while (colon < eol && bytes[colon] != ':') {
                colon++;
            }
            if (colon == eol || colon == p) {
                throw new BadFormException("part header line without a field name and colon");
            }
            names.add(new String(bytes, p, colon - p, StandardCharsets.ISO_8859_1).trim());
            // browsers send UTF-8 in names and filenames (RFC 7578 §4.2 allows it)
            values.add(new String(bytes, colon + 1, eol - colon - 1, StandardCharsets.UTF_8).trim());
            p = eol + 2;
        }
        String disposition = null;
        String type = "text/plain";
        for (int i = 0; i < names.size(); i++) {
            if (disposition == null && names.get(i).equalsIgnoreCase("Content-Disposition")) {
                disposition = values.get(i);
            } else if (names.get(i).equalsIgnoreCase("Content-Type")) {
                type = values.get(i);
            }
        }
        if (disposition == null) {
            throw new BadFormException("part without Content-Disposition (RFC 7578 §4.2)");
        }
        String[] params = dispositionParams(disposition);
        if (params[0] == null) {
            throw new BadFormException("part's Content-Disposition is not form-data with a name (RFC 7578 §4.2)");
        }
        return new PartHeaders(List.copyOf(names), List.copyOf(values), params[0], params[2] != null ? params[2] : params[1], type);
    }

    /** {name, filename, filename*} of a {@code form-data} disposition; name null when not form-data. */
    private static String[] dispositionParams(String v) {
        String[] out = new String[3];
        int i = 0;
        int n = v.length();
        int semi = v.indexOf(';');
        String kind = (semi < 0 ? v : v.substring(0, semi)).trim();
        if (!kind.equalsIgnoreCase("form-data")) {
            return out;
        }
        i = semi < 0 ? n : semi + 1;
        while (i < n) {
            while (i < n && (v.charAt(i) == ' ' || v.charAt(i) == '\t' || v.charAt(i) == ';')) {
                i++;
            }
            int eq = i;
            while (eq < n && v.charAt(eq) != '=' && v.charAt(eq) != ';') {
                eq++;
            }
            String key = v.substring(i, eq).trim().toLowerCase(Locale.ROOT);
            if (eq >= n || v.charAt(eq) == ';') {
                i = eq;
                continue; // a parameter without a value: ignored
            }
            int vs = eq + 1;
            while (vs < n && (v.charAt(vs) == ' ' || v.charAt(vs) == '\t')) {
                vs++;
            }
            String value;
            if (vs < n && v.charAt(vs) == '"') {
                StringBuilder sb = new StringBuilder();
                int k = vs + 1;
                while (k < n && v.charAt(k) != '"') {
                    if (v.charAt(k) == '\\' && k + 1 < n) {
                        k++;
                    }
                    sb.append(v.charAt(k++));
                }
                if (k >= n) {
                    throw new BadFormException("unterminated quoted string in Content-Disposition");
                }
                value = sb.toString();
                i = k + 1;
            } else {
                int end = vs;
                while (end < n && v.charAt(end) != ';') {
                    end++;
                }
                value = v.substring(vs, end).trim();
                i = end;
            }
            switch (key) {
                case "name" -> out[0] = out[0] == null ? value : out[0];
                case "filename" -> out[1] = out[1] == null ? value : out[1];
                case "filename*" -> out[2] = out[2] == null ? extValue(value) : out[2];
                default -> {
                }
            }
        }
        return out;
    }

    /**
     * RFC 8187 §3.2.1 ext-value: {@code charset'[language]'value-chars}, charset UTF-8 or ISO-8859-1.
     *
     * @throws BadFormException for another shape or charset
     */
    static String extValue(String s) {
        int q1 = s.indexOf('\'');
        int q2 = q1 < 0 ? -1 : s.indexOf('\'', q1 + 1);
        if (q2 < 0) {
            throw new BadFormException("filename* is not charset'language'value (RFC 8187 §3.2.1)");
        }
        String charset = s.substring(0, q1);
        Charset cs;
        if (charset.equalsIgnoreCase("UTF-8")) {
            cs = StandardCharsets.UTF_8;
        } else if (charset.equalsIgnoreCase("ISO-8859-1")) {
            cs = StandardCharsets.ISO_8859_1;
        } else {
            throw new BadFormException("filename* charset must be UTF-8 or ISO-8859-1 (RFC 8187 §3.2.1): " + charset);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = q2 + 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(s.charAt(i + 2), 16);
                if (lo < 0) {
                    throw new BadFormException("filename* has a broken percent-escape (RFC 8187 §3.2.1)");
                }
                out.write(hi << 4 | lo);
                i += 2;
            } else if (c > 0x20 && c < 0x7F) {
                out.write(c);
            } else {
                throw new BadFormException("filename* has a character that must be percent-encoded (RFC 8187 §3.2.1)");
            }
        }
        return out.toString(cs);
    }

    @Override
    public String toString() {
        return "part " + name + (filename != null ? " file " + filename : "") + " (" + contentType + ")";
    }
}
