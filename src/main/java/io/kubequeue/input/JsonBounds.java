package io.kubequeue.input;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The bounds Jackson applies to every JSON document kube-queue's Kubernetes client reads or writes (lists, watch
 * events, single objects, {@code convertValue} of tenant JSON): set at what a real API server may send, so that
 * nothing a server accepts stops a watch, and nothing beyond it costs more than that (docs/security.md, "Hostile
 * input: the bounds").
 *
 * <ul>
 *   <li>nesting: {@value #MAX_NESTING_DEPTH} levels, read and written. The API server refuses an object nested more
 *       than 10,000 levels (k8s.io/apimachinery {@code util/json}, "exceeded max depth"; Argo's Workflow CRD keeps
 *       unknown fields, so a tenant can reach it); a list page adds two levels ({@code {"items":[…]}}) and a watch
 *       event one ({@code {"object":…}}). Jackson's default (1,000) let one tenant's 1,200-level Workflow break the
 *       Workflow watch for good and fail start-up recovery's list.</li>
 *   <li>one string or field name: {@value #MAX_STRING_LENGTH} characters. The API server takes no request body above
 *       3 MiB ({@code MaxRequestBodyBytes}) and etcd stores no object above 1.5 MiB, so no single string can be
 *       longer; Jackson's default name limit (50,000) is below that, and a Workflow with one long key would break the
 *       watch as a deep one does.</li>
 *   <li>one number: {@value #MAX_NUMBER_LENGTH} characters (Jackson's default, kept). The API server decodes the
 *       numbers of custom resources as int64 or float64 and writes them back in their short form, so it never sends a
 *       longer one.</li>
 * </ul>
 * The document's own length and token count are not bounded here: a list page holds up to 500 objects.
 */
public final class JsonBounds {

    /** The API server's own limit on an object's nesting (k8s.io/apimachinery util/json). */
    public static final int API_SERVER_MAX_DEPTH = 10_000;
    /** Levels kube-queue reads: the API server's, plus room for the list and watch envelopes. */
    public static final int MAX_NESTING_DEPTH = API_SERVER_MAX_DEPTH + 16;
    /** The longest string or field name, in characters: above any single object the API server stores. */
    public static final int MAX_STRING_LENGTH = 4 * 1024 * 1024;
    /** The longest number, in characters (Jackson's default). */
    public static final int MAX_NUMBER_LENGTH = 1_000;
    /**
     * The deepest tenant JSON that kube-queue converts or walks recursively (a Kubeflow replica's pod template,
     * which {@code convertValue} turns into a {@code PodTemplateSpec}): Jackson's tree-to-object conversion recurses
     * per level, and 10,000 levels overflow a thread's stack (a StackOverflowError, which no caller catches). A real
     * pod template is about a dozen levels deep (affinity terms, projected volumes).
     */
    public static final int MAX_TEMPLATE_DEPTH = 64;

    private JsonBounds() {
    }

    /** The read constraints described above. */
    public static StreamReadConstraints readConstraints() {
        return StreamReadConstraints.builder()
                .maxNestingDepth(MAX_NESTING_DEPTH)
                .maxStringLength(MAX_STRING_LENGTH)
                .maxNameLength(MAX_STRING_LENGTH)
                .maxNumberLength(MAX_NUMBER_LENGTH)
                .build();
    }

    /** The write constraints: the same nesting, so that what was read can be written (e.g. by convertValue). */
    public static StreamWriteConstraints writeConstraints() {
        return StreamWriteConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build();
    }

    /**
     * How deep a JSON tree is, counted without recursion and given up past {@code limit}: a scalar is 0, an empty
     * object or list 1, each level of containers one more.
     *
     * @return the depth, or {@code limit + 1} if it is deeper than {@code limit}
     */
    public static int depth(JsonNode node, int limit) {
        if (node == null || !node.isContainerNode()) {
            return 0;
        }
        Deque<Map.Entry<JsonNode, Integer>> open = new ArrayDeque<>();
        open.push(Map.entry(node, 1));
        int deepest = 1;
        while (!open.isEmpty()) {
            Map.Entry<JsonNode, Integer> next = open.pop();
            int level = next.getValue();
            if (level > limit) {
                return limit + 1;
            }
            deepest = Math.max(deepest, level);
            for (JsonNode child : next.getKey()) {
                if (child.isContainerNode()) {
                    open.push(Map.entry(child, level + 1));
                }
            }
        }
        return deepest;
    }

    /**
     * Applies the bounds to a mapper's factory (every parser and generator it makes from now on).
     *
     * @return the same mapper
     */
    public static ObjectMapper apply(ObjectMapper mapper) {
        JsonFactory factory = mapper.getFactory();
        factory.setStreamReadConstraints(readConstraints());
        factory.setStreamWriteConstraints(writeConstraints());
        return mapper;
    }
}
