package io.kubequeue.job;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.collections.BoundedInterner;
import io.kubequeue.resources.Quantities;
import io.kubequeue.resources.PodRequests;

/**
 * The compact copies of cluster objects that kube-queue's informer caches keep instead of whole objects
 * (docs/architecture.md, "Informer caches"): each copy holds what kube-queue and JOSDK read, and nothing else. The
 * kinds' {@link JobKind#pruned} build job copies from these parts; the ResourceQuota plugin's
 * {@link JobPods} (the pods of managed jobs) caches pods through {@link #pod}.
 *
 * <p>What is kept of a job's metadata: name, namespace, uid, resourceVersion, generation, creationTimestamp,
 * deletionTimestamp and finalizers (JOSDK skips a job marked for deletion); the labels kube-queue reads
 * ({@link Annotations#QUOTA_NAME_LABEL}, {@link Annotations#PREEMPTIBLE_LABEL}); and every annotation <em>key</em>,
 * with the values of the annotations kube-queue reads. Other annotations keep their key with an empty value: the
 * admission patch depends on whether the job has any annotation at all ({@link JobDirectory.Entry#annotationsPresent}),
 * and a job whose only annotation is {@value #LAST_APPLIED} must not look as if it had none, or the patch would
 * replace its annotation map; of its owner references, the kind of its controller, if any. Dropped: managedFields,
 * the other owner references and their names, the other labels and annotation values.
 *
 * <p>What is kept of a pod template: per container, {@code resources.requests} and {@code resources.limits} (and
 * each init container's {@code restartPolicy}, which makes it a sidecar); the pod's {@code overhead},
 * {@code resources} (pod-level requests and limits), {@code runtimeClassName} (whose overhead is priced),
 * {@code priorityClassName} and {@code priority}: what {@link PodRequests} and the kinds' {@code priority} read. Containers stay in place, so error messages name the
 * same index. A map of quantities that all read is kept as an unmodifiable map of shared quantities (one instance
 * per value for every copy: a cluster uses few distinct values); a map with a quantity that cannot be read is kept as
 * written, in its order, so that the copy fails with the same message.
 *
 * <p>A pruned pod spec that reads whole is shared too ({@link #podSpec}, {@link #podTemplate}): one instance per
 * distinct spec, as jobs come from few templates (issue 27: some 440 bytes per pending job).
 *
 * <p>The copies are as small as the fabric8 model allows: collections that would be empty are null, maps are
 * unmodifiable and sized to their content, and strings that repeat from job to job (namespaces, label and annotation
 * values, priority class names, creation times) are interned. So are a job's name and uid: start-up reads every job
 * once besides the informer, a re-list reads it again, and each read is a new parse; interned, kube-queue's keys and
 * records of the job ({@code JobKey} interns too) and the cache hold one instance of each instead of one per read
 * (issue 27: three copies of each name, two of each uid, per pending job). The JVM's string table lets go of a
 * string no one holds any more. Nothing may change a cached copy: parts of it are shared.
 *
 * <p>A copy must never be written back to the cluster (a PUT or a status update of it would erase every field
 * dropped here): kube-queue writes jobs only with JSON Patches built from {@link JobDirectory.Entry}, and reads a
 * job from the API server whenever it needs it whole.
 */
public final class Pruning {

    /** The annotation {@code kubectl apply} stores the whole applied object in; often a job's largest field. */
    public static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

    /**
     * The annotations whose values kube-queue reads on a job of any kind: the suspend mark, the admission record and
     * the eviction marks, the signature over both, the pod-ran mark, and the expected duration ({@link JobFeed} reads them,
     * {@link JobDirectory.Entry} whether a job carries them).
     */
    public static final Set<String> JOB_ANNOTATIONS = Set.of(SuspendMark.ANNOTATION_KEY, Annotations.QUOTA_GROUP,
            Annotations.ADMITTED_AT, Annotations.EVICTED, Annotations.EVICTED_FOR, Annotations.RECLAIMED_AT,
            Annotations.TIMED_OUT_AT, Annotations.ADMITTED_REQUEST, Annotations.RECORD_SIGNATURE,
            Annotations.POD_RAN, Annotations.EXPECTED_DURATION);
    /** Of {@link #JOB_ANNOTATIONS}, those whose values differ from job to job: kept as they are, not interned. */
    private static final Set<String> UNSHARED_VALUES = Set.of(Annotations.ADMITTED_AT, Annotations.EVICTED_FOR,
            Annotations.RECLAIMED_AT, Annotations.TIMED_OUT_AT, Annotations.RECORD_SIGNATURE,
            Annotations.POD_RAN);
    /** The labels kube-queue reads on a job. */
    private static final Set<String> JOB_LABELS = Set.of(Annotations.QUOTA_NAME_LABEL, Annotations.PREEMPTIBLE_LABEL);

