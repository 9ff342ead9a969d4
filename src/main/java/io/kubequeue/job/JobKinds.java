package io.kubequeue.job;

import java.util.List;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.argo.WorkflowKind;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.job.kubeflow.MPIJobKind;
import io.kubequeue.job.kubeflow.MPIJobV2beta1Kind;
import io.kubequeue.job.kubeflow.PyTorchJobKind;
import io.kubequeue.job.kubeflow.TFJobKind;

/**
 * The job kinds kube-queue manages: the one list a new kind is added to (docs/architecture.md, "Adding a job
 * kind"). Everything else that enumerates kinds reads it, or is held to it by {@code RegisteredKindsTest}:
 * <ul>
 *   <li>the fabric8 types manifests are read as ({@link #registerTypes});</li>
 *   <li>the kinds the dry-run API names ({@link #names});</li>
 *   <li>the RBAC rules of both manifests ({@code src/main/kubernetes/kubernetes.yml} and the Helm chart): for
 *       each kind, {@link #VERBS} on {@link JobKind#apiGroup()}/{@link JobKind#plural()}, plus
 *       {@link ShowsQueuingCondition#STATUS_VERBS} on its status for a kind that shows condition Queuing, and no
 *       rule for a kind not listed here (test-held: the manifests are YAML);</li>
 *   <li>the CRD generator's exclusions ({@code quarkus.operator-sdk.crd.exclude-resources}: every
 *       {@link CustomResource} type here belongs to another operator; test-held: a build-time property);</li>
 *   <li>the Helm chart's {@code jobKinds} switches (test-held).</li>
 * </ul>
 * In the running operator each kind is also a {@code @Singleton} bean, which is how its reconciler, start-up
 * recovery and the read API get it ({@code Instance<JobKind<?>>}); the test fails if the beans and this list differ.
 */
public final class JobKinds {

    /**
     * The verbs kube-queue needs on every job kind: {@code list} and {@code watch} for the informers and the
     * start-up recovery list, {@code get} to read a job back after a refused or unanswered admission, {@code patch}
     * for the admission itself (one JSON Patch). No more: the manifests grant exactly these.
     */
    public static final List<String> VERBS = List.of("get", "list", "watch", "patch");

    private JobKinds() {
    }

    /**
     * One adapter of each kind, in the order people read them (batch Job first, then the Kubeflow kinds, then
     * Argo's); stateless apart from the client's serialization, which the loosely read kinds convert with.
     *
     * @param client only its serialization is used; it never connects
     */
    public static List<JobKind<?>> all(KubernetesClient client) {
        return List.of(new BatchJobKind(), new TFJobKind(client), new PyTorchJobKind(client),
                new MPIJobKind(client), new MPIJobV2beta1Kind(client), new WorkflowKind());
    }

    /**
     * The kind names, each once and in {@link #all} order ({@code Job, TFJob, PyTorchJob, MPIJob, Workflow}):
     * both MPIJob versions are one name, since a cluster serves one of them.
     */
    public static List<String> names(KubernetesClient client) {
        return all(client).stream().map(JobKind::kind).distinct().toList();
    }

    /**
     * The types of the kinds owned by other operators ({@link CustomResource} subclasses read loosely), which
     * fabric8 does not know until they are registered with it, and whose CRDs kube-queue never generates.
     */
    public static List<Class<? extends HasMetadata>> customResourceTypes(KubernetesClient client) {
        return all(client).stream().<Class<? extends HasMetadata>>map(JobKind::type)
                .filter(CustomResource.class::isAssignableFrom).toList();
    }

    /**
     * Teaches the client's serialization the {@link #customResourceTypes} (idempotent), so that a manifest's
     * TFJob is read as a {@code TFJob}, not as a generic resource. Every reader of manifests calls it before reading
     * (the dry-run API when it is built, the operator's {@code Manifests}); nothing above {@code job/} needs to know
     * the list.
     */
    public static void registerTypes(KubernetesClient client) {
        customResourceTypes(client).forEach(client.getKubernetesSerialization()::registerKubernetesResource);
    }
}
