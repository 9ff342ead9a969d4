package io.kubequeue.resources;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

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
 *
 * <p>Bounded (docs/security.md, "Hostile input: the bounds"): a pod names at most {@value #MAX_RESOURCES} distinct
 * resources, and is priced in one mutable map per sum, made into one {@link Resources} at the end, so the cost is
 * linear in the pod spec. Where a field is, for messages, is written out only when one is refused: a caller's
 * {@code field} is copied once per pod, not once per container.
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

    /**
     * The most distinct resource names one pod may name, over its containers' and init containers' requests and
     * limits, its pod-level resources and its overhead (LimitRange and RuntimeClass defaults included). A real pod
     * names a handful: cpu, memory, ephemeral-storage, a hugepages size or two, a few extended resources such as
     * {@code nvidia.com/gpu}; 64 leaves ten times that. A CRD schema cannot limit a map's keys, so a tenant's template
     * may name tens of thousands (a 1.5 MiB object holds about 60,000), and each distinct name costs the scheduler
     * at every fit check; past the bound the job is refused at the field where the pod passes it.
     */
    public static final int MAX_RESOURCES = 64;

    private PodRequests() {
    }

    /**
     * @param spec  the pod spec of a template
     * @param field where the spec sits in the job, for error messages (e.g. {@code spec.template.spec})
     * @return millicores for cpu, bytes for memory, ephemeral-storage and hugepages, counts for extended resources;
     *         the cpu, memory and ephemeral-storage limits as {@code limits.<name>} in the same units
     * @throws InvalidJobException naming the field of a quantity that cannot be parsed or is negative, of a
     *                             container that is null, or of the resources where the pod names more than
     *                             {@value #MAX_RESOURCES} distinct resources
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
        Set<String> names = new HashSet<>();
        Map<String, Long> requests = new HashMap<>(); // the regular containers' sum, then the pod's
        Map<String, Long> limits = new HashMap<>();
        List<Container> containers = spec.getContainers() == null ? List.of() : spec.getContainers();
        for (int i = 0; i < containers.size(); i++) {
            int index = i;
            Amounts c = container(containers.get(i), () -> field + ".containers[" + index + "]", names);
            add(requests, c.requests());
            add(limits, c.limits());
        }
        // init containers run one after the other, each beside the sidecars (restartPolicy: Always) started
        // before it; sidecars keep running beside the regular containers (Kubernetes "Sidecar Containers").
        // Invariant: init >= sidecars, resource by resource (and names every resource sidecars names), so an init
        // container changes init only in the resources it names itself: linear in the containers, not quadratic
        Map<String, Long> init = new HashMap<>();
        Map<String, Long> initLimits = new HashMap<>();
        Map<String, Long> sidecars = new HashMap<>();
        Map<String, Long> sidecarLimits = new HashMap<>();
        List<Container> initContainers = spec.getInitContainers() == null ? List.of() : spec.getInitContainers();
        for (int i = 0; i < initContainers.size(); i++) {
            Container container = initContainers.get(i);
            int index = i;
            Amounts c = container(container, () -> field + ".initContainers[" + index + "]", names);
            if ("Always".equals(container.getRestartPolicy())) { // not null: container() refused that
                add(sidecars, c.requests());
                add(sidecarLimits, c.limits());
                atLeast(init, sidecars, c.requests(), Map.of());
                atLeast(initLimits, sidecarLimits, c.limits(), Map.of());
            } else {
                atLeast(init, c.requests(), c.requests(), sidecars);
                atLeast(initLimits, c.limits(), c.limits(), sidecarLimits);
            }
        }
        add(requests, sidecars);
        atLeast(requests, init, init, Map.of());
        add(limits, sidecarLimits);
        atLeast(limits, initLimits, initLimits, Map.of());
        ResourceRequirements podLevel = spec.getResources();
        if (podLevel != null) {
            Map<String, Long> podRequests = podLevel(podLevel.getRequests(), () -> field + ".resources.requests",
                    names);
            Map<String, Long> podLimits = podLevel(podLevel.getLimits(), () -> field + ".resources.limits", names);
            for (Map.Entry<String, Long> limit : podLimits.entrySet()) {
                String resource = limit.getKey();
                // the API server's defaulting of a pod-level limit without a request (defaultPodRequests)
                if (!podRequests.containsKey(resource)
                        && (!requests.containsKey(resource) || resource.startsWith(HUGEPAGES))) {
                    podRequests.put(resource, limit.getValue());
                }
            }
            requests.putAll(podRequests);
            limits.putAll(podLimits);
        }
        Map<String, Long> overhead = amounts(spec.getOverhead(), () -> field + ".overhead", names);
        add(requests, overhead);
        for (Map.Entry<String, Long> extra : overhead.entrySet()) {
            // Kubernetes adds overhead to a limit only where one is set
            limits.computeIfPresent(extra.getKey(),
                    (resource, limit) -> Resources.saturatingAdd(limit, extra.getValue()));
        }
        return withLimits(requests, limits);
    }

    /**
     * One pod of one container with these resources (a per-pod ResourceRequirements, such as TrainJob's
     * {@code resourcesPerNode}), as {@link #of(PodSpec, String)} prices it: its requests, a limit standing in for a
     * missing request, and its cpu, memory and ephemeral-storage limits as {@code limits.<name>}.
     *
     * @param resources the requirements; null gives no resources
     * @param field     where they sit in the job: a bad amount is named {@code <field>.requests.<name>} or
     *                  {@code <field>.limits.<name>}
     * @throws InvalidJobException naming the field of a quantity that cannot be parsed or is negative, or of the
     *                             requests or limits where more than {@value #MAX_RESOURCES} distinct resources are
     *                             named
     */
    public static Resources of(ResourceRequirements resources, String field) {
        if (resources == null) {
            return Resources.NONE;
        }
        Amounts c = requirements(resources, () -> field, new HashSet<>());
        return withLimits(c.requests(), c.limits());
    }

    /** {@code requests}, with the limits of {@link #LIMITED} resources as {@code limits.<name>}, as Resources. */
    private static Resources withLimits(Map<String, Long> requests, Map<String, Long> limits) {
        for (String resource : LIMITED) {
            Long limit = limits.get(resource);
            if (limit != null) {
                requests.put(LIMITS + resource, limit);
            }
        }
        return Resources.of(requests);
    }

    /** The pod-level amounts of the resources Kubernetes supports at pod level; other names are ignored. */
    private static Map<String, Long> podLevel(Map<String, Quantity> quantities, Supplier<String> field,
                                              Set<String> names) {
        Map<String, Long> all = amounts(quantities, field, names);
        all.keySet().removeIf(resource -> !Resources.CPU.equals(resource) && !Resources.MEMORY.equals(resource)
                && !resource.startsWith(HUGEPAGES));
        return all;
    }

    /** Adds {@code amounts} into {@code sum}, saturating as {@link Resources#plus} does. */
    private static void add(Map<String, Long> sum, Map<String, Long> amounts) {
        amounts.forEach((resource, amount) -> sum.merge(resource, amount, Resources::saturatingAdd));
    }

    /**
     * Raises {@code target} to at least {@code a + b} ({@link Resources#max} of {@link Resources#plus}) in the
     * resources {@code names} names; the caller knows {@code target} is already that large in the others.
     */
    private static void atLeast(Map<String, Long> target, Map<String, Long> a, Map<String, Long> names,
                                Map<String, Long> b) {
        for (String resource : names.keySet()) {
            long amount = Resources.saturatingAdd(a.getOrDefault(resource, 0L), b.getOrDefault(resource, 0L));
            target.merge(resource, amount, Math::max);
        }
    }

    private record Amounts(Map<String, Long> requests, Map<String, Long> limits) {
    }

    /** A container's requests (limits standing in for missing requests) and its limits. */
    private static Amounts container(Container container, Supplier<String> field, Set<String> names) {
        if (container == null) { // a null in the list: the API server would refuse it, a tenant's CRD may not
            throw new InvalidJobException(field.get(), null, "a container must be an object");
        }
        ResourceRequirements resources = container.getResources();
        if (resources == null) {
            return new Amounts(Map.of(), Map.of());
        }
        return requirements(resources, () -> field.get() + ".resources", names);
    }

    /** Requests (limits standing in for missing ones) and limits of one ResourceRequirements at {@code field}. */
    private static Amounts requirements(ResourceRequirements resources, Supplier<String> field, Set<String> names) {
        Map<String, Long> requests = amounts(resources.getRequests(), () -> field.get() + ".requests", names);
        Map<String, Long> limits = amounts(resources.getLimits(), () -> field.get() + ".limits", names);
        limits.forEach(requests::putIfAbsent);
        return new Amounts(requests, limits);
    }

    /**
     * The amounts of one map of quantities, in a new mutable map; each name counted into the pod's {@code names}.
     *
     * @param field the map's location, built only for a message
     */
    private static Map<String, Long> amounts(Map<String, Quantity> quantities, Supplier<String> field,
                                             Set<String> names) {
        Map<String, Long> amounts = new HashMap<>();
        if (quantities == null) {
            return amounts;
        }
        for (Map.Entry<String, Quantity> q : quantities.entrySet()) {
            if (names.add(q.getKey()) && names.size() > MAX_RESOURCES) {
                throw new InvalidJobException(field.get(), "an object of " + quantities.size() + " fields",
                        "a pod names at most " + MAX_RESOURCES + " distinct resources (in its containers' requests and"
                                + " limits, its pod-level resources and its overhead together)");
            }
            try {
                amounts.put(q.getKey(), Quantities.toUnits(q.getKey(), q.getValue()));
            } catch (IllegalArgumentException e) {
                throw new InvalidJobException(field.get() + "." + q.getKey(), q.getValue(), e.getMessage());
            }
        }
        return amounts;
    }
}
