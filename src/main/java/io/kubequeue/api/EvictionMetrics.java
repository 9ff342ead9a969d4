package io.kubequeue.api;

import io.kubequeue.job.EvictionAnnotations;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The eviction series of {@link QueueMetrics} (docs/metrics.md): reclaims started and their victims per reclaiming
 * quota group, evictions written per victim's group and reason. No per-job label (a job's own count is on its
 * {@code kube-queue/reclaimed-at} annotation): the series grow with the groups, not with the jobs. Meters are looked
 * up per call, as {@link QueueMetrics} does for its counters.
 */
final class EvictionMetrics {

    private final MeterRegistry registry;

    EvictionMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * A reclaim started: {@code kube_queue_reclaims_total{quota_group}} (the reclaiming group) counts it, and
     * {@code kube_queue_reclaim_victims{quota_group}} records its number of victims.
     */
    void reclaimStarted(CycleResult.Reclaim reclaim) {
        reclaims(reclaim.group()).increment();
        victims(reclaim.group()).record(reclaim.victims().size());
    }

    /** Registers a quota group's series at 0: its reclaims, their victims, its evictions by either reason. */
    void registerGroup(String group) {
        reclaims(group);
        victims(group);
        for (Eviction.Reason reason : Eviction.Reason.values()) {
            evictions(group, reason);
        }
    }

    private Counter reclaims(String group) {
        return Counter.builder("kube_queue_reclaims")
                .description("Reclaims started: a job of this quota group fit its min but not the free room, and jobs"
                        + " of groups borrowing above their min are suspended to make room")
                .tag("quota_group", group).register(registry);
    }

    private DistributionSummary victims(String group) {
        return DistributionSummary.builder("kube_queue_reclaim_victims")
                .description("Jobs suspended per reclaim, by reclaiming quota group")
                .tag("quota_group", group).register(registry);
    }

    private Counter evictions(String group, Eviction.Reason reason) {
        return Counter.builder("kube_queue_evictions")
                .description("Admitted jobs suspended again by kube-queue, by the quota group they ran in and reason:"
                        + " reclaim (a victim of another group's reclaim), timeout (no pod ran within the admission"
                        + " timeout)")
                .tag("quota_group", group)
                .tag("reason", EvictionAnnotations.reason(reason)).register(registry);
    }

    /**
     * An eviction the API server applied: {@code kube_queue_evictions_total{quota_group, reason}}, the group the
     * victim was admitted into and {@code reclaim} or {@code timeout}.
     */
    void evicted(Eviction eviction) {
        evictions(eviction.record().group(), eviction.reason()).increment();
    }
}
