package io.kubequeue.job;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.input.ManifestBounds;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.scheduler.Forecasting;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.scheduler.model.DryRun;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Dry-run admission: what kube-queue would do with a job manifest if it were submitted now, from the scheduler's
 * memory; nothing is written and nothing is queued. Shared by the read API ({@code POST /api/v1/dry-run}) and the
 * visibility API ({@code dryruns}), each of which authorises the caller its own way between {@link #parse} and
 * {@link #verdict}.
 */
@Singleton
public class DryRuns {

    private final KubernetesClient client;
    private final ReadViews scheduler;
    /** The start-time estimates; null with {@code kube-queue.estimates.enabled=false}. */
    private final Forecasting forecasts;
    private final JobFeed feed;
    private final JobKindRegistry kinds;

    public DryRuns(KubernetesClient client, ReadViews scheduler, Forecasting forecasts, KubeQueueConfig config,
                   JobFeed feed, JobKindRegistry kinds) {
        this.client = client;
        this.scheduler = scheduler;
        this.forecasts = config.estimates().enabled() ? forecasts : null;
        this.feed = feed;
        this.kinds = kinds;
        JobKinds.registerTypes(client); // a manifest's TFJob is read as a TFJob, not a generic resource
    }

    /**
     * The verdict on one job.
     *
     * @param managed   whether kube-queue would queue it (a managed kind, submitted with a suspend mark)
     * @param kind      its kind
     * @param namespace its namespace ({@code default} if the manifest names none)
     * @param name      its name
     * @param group     the quota group it would queue in; null if none
     * @param request   its whole request, computed as kube-queue computes it (Kubernetes quantities)
     * @param priority  its priority as resolved now
     * @param fitsNow   whether it fits its group and every ancestor now
     * @param position  where it would stand in its group's queue, from 1 (0: no group, or never fits)
     * @param reason    why it would wait (the resource, node, request, use and limit), or "fits now"; for a job
     *                  kube-queue would not manage, why
     * @param estimate  when it would start if submitted now (issue 30): the queue replayed with it added, other jobs
     *                  in its assumptions named only to a reader who may see them; null for a job kube-queue would
     *                  not queue, or with {@code kube-queue.estimates.enabled=false}
     */
    @RegisterForReflection // serialized by Jackson, also in the native image
    public record Verdict(boolean managed, String kind, String namespace, String name, String group,
                          Map<String, String> request, int priority, boolean fitsNow, int position, String reason,
                          EstimateAnswer estimate) {
    }

    /**
     * The first job of a manifest.
     *
     * @param kind      its kind's adapter
     * @param object    the job as fabric8 read it
     * @param namespace its namespace, or the default given to {@link #parse}
     */
    public record Parsed(JobKind<?> kind, HasMetadata object, String namespace) {
    }

    /** A manifest that cannot be dry-run: 400 (not a manifest, or past the bounds) or 422 (no job, unreadable). */
    public static final class ManifestException extends RuntimeException {
        private final int status;

        ManifestException(int status, String message) {
            super(message);
            this.status = status;
        }

        /** The HTTP status to answer: 400 or 422. */
        public int status() {
            return status;
        }
    }

    /**
     * Reads the first job of a manifest, within {@link ManifestBounds} (size, depth, YAML aliases: checked before
     * fabric8 builds anything of it).
     *
     * @param manifest         YAML or JSON, one object or several
     * @param defaultNamespace the namespace of a job whose manifest names none
     * @throws ManifestException 400 if it is not a manifest or breaks the bounds, 422 if it holds no job of a kind
     *                           kube-queue knows
     */
    public Parsed parse(String manifest, String defaultNamespace) {
        List<HasMetadata> objects;
        try {
            ManifestBounds.check(manifest);
            objects = client.load(new ByteArrayInputStream(manifest.getBytes(StandardCharsets.UTF_8))).items();
        } catch (RuntimeException e) { // KubernetesClientException, IllegalArgumentException, or any other
            throw new ManifestException(400, "not a Kubernetes manifest: " + brief(e));
        }
        for (HasMetadata object : objects) {
            Optional<JobKind<?>> kind = kinds.stream().filter(k -> k.isKindOf(object)).findFirst();
            if (kind.isPresent()) {
                String namespace = object.getMetadata() == null || object.getMetadata().getNamespace() == null
                        ? defaultNamespace : object.getMetadata().getNamespace();
                return new Parsed(kind.get(), object, namespace);
            }
        }
        throw new ManifestException(422, "no job of a kind kube-queue manages ("
                + String.join(", ", kinds.names()) + ") in the manifest");
    }

    /**
     * What kube-queue would do with the job now.
     *
     * @param mayName whether the reader may see a job another job's reason names (others are "another job")
     * @throws ManifestException 422 if the job's request cannot be read (the message names the field and value)
     */
    public Verdict verdict(Parsed parsed, Predicate<JobKey> mayName) {
        return verdict(parsed.kind(), parsed.object(), mayName);
    }

    private <R extends HasMetadata> Verdict verdict(JobKind<R> kind, HasMetadata object, Predicate<JobKey> mayName) {
        R job = kind.type().cast(object);
        JobObservation o;
        try {
            o = feed.preview(kind, job, Clock.systemUTC().instant());
        } catch (InvalidJobException e) {
            throw new ManifestException(422, e.getMessage());
        } catch (RuntimeException e) { // the kind adapter could not read it otherwise: the manifest's fault too
            throw new ManifestException(422, "cannot be read (" + brief(e) + ")");
        }
        DryRun d = scheduler.dryRun(o);
        String notManaged = !feed.enabled(kind.kind())
                ? kind.kind() + " is switched off by kube-queue.disabled-kinds: kube-queue leaves it alone"
                : !feed.watches(o.key().namespace())
                ? "namespace " + o.key().namespace() + " is not in kube-queue.watch-namespaces: kube-queue leaves it alone"
                : o.phase() == JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD
                ? "it carries no suspend mark, so it would start at once and kube-queue would leave it alone"
                : null;
        if (notManaged == null && o.phase() == JobObservation.Phase.STARTED_DESPITE_MARK) {
            // managed, but not queued: its controller runs it at once, and kube-queue charges it
            return new Verdict(true, kind.kind(), o.key().namespace(), o.key().name(), d.group(),
                    o.request().asQuantities(), d.priority(), d.fitsNow(), 0,
                    JobFeed.ignoredMarkReason(kind, kind.suspendMarks(job)) + " at once; kube-queue would charge it to"
                            + " quota group " + d.group() + " as started outside the queue (set spec.suspend: true to"
                            + " queue it)", null);
        }
        EstimateAnswer estimate = notManaged != null || forecasts == null ? null
                : EstimateAnswer.of(forecasts.estimateIfSubmitted(o), mayName, Clock.systemUTC().instant());
        return new Verdict(notManaged == null, kind.kind(), o.key().namespace(), o.key().name(), d.group(),
                o.request().asQuantities(), d.priority(), d.fitsNow(), d.position(),
                notManaged != null ? notManaged : d.reason().render(mayName), estimate);
    }

    /** An exception in one bounded line (its message may quote the manifest). */
    private static String brief(RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        message = message.lines().findFirst().orElse(message);
        return message.length() > 300 ? message.substring(0, 300) + "..." : message;
    }
}
