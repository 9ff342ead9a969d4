package io.kubequeue.visibility;

import java.util.List;
import java.util.Map;

/**
 * A caller of the visibility API as the API server authenticated them (from the front-proxy headers).
 *
 * @param user   the user name
 * @param groups the user's groups
 * @param extra  extra attributes (e.g. a token's scopes), keys lower-cased
 */
public record Caller(String user, List<String> groups, Map<String, List<String>> extra) {
}
