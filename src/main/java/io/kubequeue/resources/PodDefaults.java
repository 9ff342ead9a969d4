package io.kubequeue.resources;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

/**
 * What the API server's admission plugins add to a new pod of one namespace before its request is counted
 * (docs/behaviour.md §2), in the order a pod gets it:
 * <ol>
 *   <li>the API server's defaulting of the pod (pkg/apis/core/v1 {@code SetDefaults_Pod}): a container that sets a
 *       limit and no request for a resource requests its limit. This comes first, so a LimitRange's
 *       {@code defaultRequest} never replaces a request the container's own limit gave it (Kubernetes docs
 *       "Configure Default Memory Requests and Limits for a Namespace", "What if you specify a container's limit, but
 *       not its request?");</li>
 *   <li>LimitRanger ({@link ContainerDefaults}): each container and init container (sidecars included) gets the
 *       namespace's default limit for each resource it sets no limit for, and the default request for each it sets no
 *       request for (https://kubernetes.io/docs/concepts/policy/limit-range/);</li>
 *   <li>RuntimeClass: a pod naming a {@code runtimeClassName} whose RuntimeClass sets {@code overhead.podFixed} gets
 *       that as its {@code spec.overhead} (Kubernetes docs "Pod Overhead",
 *       https://kubernetes.io/docs/concepts/scheduling-eviction/pod-overhead/; a pod that sets another overhead itself
 *       is refused, so the class's is the one that can run). A class that is not known (not created yet, or not
 *       listed) adds nothing: the API server refuses such a pod, and the job is priced by its template.</li>
 * </ol>
 * The pod's request is then the larger of its containers' sum and its largest init container, plus the overhead
 * ({@code io.kubequeue.resources.PodRequests}). Immutable and thread-safe.
 */
public final class PodDefaults {

    /** Nothing added: a namespace without LimitRanges, and no RuntimeClass overheads. */
    public static final PodDefaults NONE = new PodDefaults(ContainerDefaults.NONE, Map.of());

    private final ContainerDefaults containers;
    private final Map<String, Map<String, Quantity>> overheads;

    /**
     * @param containers the namespace's container defaults
     * @param overheads  RuntimeClass name to its {@code overhead.podFixed}, for the classes that set one
     */
    public PodDefaults(ContainerDefaults containers, Map<String, Map<String, Quantity>> overheads) {
        this.containers = containers;
        this.overheads = Map.copyOf(overheads);
    }

    /** The namespace's container defaults. */
    public ContainerDefaults containers() {
        return containers;
    }

    /**
     * The pod spec as the admission plugins leave a pod made from it: a new spec holding the fields a pod's request
     * is counted from (containers and init containers with their name, {@code restartPolicy} and resources; the
     * pod-level {@code resources}; {@code overhead}; {@code runtimeClassName}, {@code priorityClassName},
     * {@code priority}); the template itself is not changed. Returns {@code spec} itself when nothing applies.
     *
     * @param spec a pod template's spec; null gives null
     */
    public PodSpec applyTo(PodSpec spec) {
        if (spec == null) {
            return null;
        }
        Map<String, Quantity> overhead = spec.getRuntimeClassName() == null ? null
                : overheads.get(spec.getRuntimeClassName());
        if (containers.isEmpty() && overhead == null) {
            return spec;
        }
        PodSpec admitted = new PodSpec();
        admitted.setContainers(withDefaults(spec.getContainers()));
        admitted.setInitContainers(withDefaults(spec.getInitContainers()));
        admitted.setResources(spec.getResources());
        admitted.setOverhead(overhead != null ? overhead : spec.getOverhead());
        admitted.setRuntimeClassName(spec.getRuntimeClassName());
        admitted.setPriorityClassName(spec.getPriorityClassName());
        admitted.setPriority(spec.getPriority());
        return admitted;
    }

    private List<Container> withDefaults(List<Container> list) {
        if (list == null || containers.isEmpty()) {
            return list;
        }
        List<Container> result = new ArrayList<>(list.size());
        for (Container container : list) {
            if (container == null) {
                result.add(null); // refused as it is by the request's reading, naming the field
                continue;
            }
            ResourceRequirements own = container.getResources();
            Map<String, Quantity> limits = new LinkedHashMap<>(own == null || own.getLimits() == null
                    ? Map.of() : own.getLimits());
            Map<String, Quantity> requests = new LinkedHashMap<>(own == null || own.getRequests() == null
                    ? Map.of() : own.getRequests());
            limits.forEach(requests::putIfAbsent); // SetDefaults_Pod, before any admission plugin
            containers.limits().forEach(limits::putIfAbsent);
            containers.requests().forEach(requests::putIfAbsent);
            Container copy = new Container();
            copy.setName(container.getName());
            copy.setRestartPolicy(container.getRestartPolicy());
            ResourceRequirements resources = new ResourceRequirements();
            resources.setLimits(limits);
            resources.setRequests(requests);
            copy.setResources(resources);
            result.add(copy);
        }
        return result;
    }
}