    /** At most this many distinct quantities (or JSON quantity texts) are shared; more are copied, each its own. */
    static final int SHARED_LIMIT = 4096;
    private static final Map<String, Quantity> QUANTITIES = new ConcurrentHashMap<>();
    private static final BoundedInterner<PodSpec> SPECS = new BoundedInterner<>(SHARED_LIMIT);
    private static final Map<PodSpec, PodTemplateSpec> TEMPLATES = new ConcurrentHashMap<>();

    private Pruning() {
    }

    /**
     * A job's metadata as cached (see the class comment), keeping the values of {@link #JOB_ANNOTATIONS}.
     *
     * @param meta the job's metadata; null gives null
     */
    public static ObjectMeta jobMetadata(ObjectMeta meta) {
        return jobMetadata(meta, JOB_ANNOTATIONS);
    }

    /**
     * A job's metadata as cached (see the class comment).
     *
     * @param meta the job's metadata; null gives null
     * @param read the annotation keys whose values are kept: {@link #JOB_ANNOTATIONS} and those the kind reads
     *             besides, e.g. a Workflow's {@code kube-queue/min-resources}
     */
    public static ObjectMeta jobMetadata(ObjectMeta meta, Set<String> read) {
        if (meta == null) {
            return null;
        }
        ObjectMeta copy = identity(meta);
        copy.setLabels(only(meta.getLabels(), JOB_LABELS::contains));
        copy.setOwnerReferences(controllerKind(meta.getOwnerReferences()));
        Map<String, String> annotations = meta.getAnnotations();
        if (annotations != null && !annotations.isEmpty()) {
            Map<String, String> kept = new HashMap<>(annotations.size() * 4 / 3 + 1);
            annotations.forEach((key, value) -> kept.put(key, !read.contains(key) ? ""
                    : UNSHARED_VALUES.contains(key) ? value
                    : Annotations.EXPECTED_DURATION.equals(key) ? expectedDuration(value) : intern(value)));
            copy.setAnnotations(compact(kept));
        }
        return copy;
    }

    /**
     * A pod as {@link JobPods} caches it: name, namespace, uid, resourceVersion, deletionTimestamp, the labels whose
     * key is in {@code labelKeys} (the kinds' pod labels, which tie a pod to its job), ownerReferences, the pod spec's
     * requests as for a template (see the class comment), and {@code status.phase} (whether it ran, for the
     * admission timeout; whether it ended, for ResourceQuota usage).
     *
     * @param pod       the pod as read; null gives null
     * @param labelKeys the label keys to keep
     */
    public static Pod pod(Pod pod, Set<String> labelKeys) {
        if (pod == null) {
            return null;
        }
        Pod copy = new Pod();
        copy.setApiVersion(intern(pod.getApiVersion()));
        copy.setKind(intern(pod.getKind()));
        copy.setAdditionalProperties(null);
        ObjectMeta meta = pod.getMetadata();
        if (meta != null) {
            ObjectMeta kept = identity(meta);
            kept.setLabels(only(meta.getLabels(), labelKeys::contains));
            kept.setOwnerReferences(nullIfEmpty(meta.getOwnerReferences()));
            copy.setMetadata(kept);
        }
        copy.setSpec(podSpec(pod.getSpec()));
        if (pod.getStatus() != null && pod.getStatus().getPhase() != null) {
            PodStatus status = new PodStatus();
            clear(status);
            status.setPhase(intern(pod.getStatus().getPhase()));
            copy.setStatus(status);
        }
        return copy;
    }

