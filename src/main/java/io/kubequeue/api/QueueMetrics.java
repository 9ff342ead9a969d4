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

import org.eclipse.microprofile.config.ConfigProvider;

import io.kubequeue.admission.AdmissionLoop;
import io.kubequeue.admission.Admitter;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.concurrent.Throttle;
import io.kubequeue.job.JobFeed;
import io.kubequeue.leader.Leadership;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.EstimateAccuracy;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.Resources;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
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
 * Units: cpu in cores, memory in bytes, other resources in their counts, times in seconds. The per-group gauges come
 * from the leader only, so that a sum over the replicas counts each group once; every replica exports its role,
 * its build and the quota groups it has in force.
 */
@Singleton
public class QueueMetrics {

    private static final Duration REFRESH = Duration.ofSeconds(5);
    /** The least time between two refreshes asked for by cycles: how far the group gauges may lag. */
    static final Duration REFRESH_AT_MOST_EVERY = Duration.ofSeconds(1);

    /** Histogram buckets of the wait for admission, 10 ms to a day: a few per group, not Micrometer's ~70. */
    private static final Duration[] WAIT_BUCKETS = durations(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
            900, 1800, 3600, 7200, 14_400, 43_200, 86_400);
    /** Histogram buckets of an admission patch's answer time, 5 ms to 2 min (a client timeout is longer). */
    private static final Duration[] PATCH_BUCKETS = durations(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
            10, 30, 60, 120);

    private final MeterRegistry registry;
    private final ReadViews scheduler;
    private final AdmissionLoop loop;
    private final Clock clock = Clock.systemUTC();
    private final GaugeSet pending;
    private final GaugeSet admitted;
    private final GaugeSet quotaUsed;
    private final GaugeSet quotaMin;
    private final GaugeSet quotaMax;
    private final GaugeSet oldestPending;
    private final GaugeSet headFits;
    private final Timer cycleDuration;
    private final Leadership leadership;
    private final EvictionMetrics evictions;
    private final Timer estimateRefresh;
    private final Counter estimateRefreshCpu;
    /** The estimates' error as of the last replay ({@link #estimatesRefreshed}): a scrape never waits for a replay. */
    private volatile EstimateAccuracy estimateAccuracy = EstimateAccuracy.NONE;
    /** The quota groups whose counters are registered; touched under this instance's lock (refresh). */
    private final java.util.Set<String> groupsWithCounters = new java.util.HashSet<>();
    /** The single-value gauges this instance registered, removed again when it stops (see {@link #stop}). */
    private final List<Meter> gauges = new ArrayList<>();
    private final ScheduledExecutorService refresher =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kube-queue-metrics"));
    private final Throttle refreshes = new Throttle(
            (task, delayNanos) -> refresher.schedule(task, delayNanos, TimeUnit.NANOSECONDS),
            REFRESH_AT_MOST_EVERY, System::nanoTime, this::refreshGuarded);

