package io.kubequeue.testing;

import java.time.Instant;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Plays the Job controller's and the kubelet's part for one pod of a batch Job, over time, as the mock API server has
 * neither: the pod runs; when the Job is suspended the controller deletes it, and a real API server keeps it, with
 * {@code metadata.deletionTimestamp} and {@code deletionGracePeriodSeconds} set, until the kubelet has stopped its
 * containers (up to {@code terminationGracePeriodSeconds}); only then is it gone. The fabric8 mock removes a deleted
 * pod at once, so {@link #terminate} sets what a graceful DELETE sets and {@link #gone} deletes it. The Job's
 * {@code status.active} and {@code status.terminating} (Kubernetes 1.28+, JobPodReplacementPolicy) follow, as the Job
 * controller counts them.
 */
public final class TerminatingPods {

    private final KubernetesClient client;

    public TerminatingPods(KubernetesClient client) {
        this.client = client;
    }

    /** The job's pod, Running, labelled and owned as the Job controller makes it; the Job counts it active. */
    public Pod running(Job job) {
        Pod pod = new PodBuilder().withNewMetadata().withName(podName(job)).withNamespace(job.getMetadata().getNamespace())
                .addToLabels("controller-uid", job.getMetadata().getUid())
                .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata()
                .withNewSpec().addNewContainer().withName("work").withImage("busybox:stable").endContainer().endSpec()
                .build();
        Pod created = client.pods().inNamespace(job.getMetadata().getNamespace()).resource(pod).create();
        created.setStatus(new PodStatusBuilder().withPhase("Running").build());
        Pod runs = client.pods().inNamespace(job.getMetadata().getNamespace()).resource(created).updateStatus();
        activeInStatus(job, 1, 0);
        return runs;
    }

    /**
     * The pod is being deleted (what a DELETE with a grace period leaves on a real API server): still Running, with a
     * deletion timestamp; the Job counts it terminating, no longer active.
     */
    public void terminate(Job job) {
        client.pods().inNamespace(job.getMetadata().getNamespace()).withName(podName(job)).edit(p -> {
            p.getMetadata().setDeletionTimestamp(Instant.now().toString());
            p.getMetadata().setDeletionGracePeriodSeconds(30L);
            return p;
        });
        activeInStatus(job, 0, 1);
    }

    /** Its containers stopped: the pod is removed, and the Job counts nothing. */
    public void gone(Job job) {
        client.pods().inNamespace(job.getMetadata().getNamespace()).withName(podName(job)).delete();
        activeInStatus(job, 0, 0);
    }

    /** Sets the Job's {@code status.active} and {@code status.terminating} (0 written as absent, as the controller). */
    public void activeInStatus(Job job, int active, int terminating) {
        Job current = client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace())
                .withName(job.getMetadata().getName()).get();
        JobStatus status = current.getStatus() == null ? new JobStatus() : current.getStatus();
        status.setActive(active == 0 ? null : active);
        status.setTerminating(terminating == 0 ? null : terminating);
        current.setStatus(status);
        client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).resource(current).updateStatus();
    }

    private static String podName(Job job) {
        return job.getMetadata().getName() + "-pod";
    }
}