    /**
     * A pod spec reduced to what {@link PodRequests} and the priority read (see the class comment).
     *
     * @param spec a pod spec as read; null gives null
     */
    public static PodSpec podSpec(PodSpec spec) {
        if (spec == null) {
            return null;
        }
        PodSpec copy = new PodSpec();
        copy.setEphemeralContainers(null);
        copy.setHostAliases(null);
        copy.setImagePullSecrets(null);
        copy.setNodeSelector(null);
        copy.setReadinessGates(null);
        copy.setResourceClaims(null);
        copy.setSchedulingGates(null);
        copy.setTolerations(null);
        copy.setTopologySpreadConstraints(null);
        copy.setVolumes(null);
        copy.setAdditionalProperties(null);
        copy.setContainers(containers(spec.getContainers(), false));
        copy.setInitContainers(containers(spec.getInitContainers(), true));
        copy.setOverhead(quantities(spec.getOverhead()));
        copy.setResources(requirements(spec.getResources()));
        copy.setPriorityClassName(intern(spec.getPriorityClassName()));
        copy.setPriority(spec.getPriority());
        copy.setRuntimeClassName(intern(spec.getRuntimeClassName())); // its RuntimeClass's overhead is priced
        return sharedSpec(copy);
    }

    /**
     * A job's pod template as cached: only its pruned {@link #podSpec} (the template's labels and annotations are not
     * read), one instance for every job whose template prunes to the same spec.
     *
     * @param template a pod template as read; null gives null
     */
    public static PodTemplateSpec podTemplate(PodTemplateSpec template) {
        if (template == null) {
            return null;
        }
        PodSpec spec = podSpec(template.getSpec());
        boolean shared = spec != null && shareable(spec); // else its hash may throw on a bad quantity
        PodTemplateSpec known = shared ? TEMPLATES.get(spec) : null;
        if (known != null) {
            return known;
        }
        PodTemplateSpec copy = new PodTemplateSpec();
        copy.setAdditionalProperties(null);
        copy.setSpec(spec);
        if (!shared || !SPECS.isShared(spec) || TEMPLATES.size() >= SHARED_LIMIT) {
            return copy;
        }
        PodTemplateSpec raced = TEMPLATES.putIfAbsent(spec, copy);
        return raced == null ? copy : raced;
    }

    /**
     * Whether {@code template} is the one shared instance of its pruned spec ({@link #podTemplate}): what an object
     * holding it may be shared on (it reads whole, and hashing it cannot fail).
     */
    public static boolean isShared(PodTemplateSpec template) {
        PodSpec spec = template.getSpec();
        // shareable first: the hash of a spec with a quantity that cannot be read may throw
        return spec != null && shareable(spec) && TEMPLATES.get(spec) == template;
    }

    /**
     * One instance per distinct pruned spec (bounded as the quantities are): the jobs of a cluster come from few
     * templates, and a pruned spec (the requests, limits, overhead and priority) is some 400 bytes of fabric8 objects
     * (issue 27: memory per pending job). A spec holding a null container or a quantity that cannot be read is kept
     * as it is, so that it fails with its own message. Equal means equal by fabric8's {@code equals}, whose
     * quantities compare by amount ({@code 1000m} equals {@code 1}): the request read from either is the same.
     */
    private static PodSpec sharedSpec(PodSpec spec) {
        if (!shareable(spec)) {
            return spec;
        }
        return SPECS.intern(spec);
    }

    private static boolean shareable(PodSpec spec) {
        return shareable(spec.getContainers()) && shareable(spec.getInitContainers())
                && readable(spec.getOverhead()) && readable(spec.getResources());
    }

    private static boolean shareable(List<Container> containers) {
        if (containers == null) {
            return true;
        }
        for (Container container : containers) {
            if (container == null || !readable(container.getResources())) {
                return false;
            }
        }
        return true;
    }

    private static boolean readable(ResourceRequirements resources) {
        return resources == null || readable(resources.getRequests()) && readable(resources.getLimits());
    }

    private static boolean readable(Map<String, Quantity> quantities) {
        if (quantities == null) {
            return true;
        }
        for (Map.Entry<String, Quantity> q : quantities.entrySet()) {
            if (q.getKey() == null || q.getValue() == null) {
                return false;
            }
            try {
                Quantities.toUnits(q.getKey(), q.getValue());
            } catch (RuntimeException e) {
                return false;
            }
        }
        return true;
    }

