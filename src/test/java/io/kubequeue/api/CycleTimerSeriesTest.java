package io.kubequeue.api;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;

/**
 * The scheduling cycle's duration as a Prometheus scrape shows it (issue 27): the p50 and p99 a scraper reads as they
 * are, and the buckets it takes the quantiles of a whole run from. The series names are the ones
 * docs/observability.md gives the benchmark.
 */
class CycleTimerSeriesTest {

    @Test
    void aScrapeServesTheCyclesP50AndP99AndTheirBuckets() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Timer timer = QueueMetrics.cycleTimer(registry);
        for (int i = 1; i <= 100; i++) {
            timer.record(i, TimeUnit.MILLISECONDS);
        }
        String scrape = registry.scrape();
        assertTrue(scrape.contains("kube_queue_scheduling_cycle_seconds{quantile=\"0.5\",}"), scrape);
        assertTrue(scrape.contains("kube_queue_scheduling_cycle_seconds{quantile=\"0.99\",}"), scrape);
        assertTrue(scrape.contains("kube_queue_scheduling_cycle_seconds_bucket{le=\"5.0E-5\",} 0.0"), scrape);
        assertTrue(scrape.contains("kube_queue_scheduling_cycle_seconds_bucket{le=\"0.05\",} 50.0"), scrape);
        assertTrue(scrape.contains("kube_queue_scheduling_cycle_seconds_bucket{le=\"+Inf\",} 100.0"), scrape);
        assertTrue(scrape.contains("kube_queue_scheduling_cycle_seconds_count 100.0"), scrape);
        assertTrue(scrape.contains("kube_queue_scheduling_cycle_seconds_sum 5.05"), scrape);
        assertTrue(scrape.contains("kube_queue_scheduling_cycle_seconds_max 0.1"), scrape);
    }
}