    public QueueMetrics(MeterRegistry registry, ReadViews scheduler, AdmissionLoop loop, JobFeed feed,
                        Leadership leadership, Admitter admitter) {
        this.registry = registry;
        this.scheduler = scheduler;
        this.loop = loop;
        this.leadership = leadership;
        this.evictions = new EvictionMetrics(registry);
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
        headFits = new GaugeSet(MultiGauge.builder("kube_queue_head_fits")
                .description("1 while the quota group's first pending job fits now: it should be admitted within a"
                        + " cycle or its backoff; 1 for minutes means admissions are not happening").register(registry));
        cycleDuration = cycleTimer(registry);
        estimateRefreshCpu = Counter.builder("kube_queue_estimate_refresh_cpu_seconds")
                .description("CPU time the refreshes of the start-time estimates spent on their thread (the replays'"
                        + " cost without the time they wait for a core), seconds")
                .register(registry);
        estimateRefresh = Timer.builder("kube_queue_estimate_refresh")
                .description("Time one refresh of the start-time estimates takes (two copies of the core and two"
                        + " replays), per refresh the timer ran; its _sum over a run is the CPU the estimates cost")
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        for (double quantile : new double[] {0.5, 0.9}) {
            own(Gauge.builder("kube_queue_estimate_error_ratio", this,
                            m -> quantile == 0.5 ? m.estimateAccuracy.median() : m.estimateAccuracy.p90())
                    .tag("quantile", String.valueOf(quantile))
                    .description("Relative error of the start-time estimates, |eta - start| / wait, of each job's"
                            + " first estimate against its admission, over the last 1000 admissions (NaN: none yet)")
                    .register(registry));
        }
        own(Gauge.builder("kube_queue_estimate_error_samples", this, m -> m.estimateAccuracy.samples())
                .description("Admissions kube_queue_estimate_error_ratio rests on (at most 1000)")
                .register(registry));
        own(Gauge.builder("kube_queue_quota_groups", scheduler, s -> s.tree().nodes().size())
                .description("Quota groups in force on this replica; 0 holds every job").register(registry));
        own(Gauge.builder("kube_queue_build_info", () -> 1)
                .tag("version", ConfigProvider.getConfig().getOptionalValue("quarkus.application.version", String.class)
                        .orElse("unknown"))
                .description("1, labelled with the running version").register(registry));
        own(Gauge.builder("kube_queue_replica", leadership, l -> l.isLeader() ? 1 : 0).tag("replica_role", "leader")
                .description("1 on the replica that leads (admits), per replica_role").register(registry));
        own(Gauge.builder("kube_queue_replica", leadership, l -> l.isLeader() ? 0 : 1).tag("replica_role", "follower")
                .description("1 on the replica that leads (admits), per replica_role").register(registry));
        own(Gauge.builder("kube_queue_admissions_in_flight", loop, AdmissionLoop::admissionsInFlight)
                .description("Admission patches sent and not yet answered (at most kube-queue.admission.in-flight)")
                .register(registry));
        own(Gauge.builder("kube_queue_admissions_waiting_to_be_sent", loop, AdmissionLoop::admissionsWaitingToBeSent)
                .description("Admissions decided (already charged) and waiting for room in the pipeline")
                .register(registry));
        own(io.micrometer.core.instrument.FunctionCounter.builder("kube_queue_admissions_rebound", admitter,
                        a -> a.rebound())
                .description("Admissions bound to a newer copy of their job before sending, as the decision still"
                        + " stood for it (a status write, an annotation): each saved a refusal").register(registry));
        own(io.micrometer.core.instrument.FunctionCounter.builder("kube_queue_admission_version_refusals", admitter,
                        a -> a.versionRefusals())
                .description("Admission patches refused because the job's resourceVersion moved on after the decision"
                        + " (an edit, a status write landing while the patch was on its way); each was sent again"
                        + " rebound, or decided again").register(registry));
        own(io.micrometer.core.instrument.FunctionCounter.builder("kube_queue_admission_fences", admitter,
                        a -> a.fences())
                .description("Admission patches sent again after an ambiguous answer, bound to the same version, so"
                        + " that the lost one can no longer apply").register(registry));
        own(Gauge.builder("kube_queue_invalid_jobs", feed, JobFeed::invalidJobs)
                .description("Suspended jobs left out of the queue because their request cannot be read")
                .register(registry));
    }

    /** Histogram buckets of one scheduling cycle, 50 µs to 5 s: a cycle holds the scheduler's lock that long. */
    private static final Duration[] CYCLE_BUCKETS = durations(0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
            0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5);

    /**
     * The cycle duration: its p50 and p99 over the last ~2 minutes as served ({@code quantile} label), for a reader
     * who wants the figure as it is now, and buckets, from which a scraper takes the quantiles of any window it likes
     * (the difference of two scrapes: a whole benchmark run, issue 27); docs/observability.md says which to read.
     */
    static Timer cycleTimer(MeterRegistry registry) {
        return Timer.builder("kube_queue_scheduling_cycle")
                .description("Time one scheduling cycle spends deciding (in memory, the scheduler's lock waited for"
                        + " included)")
                .publishPercentiles(0.5, 0.99)
                .serviceLevelObjectives(CYCLE_BUCKETS)
                .register(registry);
    }

    /**
     * One refresh of the start-time estimates ran (the wiring's timer calls this after each replay it ran).
     *
     * @param durationNanos how long it took, nanoseconds: into {@code kube_queue_estimate_refresh_seconds}
     * @param accuracy      the estimates' error after it: {@code kube_queue_estimate_error_ratio} and
     *                      {@code kube_queue_estimate_error_samples}
     */
    public void estimatesRefreshed(long durationNanos, EstimateAccuracy accuracy) {
        estimatesRefreshed(durationNanos, -1, accuracy);
    }

    /**
     * As {@link #estimatesRefreshed(long, EstimateAccuracy)}, with the CPU time the refresh's thread spent.
     *
     * @param cpuNanos its thread's CPU time, nanoseconds: into {@code kube_queue_estimate_refresh_cpu_seconds_total}
     *                 (the estimates' share of kube-queue's CPU, issue 30); negative: not measured
     */
    public void estimatesRefreshed(long durationNanos, long cpuNanos, EstimateAccuracy accuracy) {
        estimateRefresh.record(durationNanos, TimeUnit.NANOSECONDS);
        if (cpuNanos >= 0) {
            estimateRefreshCpu.increment(cpuNanos / 1e9);
        }
        estimateAccuracy = accuracy;
    }

