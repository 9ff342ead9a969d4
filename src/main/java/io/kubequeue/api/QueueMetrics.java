package io.kubequeue.api;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import io.kubequeue.admission.AdmissionLoop;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.job.JobFeed;
import io.kubequeue.scheduler.Admission;
import io.kubequeue.scheduler.CycleResult;
import io.kubequeue.scheduler.Resources;
import io.kubequeue.scheduler.Scheduler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.StartupEvent;

/**
 * Prometheus metrics under {@code kube_queue_} (docs/metrics.md has the table). Group gauges are rebuilt from a
 * scheduler snapshot after every cycle and every 5 s, with rows replaced wholesale, so the series of a group or
 * resource that disappears are removed rather than left stale. Units: cpu in cores, memory in bytes, other
 * resources in their counts, times in seconds.
 */
@Singleton
public class QueueMetrics {

    private static final Duration REFRESH = Duration.ofSeconds(5);

    private final MeterRegistry registry;
    private final Scheduler scheduler;
    private final AdmissionLoop loop;
    private final JobFeed feed;
    private final Clock clock = Clock.systemUTC();
    private final MultiGauge pending;
    private final MultiGauge admitted;
    private final MultiGauge quotaUsed;
    private final MultiGauge quotaMin;
    private final MultiGauge quotaMax;
    private final MultiGauge oldestPending;
    private final Timer cycleDuration;
    private final DistributionSummary waitTime;
    private final ScheduledExecutorService refresher =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kube-queue-metrics"));

    public QueueMetrics(MeterRegistry registry, Scheduler scheduler, AdmissionLoop loop, JobFeed feed) {
        this.registry = registry;
        this.scheduler = scheduler;
        this.loop = loop;
        this.feed = feed;
        pending = MultiGauge.builder("kube_queue_pending_jobs")
                .description("Pending jobs per quota group, by state: active (tried next cycle), backoff, "
                        + "blocked (held until the quota changes: it cannot fit)").register(registry);
        admitted = MultiGauge.builder("kube_queue_admitted_jobs")
                .description("Admitted, unfinished jobs charged to the quota group itself").register(registry);
        quotaUsed = MultiGauge.builder("kube_queue_quota_used")
                .description("Used by admitted jobs, descendants included (cpu in cores, memory in bytes)")
                .register(registry);
        quotaMin = MultiGauge.builder("kube_queue_quota_min")
                .description("Declared min (cpu in cores, memory in bytes)").register(registry);
        quotaMax = MultiGauge.builder("kube_queue_quota_max")
                .description("Declared max (cpu in cores, memory in bytes)").register(registry);
        oldestPending = MultiGauge.builder("kube_queue_oldest_pending_job_age").baseUnit("seconds")
                .description("Age of the longest-waiting pending job of the quota group").register(registry);
        cycleDuration = Timer.builder("kube_queue_scheduling_cycle")
                .description("Time one scheduling cycle spends deciding (in memory)").register(registry);
        waitTime = DistributionSummary.builder("kube_queue_admission_wait").baseUnit("seconds")
                .description("Time from a job's first sight as queued to its written admission")
                .publishPercentileHistogram().register(registry);
        Gauge.builder("kube_queue_invalid_jobs", feed, JobFeed::invalidJobs)
                .description("Suspended jobs left out of the queue because their request cannot be read")
                .register(registry);
    }

    void onStart(@Observes StartupEvent event) {
        loop.listener(new AdmissionLoop.Listener() {
            @Override
            public void cycle(CycleResult result, long durationNanos) {
                cycleDuration.record(durationNanos, TimeUnit.NANOSECONDS);
                int held = result.holds().size();
                attempts("admitted").increment(result.admissions().size());
                attempts("held").increment(held);
                attempts("unschedulable").increment(Math.max(0, result.tried() - result.admissions().size() - held));
                refresh();
            }

            @Override
            public void admitted(Admission admission) {
                Counter.builder("kube_queue_admissions").description("Admissions written")
                        .tag("quota_group", admission.record().group()).register(registry).increment();
                waitTime.record(admission.waited() / 1000.0);
            }
        });
        refresher.scheduleWithFixedDelay(this::refresh, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    }

    private Counter attempts(String result) {
        return Counter.builder("kube_queue_schedule_attempts")
                .description("Jobs tried by scheduling cycles, by result: admitted, unschedulable, held")
                .tag("result", result).register(registry);
    }

    /** Rebuilds every group gauge from one snapshot; rows of vanished groups and resources go away. */
    synchronized void refresh() {
        List<MultiGauge.Row<?>> pendingRows = new ArrayList<>();
        List<MultiGauge.Row<?>> admittedRows = new ArrayList<>();
        List<MultiGauge.Row<?>> usedRows = new ArrayList<>();
        List<MultiGauge.Row<?>> minRows = new ArrayList<>();
        List<MultiGauge.Row<?>> maxRows = new ArrayList<>();
        List<MultiGauge.Row<?>> oldestRows = new ArrayList<>();
        Instant now = clock.instant();
        for (Scheduler.GroupView g : scheduler.groups()) {
            Tags group = Tags.of("quota_group", g.name());
            pendingRows.add(MultiGauge.Row.of(group.and("state", "active"), g.active()));
            pendingRows.add(MultiGauge.Row.of(group.and("state", "backoff"), g.backoff()));
            pendingRows.add(MultiGauge.Row.of(group.and("state", "blocked"), g.held()));
            admittedRows.add(MultiGauge.Row.of(group, g.admitted()));
            resourceRows(usedRows, group, g.used());
            resourceRows(minRows, group, g.min());
            resourceRows(maxRows, group, g.max());
            oldestRows.add(MultiGauge.Row.of(group, g.oldestPendingSince() == null ? 0
                    : Duration.between(g.oldestPendingSince(), now).toMillis() / 1000.0));
        }
        pending.register(pendingRows, true);
        admitted.register(admittedRows, true);
        quotaUsed.register(usedRows, true);
        quotaMin.register(minRows, true);
        quotaMax.register(maxRows, true);
        oldestPending.register(oldestRows, true);
    }

    private static void resourceRows(List<MultiGauge.Row<?>> rows, Tags group, Resources amounts) {
        for (Map.Entry<String, Long> r : amounts.asMap().entrySet()) {
            rows.add(MultiGauge.Row.of(group.and("resource", r.getKey()), inUnit(r.getKey(), r.getValue())));
        }
    }

    /** cpu (and limits.cpu) from millicores to cores; everything else as counted (memory already in bytes). */
    static double inUnit(String resource, long amount) {
        return resource.equals(Resources.CPU) || resource.equals("limits.cpu") ? amount / 1000.0 : amount;
    }

    @PreDestroy
    void stop() {
        refresher.shutdownNow();
    }
}