    /**
     * A pod template written as JSON (a Kubeflow replica's {@code template}) reduced like {@link #podSpec}: only
     * {@code spec} is kept, and in it only the fields {@link PodRequests} and the priority read. A template that does
     * not read as a {@code PodTemplateSpec} is kept whole, so that it fails on the copy with the same message.
     *
     * @param template      the template node; null or not an object is returned as is
     * @param serialization the client's serialization, to check that the template reads as one
     */
    public static JsonNode podTemplate(JsonNode template, KubernetesSerialization serialization) {
        return PrunedPodTemplates.podTemplate(template, serialization);
    }

    /**
     * A ResourceRequirements written as JSON (a declared kind's {@code resources}, e.g. a TrainJob's
     * {@code resourcesPerNode}) reduced to its {@code requests} and {@code limits}, each quantity text shared. One
     * that does not read as a ResourceRequirements is kept whole, so that it fails on the copy with the same message.
     *
     * @param resources     the node; null or not an object is returned as is
     * @param serialization the client's serialization, to check that it reads as one
     */
    public static JsonNode resourceRequirements(JsonNode resources, KubernetesSerialization serialization) {
        return PrunedPodTemplates.resourceRequirements(resources, serialization);
    }

    private static List<Container> containers(List<Container> containers, boolean init) {
        if (containers == null || containers.isEmpty()) {
            return null;
        }
        List<Container> copy = new ArrayList<>(containers.size());
        for (Container container : containers) {
            if (container == null) {
                copy.add(null); // kept in place: the code reading it fails on it as on the original
                continue;
            }
            Container kept = new Container();
            kept.setArgs(null);
            kept.setCommand(null);
            kept.setEnv(null);
            kept.setEnvFrom(null);
            kept.setPorts(null);
            kept.setResizePolicy(null);
            kept.setRestartPolicyRules(null);
            kept.setVolumeDevices(null);
            kept.setVolumeMounts(null);
            kept.setAdditionalProperties(null);
            kept.setResources(requirements(container.getResources()));
            if (init) {
                kept.setRestartPolicy(intern(container.getRestartPolicy()));
            }
            copy.add(kept);
        }
        return copy;
    }

    private static ResourceRequirements requirements(ResourceRequirements resources) {
        if (resources == null) {
            return null;
        }
        Map<String, Quantity> requests = quantities(resources.getRequests());
        Map<String, Quantity> limits = quantities(resources.getLimits());
        if (requests == null && limits == null) {
            return null;
        }
        ResourceRequirements copy = new ResourceRequirements();
        copy.setClaims(null);
        copy.setAdditionalProperties(null);
        copy.setRequests(requests);
        copy.setLimits(limits);
        return copy;
    }

    /**
     * Of a job's owner references, only its controller (apiVersion, kind, name, {@code controller: true}), if it has
     * one: whether that controller holds the job ({@link JobFeed#ownedByAnotherController}; an MPIJob holds its
     * launcher, named after it). Null for the many jobs with no owner.
     */
    private static List<OwnerReference> controllerKind(List<OwnerReference> owners) {
        if (owners == null) {
            return null;
        }
        for (OwnerReference owner : owners) {
            if (Boolean.TRUE.equals(owner.getController())) {
                OwnerReference kept = new OwnerReference();
                kept.setApiVersion(intern(owner.getApiVersion()));
                kept.setKind(intern(owner.getKind()));
                kept.setName(owner.getName());
                kept.setController(Boolean.TRUE);
                kept.setAdditionalProperties(null);
                return List.of(kept);
            }
        }
        return null;
    }

