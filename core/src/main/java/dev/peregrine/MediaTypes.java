package dev.peregrine;

import java.util.Locale;

/**
 * Which bodies a reader of {@link Request} can read, from the {@code Content-Type}'s media type
 * (RFC 9110 §8.3.1: type and subtype are case-insensitive, parameters follow a {@code ;}).
 */
final class MediaTypes {
    private MediaTypes() {
    }

    /** The media type of {@code contentType}, lower case, without parameters or spaces; "" for null. */
    static String of(String contentType) {
        if (contentType == null) {
            return "";
        }
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    /** Whether {@code contentType} is of media type {@code type} (lower case). */
    static boolean is(String contentType, String type) {
        return of(contentType).equals(type);
    }

    /** {@code application/json} or a structured {@code +json} type (RFC 6839 §3.1). */
    static boolean isJson(String contentType) {
        String t = of(contentType);
        return t.equals("application/json") || (t.endsWith("+json") && t.indexOf('/') > 0);
    }
}
