package io.kubequeue.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;

/**
 * The eviction series as Prometheus scrapes them (the registry /q/metrics serves): per reclaiming group, reclaims
 * and victims per reclaim; per victim's group and reason, evictions written; never a per-job label.
 */
class EvictionMetricsTest {

    private static final JobKey PREEMPTOR = new JobKey("TFJob", "team-a", "train-1");
    private static final Instant AT = Instant.parse("2026-01-01T00:10:00Z");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final EvictionMetrics metrics = new EvictionMetrics(registry);

    private static Eviction eviction(String name, String group, Eviction.Reason reason) {
        return new Eviction(new JobKey("Job", "team-b", name), null, new AdmissionRecord(group, "2026-01-01T00:00:00Z"),
                reason, reason == Eviction.Reason.RECLAIM ? PREEMPTOR : null, "root.a", Resources.NONE, AT,
                EvictionMarks.NONE);
    }

    /** The scrape, labels written as /q/metrics writes them (without simpleclient's trailing comma). */
    private String scrape() {
        return registry.scrape().replace(",}", "}");
    }

    private boolean has(String line) {
        return scrape().lines().anyMatch(line::equals);
    }

    @Test
    void reclaimsCountPerReclaimingGroupWithTheirVictims_evictionsPerVictimsGroupAndReason() {
        metrics.reclaimStarted(new CycleResult.Reclaim(PREEMPTOR, "root.a",
                List.of(new JobKey("Job", "team-b", "x"), new JobKey("Job", "team-b", "y")), List.of("root.b", "root.b")));
        metrics.reclaimStarted(new CycleResult.Reclaim(PREEMPTOR, "root.a", List.of(new JobKey("Job", "team-c", "z")),
                List.of("root.c")));
        metrics.evicted(eviction("x", "root.b", Eviction.Reason.RECLAIM));
        metrics.evicted(eviction("y", "root.b", Eviction.Reason.RECLAIM));
        metrics.evicted(eviction("z", "root.c", Eviction.Reason.RECLAIM));
        metrics.evicted(eviction("w", "root.b", Eviction.Reason.TIMEOUT));

        String scraped = scrape();
        assertTrue(has("kube_queue_reclaims_total{quota_group=\"root.a\"} 2.0"), scraped);
        assertTrue(has("kube_queue_reclaim_victims_count{quota_group=\"root.a\"} 2.0"), scraped);
        assertTrue(has("kube_queue_reclaim_victims_sum{quota_group=\"root.a\"} 3.0"), scraped);
        assertTrue(has("kube_queue_reclaim_victims_max{quota_group=\"root.a\"} 2.0"), scraped);
        assertTrue(has("kube_queue_evictions_total{quota_group=\"root.b\",reason=\"reclaim\"} 2.0"), scraped);
        assertTrue(has("kube_queue_evictions_total{quota_group=\"root.c\",reason=\"reclaim\"} 1.0"), scraped);
        assertTrue(has("kube_queue_evictions_total{quota_group=\"root.b\",reason=\"timeout\"} 1.0"), scraped);
        assertEquals(3, scraped.lines().filter(l -> l.startsWith("kube_queue_evictions_total{")).count());
        assertFalse(scraped.contains("team-b"), "no per-job (or per-namespace) label: " + scraped);
    }
}