    /** The metadata fields every cached copy keeps; no labels, annotations or ownerReferences yet. */
    private static ObjectMeta identity(ObjectMeta meta) {
        ObjectMeta copy = new ObjectMeta();
        copy.setAnnotations(null);
        copy.setLabels(null);
        copy.setManagedFields(null);
        copy.setOwnerReferences(null);
        copy.setAdditionalProperties(null);
        // interned, these are the instances kube-queue's own state holds too, whichever read of the job built it
        copy.setName(intern(meta.getName()));
        copy.setNamespace(intern(meta.getNamespace()));
        copy.setUid(intern(meta.getUid()));
        copy.setResourceVersion(meta.getResourceVersion());
        copy.setGeneration(meta.getGeneration());
        copy.setCreationTimestamp(intern(meta.getCreationTimestamp())); // jobs created in the same second share it
        copy.setDeletionTimestamp(meta.getDeletionTimestamp());
        copy.setFinalizers(nullIfEmpty(meta.getFinalizers()));
        return copy;
    }

    private static void clear(PodStatus status) {
        status.setConditions(null);
        status.setContainerStatuses(null);
        status.setEphemeralContainerStatuses(null);
        status.setHostIPs(null);
        status.setInitContainerStatuses(null);
        status.setPodIPs(null);
        status.setResourceClaimStatuses(null);
        status.setAdditionalProperties(null);
    }

    private static Map<String, String> only(Map<String, String> map, Predicate<String> keep) {
        if (map == null || map.isEmpty()) {
            return null;
        }
        Map<String, String> kept = null;
        for (Map.Entry<String, String> entry : map.entrySet()) {
            if (keep.test(entry.getKey())) {
                if (kept == null) {
                    kept = new HashMap<>(4);
                }
                kept.put(entry.getKey(), intern(entry.getValue()));
            }
        }
        return kept == null ? null : compact(kept);
    }

    /**
     * Quantities as cached: null for none; if every one reads ({@link Quantities#toUnits}), an unmodifiable map of
     * shared instances (their order does not matter then); else the map as read, whose order decides which bad
     * quantity is reported first.
     */
    private static Map<String, Quantity> quantities(Map<String, Quantity> map) {
        if (map == null || map.isEmpty()) {
            return null;
        }
        Map<String, Quantity> shared = new HashMap<>(map.size() * 4 / 3 + 1);
        for (Map.Entry<String, Quantity> q : map.entrySet()) {
            if (q.getKey() == null || q.getValue() == null) {
                return map;
            }
            try {
                Quantities.toUnits(q.getKey(), q.getValue());
            } catch (RuntimeException e) {
                return map;
            }
            shared.put(q.getKey(), shared(q.getValue()));
        }
        return Map.copyOf(shared);
    }

    /** One instance per amount and format, never changed (no additional properties can be set on it). */
    private static Quantity shared(Quantity q) {
        String key = q.getAmount() + "\u0000" + q.getFormat();
        Quantity known = QUANTITIES.get(key);
        if (known != null) {
            return known;
        }
        Quantity copy = new Quantity();
        copy.setAmount(q.getAmount());
        copy.setFormat(q.getFormat());
        copy.setAdditionalProperties(Map.of());
        if (QUANTITIES.size() < SHARED_LIMIT) {
            Quantity raced = QUANTITIES.putIfAbsent(key, copy);
            return raced == null ? copy : raced;
        }
        return copy;
    }

    /** An unmodifiable copy sized to its content; a map with a null key or value stays as it is. */
    private static Map<String, String> compact(Map<String, String> map) {
        for (Map.Entry<String, String> entry : map.entrySet()) {
            if (entry.getKey() == null || entry.getValue() == null) {
                return map;
            }
        }
        return Map.copyOf(map);
    }

    /** The one instance of a string that repeats from job to job (JVM string pool); null stays null. */
    /**
     * A {@link Annotations#EXPECTED_DURATION} as cached: past {@value RunTimeFields#EXPECTED_DURATION_MAX_LENGTH}
     * characters only one character more is kept, which reads as the whole does (too long); the cache holds no
     * tenant's 10,000-character value, nor the string table.
     */
    private static String expectedDuration(String value) {
        return value != null && value.length() > RunTimeFields.EXPECTED_DURATION_MAX_LENGTH
                ? value.substring(0, RunTimeFields.EXPECTED_DURATION_MAX_LENGTH + 1) : intern(value);
    }

    private static String intern(String text) {
        return text == null ? null : text.intern();
    }

    private static <E> List<E> nullIfEmpty(List<E> list) {
        return list == null || list.isEmpty() ? null : list;
    }
}
