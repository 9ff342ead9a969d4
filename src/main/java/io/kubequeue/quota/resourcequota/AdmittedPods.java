package io.kubequeue.quota.resourcequota;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.JobPods;
import io.kubequeue.resources.PodRequests;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.Resources;

/**
 * The pods of admitted jobs, for exact ResourceQuota accounting (docs/behaviour.md §3): Kubernetes already counts
 * them in a quota's {@code status.used}, and kube-queue counts their job's whole request, so they are
 * subtracted once from {@code status.used}.
 *
 * <p>The pods are those of the shared watch, {@link JobPods}: only pods that carry a managed kind's pod label. A pod
 * is traced to its job through {@link JobPods#jobOf}, and counts while its job is admitted and it is not terminal
 * (phase Succeeded or Failed).
 *
 * <p><b>When a new pod starts to count.</b> The API server adds a pod to {@code status.used} before it stores the
 * pod, but the two watches may deliver in either order. Subtracting a pod whose quota update has not arrived
 * yet would under-count the quota, so a new pod counts once a quota status change has been seen after it,
 * or after {@link #SETTLE} in any case (else a quota event seen first would leave it counted twice forever).
 * The API server's own quota admission still refuses any pod beyond {@code spec.hard}.
 */
@Singleton
public class AdmittedPods {

    private static final Logger LOG = Logger.getLogger(AdmittedPods.class);

    /** How long after it is first seen a pod of an admitted job is subtracted even without a quota update. */
    public static final Duration SETTLE = Duration.ofSeconds(2);
    /** How long start-up waits for the pods' first list; past it their jobs are counted twice until it is in. */
    private static final Duration FIRST_LIST_WAIT = Duration.ofSeconds(10);

    private final ReadViews scheduler;
    private final JobPods pods;
    private final Map<String, Long> firstSeenNanos = new ConcurrentHashMap<>();
    private final Set<String> settling = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService settle =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kube-queue-pod-settle"));
    private volatile Consumer<String> onChange = ns -> {
    };

    /** @param pods the watch on the pods of managed jobs, which this starts */
    public AdmittedPods(ReadViews scheduler, JobPods pods) {
        this.scheduler = scheduler;
        this.pods = pods;
    }

    /**
     * Starts the pod watch ({@link JobPods}, if not started yet) with this accounting's handler, and waits for its
     * first list.
     *
     * @param onChange called with a namespace whose admitted pods changed (a pod ended or left, or a new one
     *                 settled), so its quota usage can be recomputed
     */
    public void start(Consumer<String> onChange) {
        this.onChange = onChange;
        pods.addHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                firstSeenNanos.putIfAbsent(podId(pod), System.nanoTime());
                String ns = pod.getMetadata().getNamespace();
                if (settling.add(ns)) { // one recount per namespace and settle period, however many pods
                    settle.schedule(() -> {
                        settling.remove(ns);
                        AdmittedPods.this.onChange.accept(ns);
                    }, SETTLE.toMillis(), TimeUnit.MILLISECONDS);
                }
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                if (terminal(newPod) != terminal(oldPod)) {
                    AdmittedPods.this.onChange.accept(newPod.getMetadata().getNamespace());
                }
            }

            @Override
            public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
                firstSeenNanos.remove(podId(pod));
                AdmittedPods.this.onChange.accept(pod.getMetadata().getNamespace());
            }
        });
        pods.start();
        if (!pods.awaitFirstList(FIRST_LIST_WAIT)) {
            LOG.warnf("pods not listed within %s; quota usage counts their jobs twice until they are", FIRST_LIST_WAIT);
        }
    }

    /**
     * The summed requests (and {@code limits.cpu} / {@code limits.memory} / {@code limits.ephemeral-storage}) of the
     * namespace's non-terminal pods whose job is admitted, counting only pods that the quota's {@code status.used}
     * already includes (see the class comment).
     *
     * @param namespace           the namespace
     * @param quotaStatusSeenNanos {@link System#nanoTime()} when the namespace's quota status last changed
     * @return millicores, bytes, counts
     */
    public Resources usage(String namespace, long quotaStatusSeenNanos) {
        long now = System.nanoTime();
        Map<JobKey, Resources> byJob = new HashMap<>();
        for (Pod pod : pods.inNamespace(namespace)) {
            if (terminal(pod) || !counted(pod, quotaStatusSeenNanos, now)) {
                continue;
            }
            Optional<JobKey> admittedJob = pods.jobOf(pod)
                    .filter(key -> scheduler.status(key).map(s -> s.state() == JobState.ADMITTED).orElse(false));
            if (admittedJob.isPresent()) {
                try {
                    byJob.merge(admittedJob.get(), PodRequests.of(pod.getSpec(), "spec"), Resources::plus);
                } catch (RuntimeException e) { // InvalidJobException, or anything a pod could still throw
                    // the API server validated this pod; an unreadable one is left counted once, in status.used
                    LOG.debugf("pod %s/%s: %s", namespace, pod.getMetadata().getName(), e.getMessage());
                }
            }
        }
        // never more than the job's own charge: replacement pods beside terminating ones (eviction, re-admission)
        // would otherwise be subtracted twice while kube-queue counts the job once
        Resources total = Resources.NONE;
        for (Map.Entry<JobKey, Resources> job : byJob.entrySet()) {
            Resources charge = scheduler.status(job.getKey()).map(JobStatus::request).orElse(Resources.NONE);
            total = total.plus(atMost(job.getValue(), charge));
        }
        return total;
    }

    private boolean counted(Pod pod, long quotaStatusSeenNanos, long now) {
        // the informer's store has the pod before its add handler runs: a pod not seen yet is new now
        long seen = firstSeenNanos.computeIfAbsent(podId(pod), k -> now);
        return seen < quotaStatusSeenNanos || now - seen >= SETTLE.toNanos();
    }

    /** Per resource, the smaller of the two; a resource the job was not charged for is not subtracted. */
    private static Resources atMost(Resources pods, Resources charge) {
        Map<String, Long> capped = new HashMap<>();
        pods.asMap().forEach((r, v) -> capped.put(r, Math.min(v, charge.get(r))));
        return Resources.of(capped);
    }

    /** The pod's uid, or its name when it has none (a hand-made object). */
    private static String podId(Pod pod) {
        String uid = pod.getMetadata().getUid();
        return uid == null ? pod.getMetadata().getName() : uid;
    }

    private static boolean terminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    @PreDestroy
    void stop() {
        settle.shutdownNow(); // the pod watch stops itself
    }
}
