package io.kubequeue.testing;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.kubequeue.resources.ContainerDefaults;

/**
 * What the {@link StrictApiServer} does to a pod it is asked to create before storing it, as kube-apiserver does
 * (the fabric8 mock stores it as sent):
 * <ol>
 *   <li>defaulting (pkg/apis/core/v1 {@code SetDefaults_Pod}): a container or init container that sets a limit and no
 *       request for a resource gets the limit as its request;</li>
 *   <li>the LimitRanger admission plugin: for each LimitRange of the pod's namespace, in the order the server lists
 *       them, each {@code type: Container} item's {@code default} fills the limits and its {@code defaultRequest} the
 *       requests that each container and init container still lacks (within one LimitRange a later item wins). The
 *       item is read as the API server stores it ({@code SetDefaults_LimitRangeItem}): {@code max} stands in for a
 *       missing {@code default}, then {@code default}, then {@code min}, for a missing {@code defaultRequest}. (A real
 *       server writes those into the stored LimitRange; this one applies them here, to the same effect on pods);</li>
 *   <li>the RuntimeClass admission plugin: a pod naming a {@code runtimeClassName} that does not exist is refused
 *       (403, "pod rejected: RuntimeClass ... not found"); a class with {@code overhead.podFixed} sets the pod's
 *       {@code spec.overhead} to it, and a pod that sets a different overhead itself is refused (403); a pod that sets
 *       an overhead its class does not define is refused too (Kubernetes docs "Pod Overhead").</li>
 * </ol>
 * LimitRanger's checks ({@code min}, {@code max}, {@code maxLimitRequestRatio}) are not made: kube-queue's tests
 * never rely on them.
 */
final class PodAdmissionPlugins {

    private static final Pattern POD_CREATE = Pattern.compile("^/api/v1/namespaces/([^/?]+)/pods/?(\\?.*)?$");

    private final KubernetesCrudDispatcher crud;
    private final ObjectMapper json;

    PodAdmissionPlugins(KubernetesCrudDispatcher crud, ObjectMapper json) {
        this.crud = crud;
        this.json = json;
    }

    /** The namespace of a pod create ({@code POST /api/v1/namespaces/<ns>/pods}); null for any other request. */
    static String podCreateNamespace(String method, String path) {
        if (!"POST".equals(method)) {
            return null;
        }
        Matcher m = POD_CREATE.matcher(path);
        return m.matches() ? m.group(1) : null;
    }

    /** Outcome of admitting one pod: the body to store, or the refusal to answer. */
    record Admitted(byte[] body, MockResponse refusal) {
    }

