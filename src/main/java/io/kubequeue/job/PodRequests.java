package io.kubequeue.job;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.kubequeue.quota.Quantities;
import io.kubequeue.scheduler.Resources;

/**
 * The resource request of one pod, by the Kubernetes rule (docs/behaviour.md §2; Kubernetes docs "Resource
 * Management for Pods and Containers", "Init Containers", "Pod Overhead"): per resource, the larger of the
 * sum over regular containers and the largest init container, plus {@code spec.overhead}. A container that
 * sets a limit but no request for a resource requests its limit.
 */
public final class PodRequests {

    private PodRequests() {
    }

    /**
     * @param spec  the pod spec of a template
     * @param field where the spec sits in the job, for error messages (e.g. {@code spec.template.spec})
     * @return millicores for cpu, bytes for memory, counts for extended resources
     * @throws InvalidJobException naming the field of a quantity that cannot be parsed or is negative
     */
    public static Resources of(PodSpec spec, String field) {
        if (spec == null) {
            return Resources.NONE;
        }
        Resources regular = Resources.NONE;
        List<Container> containers = spec.getContainers() == null ? List.of() : spec.getContainers();
        for (int i = 0; i < containers.size(); i++) {
            regular = regular.plus(containerRequest(containers.get(i), field + ".containers[" + i + "]"));
        }
        Resources init = Resources.NONE;
        List<Container> initContainers = spec.getInitContainers() == null ? List.of() : spec.getInitContainers();
        for (int i = 0; i < initContainers.size(); i++) {
            init = init.max(containerRequest(initContainers.get(i), field + ".initContainers[" + i + "]"));
        }
        return regular.max(init).plus(toResources(spec.getOverhead(), field + ".overhead"));
    }

    private static Resources containerRequest(Container container, String field) {
        ResourceRequirements resources = container.getResources();
        if (resources == null) {
            return Resources.NONE;
        }
        Resources requests = toResources(resources.getRequests(), field + ".resources.requests");
        Resources limits = toResources(resources.getLimits(), field + ".resources.limits");
        for (Map.Entry<String, Long> limit : limits.asMap().entrySet()) {
            if (!requests.has(limit.getKey())) {
                requests = requests.with(limit.getKey(), limit.getValue());
            }
        }
        return requests;
    }

    private static Resources toResources(Map<String, Quantity> quantities, String field) {
        if (quantities == null) {
            return Resources.NONE;
        }
        Resources result = Resources.NONE;
        for (Map.Entry<String, Quantity> q : quantities.entrySet()) {
            try {
                result = result.with(q.getKey(), Quantities.toUnits(q.getKey(), q.getValue()));
            } catch (IllegalArgumentException e) {
                throw new InvalidJobException(field + "." + q.getKey(), q.getValue(), e.getMessage());
            }
        }
        return result;
    }
}
