package io.kubequeue.api;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
import io.kubequeue.concurrent.Throttle;
import io.kubequeue.job.JobFeed;
import io.kubequeue.leader.Leadership;
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
 * Prometheus metrics under {@code kube_queue_} (docs/metrics.md has the table). Group gauges are refreshed from
 * a scheduler snapshot on the metrics thread after cycles, at most once a second (and at least every 5 s): series
 * that stay read the new values, new ones are added, and the series of a group or resource that disappears are
 * removed rather than left stale. The snapshot walks every job under the scheduler's lock, so it is not taken per
 * cycle: at 15,000 jobs and tens of cycles a second that was half of kube-queue's CPU (docs/performance.md).
 * Units: cpu in cores, memory in bytes, other resources in their counts, times in seconds.
 */
@Singleton
public class QueueMetrics {

    private static final Duration REFRESH = Duration.ofSeconds(5);
    /** The least time between two refreshes asked for by cycles: how far the group gauges may lag. */
    static final Duration REFRESH_AT_MOST_EVERY = Duration.ofSeconds(1);

    private final MeterRegistry registry;
    private final Scheduler scheduler;
    private final AdmissionLoop loop;
    private final Clock clock = Clock.systemUTC();
    private final GaugeSet pending;
    private final GaugeSet admitted;
    private final GaugeSet quotaUsed;
    private final GaugeSet quotaMin;
    private final GaugeSet quotaMax;
    private final GaugeSet oldestPending;
    private final Timer cycleDuration;
    private final DistributionSummary waitTime;
    private final ScheduledExecutorService refresher =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kube-queue-metrics"));
    private final Throttle refreshes = new Throttle(
            (task, delayNanos) -> refresher.schedule(task, delayNanos, TimeUnit.NANOSECONDS),
            REFRESH_AT_MOST_EVERY, System::nanoTime, this::refreshGuarded);

    public QueueMetrics(MeterRegistry registry, Scheduler scheduler, AdmissionLoop loop, JobFeed feed,
                        Leadership leadership) {
        this.registry = registry;
        this.scheduler = scheduler;
        this.loop = loop;
        pending = new GaugeSet(MultiGauge.builder("kube_queue_pending_jobs")
                .description("Pending jobs per quota group, by state: active (tried next cycle), backoff, "
                        + "blocked (held: cannot fit under the current limits)").register(registry));
        admitted = new GaugeSet(MultiGauge.builder("kube_queue_admitted_jobs")
                .description("Admitted, unfinished jobs charged to the quota group itself").register(registry));
        quotaUsed = new GaugeSet(MultiGauge.builder("kube_queue_quota_used")
                .description("Used by admitted jobs, descendants included (cpu in cores, memory in bytes)")
                .register(registry));
        quotaMin = new GaugeSet(MultiGauge.builder("kube_queue_quota_min")
                .description("Declared min (cpu in cores, memory in bytes)").register(registry));
        quotaMax = new GaugeSet(MultiGauge.builder("kube_queue_quota_max")
                .description("Declared max (cpu in cores, memory in bytes)").register(registry));
        oldestPending = new GaugeSet(MultiGauge.builder("kube_queue_oldest_pending_job_age").baseUnit("seconds")
                .description("Age of the longest-waiting pending job of the quota group").register(registry));
        cycleDuration = Timer.builder("kube_queue_scheduling_cycle")
                .description("Time one scheduling cycle spends deciding (in memory)").register(registry);
        waitTime = DistributionSummary.builder("kube_queue_admission_wait").baseUnit("seconds")
                .description("Time from a job's queueing to its written admission")
                .publishPercentileHistogram().minimumExpectedValue(0.05).maximumExpectedValue(86_400.0)
                .register(registry);
        Gauge.builder("kube_queue_replica", leadership, l -> l.isLeader() ? 1 : 0).tag("replica_role", "leader")
                .description("1 on the replica that leads (admits), per replica_role").register(registry);
        Gauge.builder("kube_queue_replica", leadership, l -> l.isLeader() ? 0 : 1).tag("replica_role", "follower")
                .description("1 on the replica that leads (admits), per replica_role").register(registry);
        Gauge.builder("kube_queue_admissions_in_flight", loop, AdmissionLoop::admissionsInFlight)
                .description("Admission patches sent and not yet answered (at most kube-queue.admission.in-flight)")
                .register(registry);
        Gauge.builder("kube_queue_admissions_waiting_to_be_sent", loop, AdmissionLoop::admissionsWaitingToBeSent)
                .description("Admissions decided (already charged) and waiting for room in the pipeline")
                .register(registry);
        Gauge.builder("kube_queue_invalid_jobs", feed, JobFeed::invalidJobs)
                .description("Suspended jobs left out of the queue because their request cannot be read")
                .register(registry);
    }

