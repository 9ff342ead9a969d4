package io.kubequeue.visibility;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * %-escapes as Go's {@code url.PathUnescape} reads them, which is how the API server escapes what it sends here (a
 * name in a path, an extra key in a header name): {@code +} is itself, not a space (that is form encoding).
 */
final class PathEscapes {

    private PathEscapes() {
    }

    /**
     * @throws IllegalArgumentException for a {@code %} not followed by two hex digits
     */
    static String unescape(String escaped) {
        return URLDecoder.decode(escaped.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
