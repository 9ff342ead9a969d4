package io.kubequeue.resources;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.resources.Quantities;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.input.InvalidJobException;

/**
 * The resource request of one pod, by the Kubernetes rule (docs/behaviour.md §2; Kubernetes docs "Resource
 * Management for Pods and Containers", "Init Containers", "Sidecar Containers", "Pod Overhead"): per resource,
 * the larger of the sum over regular containers and sidecars ({@code restartPolicy: Always} init containers) and
 * the largest init container together with the sidecars started before it, plus {@code spec.overhead}. A container that
 * sets a limit but no request for a resource requests its limit.
 *
 * <p><b>Pod-level resources</b> (Kubernetes 1.32+, KEP-2837; Kubernetes doc "Assign Pod-level CPU and memory
 * resources"; k8s.io/component-helpers {@code resource.PodRequests} / {@code PodLimits}): for a resource supported at
 * pod level ({@code cpu}, {@code memory}, {@code hugepages-*}), a {@code spec.resources.requests} value replaces the
 * container aggregate above, and a {@code spec.resources.limits} value replaces the aggregated limit; overhead is
 * added after. Other names in {@code spec.resources} are ignored, as Kubernetes does. A pod-level limit without a
 * pod-level request is defaulted as the API server defaults a pod (pkg/apis/core/v1 {@code defaultPodRequests}):
 * to the containers' aggregate request when some container requests that resource (hugepages excepted), else to
 * the pod-level limit.
 *
 * <p>The pod's cpu, memory and ephemeral-storage limits are computed by the same rule and carried as pseudo-resources
 * {@code limits.cpu}, {@code limits.memory} and {@code limits.ephemeral-storage}, so that a ResourceQuota's keys of
 * those names can be checked against them (docs/behaviour.md §3); quota trees never declare them, so they limit
 * nothing there.
 */
public final class PodRequests {

    /** Prefix of the pseudo-resources that carry a pod's limits. */
    public static final String LIMITS = "limits.";

    /** Prefix of the huge page resources ({@code hugepages-2Mi}), supported at pod level. */
    private static final String HUGEPAGES = "hugepages-";

    /**
     * The resources whose limits a ResourceQuota can cap ({@code limits.cpu}, {@code limits.memory},
     * {@code limits.ephemeral-storage}; Kubernetes doc "Resource Quotas").
     */
    private static final List<String> LIMITED = List.of(Resources.CPU, Resources.MEMORY, "ephemeral-storage");

    private PodRequests() {
    }

    /**
     * @param spec  the pod spec of a template
     * @param field where the spec sits in the job, for error messages (e.g. {@code spec.template.spec})
     * @return millicores for cpu, bytes for memory, ephemeral-storage and hugepages, counts for extended resources;
     *         the cpu, memory and ephemeral-storage limits as {@code limits.<name>} in the same units
     * @throws InvalidJobException naming the field of a quantity that cannot be parsed or is negative, or of a
     *                             container that is null
     */
    public static Resources of(PodSpec spec, String field) {
        return of(spec, field, PodDefaults.NONE);
    }

