package io.kubequeue.admission;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.job.ShowsQueuingCondition;
import io.kubequeue.leader.HeldUntilLeading;
import io.kubequeue.leader.Leadership;

/**
 * Writes condition {@code Queuing} on the queued jobs of the kinds that show it ({@link ShowsQueuingCondition}:
 * TFJobs and PyTorchJobs queued by annotation), through the status subresource: {@code True} ("Job Enqueued")
 * while queued, {@code False} once admitted. {@code kubectl get tfjob} prints a job's last condition, so a queued
 * job shows {@code Queuing} as in the seed (docs/behaviour.md §5). The kind decides which jobs show it and how the
 * condition is written in its status; this class only writes, and so lives with the admission code, the only code
 * that writes jobs. A failed write is logged and changes nothing else: the condition is for people, never an input
 * to queueing.
 *
 * <p>Writes run in order on one thread of their own, so a job's {@code False} can never be overtaken by the
 * {@code True} asked for before its admission.
 */
@Singleton
public class QueuingConditions {

    private static final Logger LOG = Logger.getLogger(QueuingConditions.class);

    private final KubernetesClient client;
    private final ExecutorService writer =
            Executors.newSingleThreadExecutor(DaemonThreads.named("kube-queue-conditions"));

    private final Leadership leadership;
    /** Conditions a follower would have written, latest per job: written when this replica starts to lead. */
    private final HeldUntilLeading whileFollowing;

    public QueuingConditions(KubernetesClient client, Leadership leadership) {
        this.leadership = leadership;
        this.client = client;
        this.whileFollowing = new HeldUntilLeading(leadership, 20_000);
    }

    /**
     * Asks for {@code Queuing=True} on a queued job; skipped if the job is no longer queued when written. Only the
     * leader writes; a follower keeps the request until it leads ({@link #writeDeferred()}).
     */
    public <R extends CustomResource<JsonNode, JsonNode>> void queued(ShowsQueuingCondition<R> kind, R job) {
        Runnable task = () -> write(kind, job, "True", "JobEnqueued", "Job Enqueued");
        if (!leadership.isLeader()) {
            whileFollowing.hold(kind.kind() + " " + job.getMetadata().getNamespace() + "/" + job.getMetadata().getName(),
                    () -> writer.execute(task));
            return;
        }
        writer.execute(task);
    }

    /** Writes the conditions asked for while this replica followed; called when it starts to lead. */
    public void writeDeferred() {
        whileFollowing.runAll();
    }

    /** Asks for {@code Queuing=False} on a job just admitted (written only if it shows {@code Queuing=True}). */
    public <R extends CustomResource<JsonNode, JsonNode>> void admitted(ShowsQueuingCondition<R> kind, R job) {
        writer.execute(() -> write(kind, job, "False", "JobAdmitted", "Job admitted by kube-queue"));
    }

    @PreDestroy
    void stop() {
        writer.shutdown();
    }

    private <R extends CustomResource<JsonNode, JsonNode>> void write(ShowsQueuingCondition<R> kind, R job,
                                                                     String status, String reason, String message) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        try {
            client.resources(kind.type()).inNamespace(job.getMetadata().getNamespace())
                    .withName(job.getMetadata().getName()).editStatus(current -> {
                        boolean queued = kind.showsQueuing(current);
                        String shown = kind.queuingStatus(current);
                        if (status.equals("True") ? !queued || "True".equals(shown) : !"True".equals(shown)) {
                            return current; // admitted meanwhile, or already as wanted: nothing to write
                        }
                        kind.setQueuingCondition(current, status, reason, message, now);
                        return current;
                    });
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return; // deleted meanwhile
            }
            LOG.warnf("could not set condition Queuing=%s on %s %s/%s: %s", status, kind.kind(),
                    job.getMetadata().getNamespace(), job.getMetadata().getName(), e.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            // fabric8's edit writes the whole job to diff it, recursively: a job nested thousands of levels deep
            // (a CRD that keeps unknown fields) cannot be; the condition is only shown, the job is queued as usual
            LOG.warnf("could not set condition Queuing=%s on %s %s/%s: %s", status, kind.kind(),
                    job.getMetadata().getNamespace(), job.getMetadata().getName(), e.getClass().getSimpleName());
        }
    }
}