    void onStart(@Observes StartupEvent event) {
        loop.listener(new AdmissionLoop.Listener() {
            @Override
            public void cycle(CycleResult result, long durationNanos) {
                cycleDuration.record(durationNanos, TimeUnit.NANOSECONDS);
                attempts("admitted").increment(result.admissions().size());
                attempts("held").increment(result.heldInCycle());
                attempts("unschedulable").increment(result.notFitting());
                refreshes.request();
            }

            @Override
            public void admitted(Admission admission) {
                // registered (looked up) per admission, not cached: a Counter kept from an earlier lookup can stop
                // being the one the registry serves (a cached one read 0.0 in a CI run while admissions went on)
                Counter.builder("kube_queue_admissions").description("Admissions written")
                        .tag("quota_group", admission.record().group()).register(registry).increment();
                waitTime.record(admission.waited() / 1000.0);
            }
        });
        refresher.scheduleWithFixedDelay(this::refreshGuarded, REFRESH.toMillis(), REFRESH.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private Counter attempts(String result) {
        return Counter.builder("kube_queue_schedule_attempts")
                .description("Jobs tried by scheduling cycles, by result: admitted, unschedulable (did not fit), "
                        + "held (found never to fit)")
                .tag("result", result).register(registry);
    }

    private void refreshGuarded() {
        try {
            refresh();
        } catch (RuntimeException e) {
            // a failed refresh must not cancel the timer: the next one rebuilds everything
            org.jboss.logging.Logger.getLogger(QueueMetrics.class).debug("metrics refresh failed", e);
        }
    }

    /** Rebuilds every group gauge from one snapshot; rows of vanished groups and resources go away. */
    synchronized void refresh() {
        Map<Tags, Double> pendingRows = new HashMap<>();
        Map<Tags, Double> admittedRows = new HashMap<>();
        Map<Tags, Double> usedRows = new HashMap<>();
        Map<Tags, Double> minRows = new HashMap<>();
        Map<Tags, Double> maxRows = new HashMap<>();
        Map<Tags, Double> oldestRows = new HashMap<>();
        Instant now = clock.instant();
        for (Scheduler.GroupView g : scheduler.groups()) {
            Tags group = Tags.of("quota_group", g.name());
            pendingRows.put(group.and("state", "active"), (double) g.active());
            pendingRows.put(group.and("state", "backoff"), (double) g.backoff());
            pendingRows.put(group.and("state", "blocked"), (double) g.held());
            admittedRows.put(group, (double) g.admitted());
            resourceRows(usedRows, group, g.used());
            resourceRows(minRows, group, g.min());
            resourceRows(maxRows, group, g.max());
            oldestRows.put(group, g.oldestPendingSince() == null ? 0
                    : Duration.between(g.oldestPendingSince(), now).toMillis() / 1000.0);
        }
        pending.update(pendingRows);
        admitted.update(admittedRows);
        quotaUsed.update(usedRows);
        quotaMin.update(minRows);
        quotaMax.update(maxRows);
        oldestPending.update(oldestRows);
    }

    private static void resourceRows(Map<Tags, Double> rows, Tags group, Resources amounts) {
        for (Map.Entry<String, Long> r : amounts.asMap().entrySet()) {
            rows.put(group.and("resource", r.getKey()), inUnit(r.getKey(), r.getValue()));
        }
    }

    /** cpu (and limits.cpu) from millicores to cores; everything else as counted (memory already in bytes). */
    static double inUnit(String resource, long amount) {
        return resource.equals(Resources.CPU) || resource.equals("limits.cpu") ? amount / 1000.0 : amount;
    }

    /**
     * One MultiGauge whose rows read the latest snapshot: existing series stay registered between refreshes (a
     * scrape never sees a gap), new ones are added, and those absent from the snapshot are removed.
     */
    private static final class GaugeSet {
        private final MultiGauge gauge;
        private volatile Map<Tags, Double> values = Map.of();

        GaugeSet(MultiGauge gauge) {
            this.gauge = gauge;
        }

        void update(Map<Tags, Double> next) {
            values = next;
            List<MultiGauge.Row<?>> rows = new ArrayList<>(next.size());
            for (Tags tags : next.keySet()) {
                rows.add(MultiGauge.Row.of(tags, this, set -> set.values.getOrDefault(tags, Double.NaN)));
            }
            gauge.register(rows, false);
        }
    }

    /**
     * Stops refreshing and takes this instance's group series out of the registry: a series left there would keep
     * reading this stopped instance's last values, and a later instance in the same JVM (a restart of the app, as
     * between test classes) would keep that stale row rather than register its own.
     */
    @PreDestroy
    void stop() {
        refresher.shutdownNow();
        for (GaugeSet set : List.of(pending, admitted, quotaUsed, quotaMin, quotaMax, oldestPending)) {
            set.update(Map.of());
        }
    }
}