    /**
     * {@link #of(PodSpec, String)} of the pod the API server makes from this template: {@code defaults} (the
     * namespace's LimitRange defaults, the RuntimeClass's overhead) applied first ({@link PodDefaults#applyTo}).
     *
     * @param defaults what the template's namespace gives a new pod
     * @throws InvalidJobException as {@link #of(PodSpec, String)}
     */
    public static Resources of(PodSpec template, String field, PodDefaults defaults) {
        PodSpec spec = defaults.applyTo(template);
        if (spec == null) {
            return Resources.NONE;
        }
        Resources regular = Resources.NONE;
        Resources regularLimits = Resources.NONE;
        List<Container> containers = spec.getContainers() == null ? List.of() : spec.getContainers();
        for (int i = 0; i < containers.size(); i++) {
            Amounts c = container(containers.get(i), field + ".containers[" + i + "]");
            regular = regular.plus(c.requests());
            regularLimits = regularLimits.plus(c.limits());
        }
        // init containers run one after the other, each beside the sidecars (restartPolicy: Always) started
        // before it; sidecars keep running beside the regular containers (Kubernetes "Sidecar Containers")
        Resources init = Resources.NONE;
        Resources initLimits = Resources.NONE;
        Resources sidecars = Resources.NONE;
        Resources sidecarLimits = Resources.NONE;
        List<Container> initContainers = spec.getInitContainers() == null ? List.of() : spec.getInitContainers();
        for (int i = 0; i < initContainers.size(); i++) {
            Container container = initContainers.get(i);
            Amounts c = container(container, field + ".initContainers[" + i + "]");
            if ("Always".equals(container.getRestartPolicy())) { // not null: container() refused that
                sidecars = sidecars.plus(c.requests());
                sidecarLimits = sidecarLimits.plus(c.limits());
                init = init.max(sidecars);
                initLimits = initLimits.max(sidecarLimits);
            } else {
                init = init.max(c.requests().plus(sidecars));
                initLimits = initLimits.max(c.limits().plus(sidecarLimits));
            }
        }
        Resources requests = regular.plus(sidecars).max(init);
        Resources limits = regularLimits.plus(sidecarLimits).max(initLimits);
        ResourceRequirements podLevel = spec.getResources();
        if (podLevel != null) {
            Resources podRequests = podLevel(podLevel.getRequests(), field + ".resources.requests");
            Resources podLimits = podLevel(podLevel.getLimits(), field + ".resources.limits");
            for (Map.Entry<String, Long> limit : podLimits.asMap().entrySet()) {
                String resource = limit.getKey();
                // the API server's defaulting of a pod-level limit without a request (defaultPodRequests)
                if (!podRequests.has(resource) && (!requests.has(resource) || resource.startsWith(HUGEPAGES))) {
                    podRequests = podRequests.with(resource, limit.getValue());
                }
            }
            requests = replace(requests, podRequests);
            limits = replace(limits, podLimits);
        }
        Resources overhead = toResources(spec.getOverhead(), field + ".overhead");
        requests = requests.plus(overhead);
        for (Map.Entry<String, Long> extra : overhead.asMap().entrySet()) {
            if (limits.has(extra.getKey())) { // Kubernetes adds overhead to a limit only where one is set
                limits = limits.with(extra.getKey(), limits.get(extra.getKey()) + extra.getValue());
            }
        }
        for (String resource : LIMITED) {
            if (limits.has(resource)) {
                requests = requests.with(LIMITS + resource, limits.get(resource));
            }
        }
        return requests;
    }

    /** The pod-level amounts of the resources Kubernetes supports at pod level; other names are ignored. */
    private static Resources podLevel(Map<String, Quantity> quantities, String field) {
        Resources all = toResources(quantities, field);
        Resources supported = Resources.NONE;
        for (Map.Entry<String, Long> amount : all.asMap().entrySet()) {
            String resource = amount.getKey();
            if (Resources.CPU.equals(resource) || Resources.MEMORY.equals(resource) || resource.startsWith(HUGEPAGES)) {
                supported = supported.with(resource, amount.getValue());
            }
        }
        return supported;
    }

    /** {@code base} with every resource named in {@code replacements} set to its value there. */
    private static Resources replace(Resources base, Resources replacements) {
        Resources result = base;
        for (Map.Entry<String, Long> amount : replacements.asMap().entrySet()) {
            result = result.with(amount.getKey(), amount.getValue());
        }
        return result;
    }

    private record Amounts(Resources requests, Resources limits) {
    }

    /** A container's requests (limits standing in for missing requests) and its limits. */
    private static Amounts container(Container container, String field) {
        if (container == null) { // a null in the list: the API server would refuse it, a tenant's CRD may not
            throw new InvalidJobException(field, null, "a container must be an object");
        }
        ResourceRequirements resources = container.getResources();
        if (resources == null) {
            return new Amounts(Resources.NONE, Resources.NONE);
        }
        Resources requests = toResources(resources.getRequests(), field + ".resources.requests");
        Resources limits = toResources(resources.getLimits(), field + ".resources.limits");
        for (Map.Entry<String, Long> limit : limits.asMap().entrySet()) {
            if (!requests.has(limit.getKey())) {
                requests = requests.with(limit.getKey(), limit.getValue());
            }
        }
        return new Amounts(requests, limits);
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