    /** The pod as the admission plugins leave it, or a refusal; a body that is not JSON is passed on untouched. */
    Admitted admit(String namespace, byte[] body) {
        ObjectNode pod;
        try {
            JsonNode read = json.readTree(body);
            if (!(read instanceof ObjectNode object)) {
                return new Admitted(body, null);
            }
            pod = object;
        } catch (Exception e) {
            return new Admitted(body, null);
        }
        JsonNode spec = pod.get("spec");
        if (!(spec instanceof ObjectNode podSpec)) {
            return new Admitted(body, null);
        }
        forEachContainer(podSpec, PodAdmissionPlugins::requestsFromLimits);
        for (JsonNode limitRange : list("/api/v1/namespaces/" + namespace + "/limitranges")) {
            ContainerDefaults defaults = ContainerDefaults.of(limitRange);
            forEachContainer(podSpec, defaults::fill);
        }
        String refusal = runtimeClass(podSpec);
        if (refusal != null) {
            ObjectNode status = JsonNodeFactory.instance.objectNode().put("apiVersion", "v1").put("kind", "Status")
                    .put("status", "Failure").put("reason", "Forbidden").put("code", 403)
                    .put("message", "pods \"" + pod.path("metadata").path("name").asText() + "\" is forbidden: "
                            + refusal);
            return new Admitted(null, new MockResponse().setResponseCode(403).setBody(status.toString()));
        }
        try {
            return new Admitted(json.writeValueAsBytes(pod), null);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private interface ContainerStep {
        void apply(ObjectNode container);
    }

    private static void forEachContainer(ObjectNode spec, ContainerStep step) {
        for (String list : new String[] {"initContainers", "containers"}) {
            for (JsonNode container : spec.path(list)) {
                if (container instanceof ObjectNode c) {
                    step.apply(c);
                }
            }
        }
    }

    private static void requestsFromLimits(ObjectNode container) {
        JsonNode limits = container.path("resources").path("limits");
        if (!limits.isObject() || limits.isEmpty()) {
            return;
        }
        ObjectNode requests = resources(container).with("requests");
        for (Iterator<Map.Entry<String, JsonNode>> it = limits.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> limit = it.next();
            if (!requests.has(limit.getKey())) {
                requests.set(limit.getKey(), limit.getValue());
            }
        }
    }

    private static ObjectNode resources(ObjectNode container) {
        return container.with("resources");
    }

    /** One LimitRange's container defaults, as the plugin computes them ({@code defaultContainerResourceRequirements}). */
    private record ContainerDefaults(Map<String, JsonNode> requests, Map<String, JsonNode> limits) {

        static ContainerDefaults of(JsonNode limitRange) {
            Map<String, JsonNode> requests = new LinkedHashMap<>();
            Map<String, JsonNode> limits = new LinkedHashMap<>();
            for (JsonNode item : limitRange.path("spec").path("limits")) {
                if (!"Container".equals(item.path("type").asText())) {
                    continue;
                }
                Map<String, JsonNode> limit = fields(item.path("default"));
                Map<String, JsonNode> request = fields(item.path("defaultRequest"));
                fields(item.path("max")).forEach(limit::putIfAbsent);
                limit.forEach(request::putIfAbsent);
                fields(item.path("min")).forEach(request::putIfAbsent);
                limits.putAll(limit);
                requests.putAll(request);
            }
            return new ContainerDefaults(requests, limits);
        }

        /** {@code mergeContainerResources}: a default fills only what the container lacks. */
        void fill(ObjectNode container) {
            if (requests.isEmpty() && limits.isEmpty()) {
                return;
            }
            ObjectNode resources = resources(container);
            ObjectNode ownLimits = resources.with("limits");
            limits.forEach((k, v) -> {
                if (!ownLimits.has(k)) {
                    ownLimits.set(k, v);
                }
            });
            ObjectNode ownRequests = resources.with("requests");
            requests.forEach((k, v) -> {
                if (!ownRequests.has(k)) {
                    ownRequests.set(k, v);
                }
            });
        }

        private static Map<String, JsonNode> fields(JsonNode object) {
            Map<String, JsonNode> result = new LinkedHashMap<>();
            object.fields().forEachRemaining(e -> result.put(e.getKey(), e.getValue()));
            return result;
        }
    }

    /** The RuntimeClass plugin on this pod spec; the reason it refuses the pod, or null. */
    private String runtimeClass(ObjectNode spec) {
        JsonNode overhead = spec.get("overhead");
        boolean ownOverhead = overhead != null && !overhead.isNull();
        JsonNode name = spec.get("runtimeClassName");
        if (name == null || name.isNull() || name.asText().isEmpty()) {
            return ownOverhead ? "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
                    : null;
        }
        JsonNode runtimeClass = get("/apis/node.k8s.io/v1/runtimeclasses/" + name.asText());
        if (runtimeClass == null) {
            return "pod rejected: RuntimeClass \"" + name.asText() + "\" not found";
        }
        JsonNode podFixed = runtimeClass.path("overhead").path("podFixed");
        if (!podFixed.isObject() || podFixed.isEmpty()) {
            return ownOverhead ? "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
                    : null;
        }
        if (ownOverhead && !sameQuantities(overhead, podFixed)) {
            return "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
        }
        spec.set("overhead", podFixed.deepCopy());
        return null;
    }

    private static boolean sameQuantities(JsonNode a, JsonNode b) {
        if (!a.isObject() || a.size() != b.size()) {
            return false;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = b.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> q = it.next();
            JsonNode other = a.get(q.getKey());
            if (other == null || !Objects.equals(new Quantity(other.asText()), new Quantity(q.getValue().asText()))) {
                return false;
            }
        }
        return true;
    }

    private JsonNode get(String path) {
        MockResponse response = crud.handleGet(path);
        if (response.code() != 200) {
            return null;
        }
        try {
            return json.readTree(response.getBody().getBytes());
        } catch (Exception e) {
            return null;
        }
    }

    private Iterable<JsonNode> list(String path) {
        JsonNode list = get(path);
        return list == null ? java.util.List.of() : list.path("items");
    }
}
