package io.kubequeue.job;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.input.InvalidJobException;

/**
 * What kube-queue needs to know about one kind of job. A new kind is one folder under {@code io.kubequeue.job}:
 * its fabric8 type, one implementation of this interface (a {@code @Singleton} bean) listed once in
 * {@link JobKinds}, and a thin reconciler that hands its objects to {@link JobFeed} (docs/architecture.md,
 * "Adding a job kind"). What a kind can do beyond this interface is an optional capability it implements, e.g.
 * {@link ShowsQueuingCondition}.
 *
 * @param <R> the job's fabric8 type
 */
public interface JobKind<R extends HasMetadata> {

    /** The API kind, e.g. {@code TFJob}; also the first part of a job's key. */
    String kind();

    /** The fabric8 class the kind is read and patched as. */
    Class<R> type();

    /**
     * The API group, e.g. {@code kubeflow.org} ({@code batch} for a Job), from the {@code @Group} annotation of
     * {@link #type()}: what kube-queue's RBAC rules and access reviews name.
     */
    default String apiGroup() {
        return HasMetadata.getGroup(type());
    }

    /**
     * The resource's plural name, e.g. {@code tfjobs}, from {@link #type()} ({@code @Plural}, else fabric8's
     * pluralization of the kind): the resource kube-queue's RBAC rules name.
     */
    default String plural() {
        return HasMetadata.getPlural(type());
    }

    /** The API version, e.g. {@code v1}, from the {@code @Version} annotation of {@link #type()}. */
    default String version() {
        return HasMetadata.getVersion(type());
    }

    /**
     * The operations on this kind's objects in every namespace (the start-up recovery's list): fabric8's typed ones
     * for the built-in kinds, its generic ones for a declared kind.
     */
    default MixedOperation<R, ? extends KubernetesResourceList<R>, Resource<R>> resources(KubernetesClient client) {
        return client.resources(type());
    }

    /**
     * Whether a pod is this kind's only when its controlling owner is the job itself (a Job's, a TFJob's pods); a
     * kind whose pods belong to objects it made in turn (a JobSet's pods are its Jobs') says no, and its pods are
     * traced by their label alone ({@link JobPods}).
     */
    default boolean ownsItsPods() {
        return true;
    }

    /**
     * Whether an object read from a manifest (the dry run) is a job of this kind: an instance of {@link #type()}
     * for the built-in kinds; a declared kind compares its apiVersion and kind.
     */
    default boolean isKindOf(HasMetadata object) {
        return type().isInstance(object);
    }

    /** The suspend marks the job carries now, in the order admission removes them; empty when none. */
    List<SuspendMark> suspendMarks(R job);

    /**
     * Whether the job's own controller holds it back now. For kinds whose controller reads one field (a batch
     * Job's and a Workflow's {@code spec.suspend}) that field alone decides: a suspend annotation beside a field
     * that says "run" does not stop the job. By default, any of {@link #suspendMarks} holds it (the Kubeflow
     * operators: ack-arena reads the annotation, training-operator {@code runPolicy.suspend}).
     */
    default boolean held(R job) {
        return !suspendMarks(job).isEmpty();
    }

    /**
     * Whether the job has ever started: its controller set its start time (a Workflow: created a node). A
     * suspended job that has started and carries no admission record was paused by someone else, and kube-queue
     * leaves it alone (docs/behaviour.md §1).
     */
    boolean started(R job);

    /** Whether the job has finished (succeeded or failed) and so no longer uses quota. */
    boolean finished(R job);

    /**
     * The whole job's resource request (millicores, bytes, counts), by docs/behaviour.md §2.
     *
     * @throws InvalidJobException naming the field and value that cannot be read
     */
    Resources request(R job);

    /**
     * The whole job's resource request with its pod templates priced as the API server will make their pods: the
     * namespace's LimitRange defaults and the RuntimeClass overhead applied first (docs/behaviour.md §2). By default
     * {@link #request(HasMetadata)}: a kind whose request is not read from pod templates (a Workflow's annotation)
     * gets nothing added.
     *
     * @param defaults what the job's namespace gives a new pod
     * @throws InvalidJobException naming the field and value that cannot be read
     */
    default Resources request(R job, io.kubequeue.resources.PodDefaults defaults) {
        return request(job);
    }

    /**
     * The labels that select the job's pods, as its controller sets them; the pods of admitted jobs are found
     * through them for exact ResourceQuota accounting (docs/behaviour.md §3).
     */
    default Map<String, String> podLabels(R job) {
        String value = podLabelValue(job);
        return value == null ? Map.of() : Map.of(podLabelKey(), value);
    }

    /** The key of the label the kind's controller puts on every pod of a job, with the job's value. */
    String podLabelKey();

    /** The value of {@link #podLabelKey()} on the job's pods; null if it cannot be known yet. */
    default String podLabelValue(R job) {
        return podLabelValue(job.getMetadata().getName(), job.getMetadata().getUid());
    }

    /**
     * The value of {@link #podLabelKey()} on the pods of the job with this name and uid: by default its name (the
     * label Kubeflow's and Argo's controllers set); null if it cannot be known (no uid yet, for a kind labelled by
     * uid).
     */
    default String podLabelValue(String name, String uid) {
        return name;
    }

    /**
     * The name of the job a pod belongs to, as the kind's controller labels or owns its pods; null if the pod does
     * not say. By default the value of {@link #podLabelKey()}, which is the job's name. A pod is traced to its job
     * from this, not from a map of labels kept per job (issue 27: some 90 bytes per pending job).
     *
     * @param pod the pod's metadata, as its informer caches it ({@link Pruning#pod}: the kinds' pod labels and the
     *            owner references kept)
     */
    default String jobNameOfPod(io.fabric8.kubernetes.api.model.ObjectMeta pod) {
        return pod.getLabels() == null ? null : pod.getLabels().get(podLabelKey());
    }

    /**
     * What the job says about its priority: the pod template's {@code priorityClassName} and {@code priority}
     * (either may be absent). The scheduler resolves the class against the PriorityClasses in force
     * (docs/behaviour.md §4).
     */
    JobPriority priority(R job);

    /**
     * The copy of a job that the kind's informer cache keeps instead of the job (see {@link PruningItemStore}): what
     * every method of this interface, {@link JobFeed} and {@link JobDirectory.Entry} read, and nothing else; the
     * shared parts are built by {@link Pruning}. Every method of this interface answers the same on the copy as on
     * the job ({@code PruningTest}). A new read of a field must keep that field here too.
     *
     * <p>The copy is never written back to the cluster: a replace or status update built from it would erase every
     * field it drops.
     *
     * @param job the job as read; it is not changed (the copy may share its unchanged parts, e.g. quantities)
     */
    R pruned(R job);
}