    private void own(Meter gauge) {
        gauges.add(gauge);
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
                String group = admission.record().group();
                admissions(group).increment();
                admissionWait(group).record(admission.waited(), TimeUnit.MILLISECONDS);
            }

            @Override
            public void evicted(Eviction eviction) {
                evictions.evicted(eviction);
            }

            @Override
            public void reclaimStarted(CycleResult.Reclaim reclaim) {
                evictions.reclaimStarted(reclaim);
            }

            @Override
            public void answered(Admitter.Settlement.Kind kind, long answerNanos) {
                patches(kind).increment();
                patchAnswerTime().record(answerNanos, TimeUnit.NANOSECONDS);
            }
        });
        // every series that has no group label exists from the start, at 0: a rate over the first event is then
        // the event, not a series appearing (issue 29)
        for (String result : List.of("admitted", "held", "unschedulable")) {
            attempts(result);
        }
        for (Admitter.Settlement.Kind kind : Admitter.Settlement.Kind.values()) {
            patches(kind);
        }
        patchAnswerTime();
        refresher.scheduleWithFixedDelay(this::refreshGuarded, 0, REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    }

    private Counter admissions(String group) {
        return Counter.builder("kube_queue_admissions").description("Admissions written")
                .tag("quota_group", group).register(registry);
    }

    private Timer admissionWait(String group) {
        return Timer.builder("kube_queue_admission_wait")
                .description("Time from a job's queueing to its written admission")
                .tag("quota_group", group).serviceLevelObjectives(WAIT_BUCKETS).register(registry);
    }

    private Counter patches(Admitter.Settlement.Kind kind) {
        return Counter.builder("kube_queue_admission_patches")
                .description("Admission patches answered, by outcome: applied, refused, outdated (refused:"
                        + " the job changed since the decision, decided again), outdated_unsent (not sent:"
                        + " seen changed before sending), gone, taken_over, started_by_hand, unconfirmed"
                        + " (answer lost, job read back later)")
                .tag("outcome", kind.name().toLowerCase(java.util.Locale.ROOT)).register(registry);
    }

    private Timer patchAnswerTime() {
        return Timer.builder("kube_queue_admission_patch")
                .description("From sending an admission patch to its answer")
                .serviceLevelObjectives(PATCH_BUCKETS).register(registry);
    }

    /**
     * Registers, at 0, the per-group counters of every quota group in force that has none yet, on every replica (a
     * follower that takes over then counts its first admission as a change): the admissions, their wait, and the
     * eviction series. A group that leaves the tree keeps its counters, as Prometheus expects of a counter.
     */
    private void registerGroupCounters() {
        for (io.kubequeue.scheduler.model.QuotaNode node : scheduler.tree().nodes()) {
            if (groupsWithCounters.add(node.name())) {
                admissions(node.name());
                admissionWait(node.name());
                evictions.registerGroup(node.name());
            }
        }
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
        registerGroupCounters();
        Map<Tags, Double> pendingRows = new HashMap<>();
        Map<Tags, Double> admittedRows = new HashMap<>();
        Map<Tags, Double> usedRows = new HashMap<>();
        Map<Tags, Double> minRows = new HashMap<>();
        Map<Tags, Double> maxRows = new HashMap<>();
        Map<Tags, Double> oldestRows = new HashMap<>();
        Map<Tags, Double> headFitsRows = new HashMap<>();
        Instant now = clock.instant();
        // per-group series come from the leader only: a follower's copy of the same state would make every sum
        // over the replicas count each group twice (a follower's rows go as it stops leading)
        boolean leads = leadership.isLeader();
        List<GroupView> groups = leads ? scheduler.groups() : List.of();
        java.util.Set<String> headsThatFit = leads ? scheduler.groupsWhoseHeadFits() : java.util.Set.of();
        for (GroupView g : groups) {
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
            headFitsRows.put(group, headsThatFit.contains(g.name()) ? 1.0 : 0.0);
        }
        pending.update(pendingRows);
        admitted.update(admittedRows);
        quotaUsed.update(usedRows);
        quotaMin.update(minRows);
        quotaMax.update(maxRows);
        oldestPending.update(oldestRows);
        headFits.update(headFitsRows);
    }

    private static Duration[] durations(double... seconds) {
        Duration[] d = new Duration[seconds.length];
        for (int i = 0; i < seconds.length; i++) {
            d[i] = Duration.ofNanos(Math.round(seconds[i] * 1e9));
        }
        return d;
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
        // a gauge left registered would keep reading this stopped instance, and shadow the next one's
        gauges.forEach(registry::remove);
    }
}
