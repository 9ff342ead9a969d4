package io.kubequeue.resources;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeItem;
import io.fabric8.kubernetes.api.model.Quantity;
import io.kubequeue.resources.Quantities;

/**
 * The defaults the LimitRanger admission plugin gives a container of a new pod in one namespace: a limit for each
 * resource the container sets no limit for ({@code default}), and a request for each it sets no request for
 * ({@code defaultRequest}), from the {@code type: Container} items of the namespace's LimitRanges (Kubernetes docs
 * "Limit Ranges", https://kubernetes.io/docs/concepts/policy/limit-range/). {@code type: Pod} and
 * {@code PersistentVolumeClaim} items set no defaults (the API server refuses {@code default} on them); their
 * {@code min}/{@code max} only refuse pods, which pricing does not judge.
 *
 * <p>An item is read as the API server stores it after defaulting it (pkg/apis/core/v1 {@code SetDefaults_LimitRangeItem}),
 * so that one written to a server that does not default it reads the same: a resource with a {@code max} and no
 * {@code default} defaults its limit to the max; one with a {@code default} (limit) and no {@code defaultRequest}
 * defaults its request to that limit; one with a {@code min} and still no {@code defaultRequest} defaults its request to
 * the min. Within one LimitRange a later item wins, as the plugin's loop does.
 *
 * <p>Several LimitRanges in one namespace: the plugin applies each in turn and a default only fills what is still
 * missing, so which one wins depends on the order it lists them in, which the Kubernetes docs call not deterministic.
 * kube-queue takes, for each resource, the largest default of any of them (request and limit each), so a job is never
 * priced below what its pods may get.
 *
 * @param requests resource name to default request ({@code defaultRequest}), never null
 * @param limits   resource name to default limit ({@code default}), never null
 */
public record ContainerDefaults(Map<String, Quantity> requests, Map<String, Quantity> limits) {

    /** No LimitRange: containers keep what they set. */
    public static final ContainerDefaults NONE = new ContainerDefaults(Map.of(), Map.of());

    public ContainerDefaults {
        requests = Collections.unmodifiableMap(new LinkedHashMap<>(requests));
        limits = Collections.unmodifiableMap(new LinkedHashMap<>(limits));
    }

    /** Whether no container default is set. */
    public boolean isEmpty() {
        return requests.isEmpty() && limits.isEmpty();
    }

    /**
     * The container defaults of one LimitRange, each quantity read with the bounded parsing of {@link Quantities}.
     *
     * @throws IllegalArgumentException naming the field ({@code spec.limits[0].defaultRequest.cpu}) and what is wrong,
     *                                  for a quantity that cannot be read, is negative or too large, or an item that is
     *                                  null
     */
    public static ContainerDefaults of(LimitRange limitRange) {
        if (limitRange.getSpec() == null || limitRange.getSpec().getLimits() == null) {
            return NONE;
        }
        Map<String, Quantity> requests = new LinkedHashMap<>();
        Map<String, Quantity> limits = new LinkedHashMap<>();
        List<LimitRangeItem> items = limitRange.getSpec().getLimits();
        for (int i = 0; i < items.size(); i++) {
            LimitRangeItem item = items.get(i);
            String field = "spec.limits[" + i + "]";
            if (item == null) {
                throw new IllegalArgumentException(field + ": an item must be an object");
            }
            if (!"Container".equals(item.getType())) {
                continue;
            }
            Map<String, Quantity> max = checked(item.getMax(), field + ".max");
            Map<String, Quantity> min = checked(item.getMin(), field + ".min");
            Map<String, Quantity> limit = new LinkedHashMap<>(checked(item.getDefault(), field + ".default"));
            Map<String, Quantity> request = new LinkedHashMap<>(checked(item.getDefaultRequest(), field + ".defaultRequest"));
            // SetDefaults_LimitRangeItem, in its order: max -> default, default -> defaultRequest, min -> defaultRequest
            max.forEach(limit::putIfAbsent);
            limit.forEach(request::putIfAbsent);
            min.forEach(request::putIfAbsent);
            limits.putAll(limit);
            requests.putAll(request);
        }
        return new ContainerDefaults(requests, limits);
    }

    /** Per resource, the larger default of the two (requests and limits each): see the class comment. */
    public ContainerDefaults largest(ContainerDefaults other) {
        return new ContainerDefaults(larger(requests, other.requests), larger(limits, other.limits));
    }

    private static Map<String, Quantity> larger(Map<String, Quantity> a, Map<String, Quantity> b) {
        Map<String, Quantity> result = new LinkedHashMap<>(a);
        b.forEach((resource, quantity) -> result.merge(resource, quantity, (x, y) ->
                Quantities.toUnits(resource, y) > Quantities.toUnits(resource, x) ? y : x));
        return result;
    }

    private static Map<String, Quantity> checked(Map<String, Quantity> quantities, String field) {
        if (quantities == null) {
            return Map.of();
        }
        for (Map.Entry<String, Quantity> q : quantities.entrySet()) {
            if (q.getValue() == null) {
                throw new IllegalArgumentException(field + "." + q.getKey() + ": a quantity must be set");
            }
            try {
                Quantities.toUnits(q.getKey(), q.getValue());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(field + "." + q.getKey() + ": " + e.getMessage(), e);
            }
        }
        return quantities;
    }
}
