package io.kubequeue.scheduler.forecast;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.EstimateAccuracy;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.WhatIf;

/**
 * Keeps every pending job's start-time estimate (issue 30). One {@link #refresh} copies the core twice and replays
 * both copies — at median and at 90th-percentile run times — which serves every pending job of every tree root at
 * once; {@link #refreshIfDue} does it only when the core changed and the last one is at least {@code minInterval}
 * old, so under load the estimates are rate-limited and each says how old it is ({@link Estimate#computedAt}).
 * Reads never wait for a replay: they get the last one.
 *
 * <p>Also measures itself ({@link #accuracy}): each job's first estimate is kept until it is admitted, and its
 * error against the real admission goes into a window of the last {@value #WINDOW}.
 */
public final class Forecaster {

    /** Admissions the accuracy figures rest on, the newest. */
    static final int WINDOW = 1000;

    /**
     * The estimates of one refresh.
     *
     * @param computedAt when the state was copied
     * @param estimates  every pending job's estimate
     * @param freedBy    for each job the median replay starts, the job whose end it starts after (for the unblock
     *                   hint)
     * @param ends       each job's predicted end in the median replay
     * @param cost       what the refresh took: the CPU time of its thread (wall time where the JVM cannot tell)
     */
    public record Forecast(Instant computedAt, Map<JobKey, Estimate> estimates, Map<JobKey, JobKey> freedBy,
                           Map<JobKey, Instant> ends, Duration cost) {
        /** No refresh yet. */
        static final Forecast NONE = new Forecast(Instant.EPOCH, Map.of(), Map.of(), Map.of(), Duration.ZERO);
    }

    private record First(Instant eta, Instant madeAt) {
    }

    private final Function<SchedulerSettings, Simulation> simulations;
    private final Clock clock;
    private volatile Duration minInterval;
    private volatile Replay.Limits limits;
    private final RunTimeHistory history;
    private final Object refreshing = new Object();
    private volatile Forecast current = Forecast.NONE;
    private long changesSeen = Long.MIN_VALUE;
    private final Map<JobKey, First> firsts = new HashMap<>();
    private final double[] errors = new double[WINDOW];
    private int errorCount;
    private int errorNext;

    /**
     * @param simulations a new copy of the core as a simulation, deciding by the given settings (null: its own)
     * @param history     the run times to go by
     * @param clock       the real clock (when a refresh is due; the replays run on their own)
     * @param minInterval refreshes are at least this far apart
     * @param limits      each replay's bounds
     */
    public Forecaster(Function<SchedulerSettings, Simulation> simulations, RunTimeHistory history, Clock clock,
                      Duration minInterval, Replay.Limits limits) {
        this.simulations = Objects.requireNonNull(simulations, "simulations");
        this.history = Objects.requireNonNull(history, "history");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.minInterval = Objects.requireNonNull(minInterval, "minInterval");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Sets how far apart refreshes are at least, and each replay's bounds.
     *
     * @throws IllegalArgumentException for a negative interval, a horizon that is not positive or no cycle
     */
    public void tune(Duration minInterval, Replay.Limits limits) {
        if (minInterval.isNegative() || limits.horizon().isNegative() || limits.horizon().isZero()
                || limits.cycles() < 1) {
            throw new IllegalArgumentException("estimates: interval " + minInterval + ", horizon " + limits.horizon()
                    + ", cycles " + limits.cycles());
        }
        this.minInterval = minInterval;
        this.limits = limits;
    }

    /** The last refresh's estimates ({@link Forecast#NONE}'s empty map before the first). */
    public Forecast current() {
        return current;
    }

    /** The last refresh's estimate of a pending job, if it was pending then. */
    public Optional<Estimate> estimate(JobKey key) {
        return Optional.ofNullable(current.estimates().get(key));
    }

    /**
     * Refreshes if the core changed since the last refresh ({@code changes} differs) and the last is at least the
     * minimum interval old.
     *
     * @param changes the core's count of changes
     * @return whether it refreshed
     */
    public boolean refreshIfDue(long changes) {
        synchronized (refreshing) {
            if (changes == changesSeen
                    || Duration.between(current.computedAt(), clock.instant()).compareTo(spacing()) < 0) {
                return false;
            }
            refresh(changes);
            return true;
        }
    }

    /**
     * How far apart refreshes are: the minimum interval, or {@value #SPACING_PER_COST} times what the last refresh
     * cost if that is longer, so that replays take at most 1/{@value #SPACING_PER_COST} of one core however large the
     * queue (issue 30: the estimates may cost at most a tenth of kube-queue's CPU).
     */
    Duration spacing() {
        Duration byCost = current.cost().multipliedBy(SPACING_PER_COST);
        return byCost.compareTo(minInterval) > 0 ? byCost : minInterval;
    }

    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    /**
     * The CPU time of this thread, nanoseconds, where the JVM measures it, else the wall clock: a refresh's cost is the
     * CPU it takes (issue 30: a share of kube-queue's CPU), not the time it waits for a core.
     */
    static long cpuNanos() {
        try {
            if (THREADS.isCurrentThreadCpuTimeSupported()) {
                long cpu = THREADS.getCurrentThreadCpuTime();
                if (cpu >= 0) {
                    return cpu;
                }
            }
        } catch (UnsupportedOperationException e) {
            // falls back to the wall clock
        }
        return System.nanoTime();
    }

    /** Refreshes are at least this many times their own cost apart. */
    static final int SPACING_PER_COST = 20;

    /** Copies the core twice and replays both: the estimates of every pending job now. */
    public Forecast refresh() {
        return refresh(Long.MIN_VALUE);
    }

    /**
     * As {@link #refresh()}, of the core after {@code changes} changes (its count): a what-if on a core that has not
     * changed since takes these estimates as its "now".
     */
    public Forecast refresh(long changes) {
        synchronized (refreshing) {
            changesSeen = changes;
            long started = cpuNanos();
            Replayed replayed = replayBoth(simulations.apply(null), simulations.apply(null));
            measure(replayed.jobs(), replayed.estimates(), replayed.at());
            current = new Forecast(replayed.at(), Map.copyOf(replayed.estimates()),
                    Map.copyOf(replayed.typical().freedBy()), Map.copyOf(replayed.typical().ends()),
                    Duration.ofNanos(Math.max(0, cpuNanos() - started)));
            return current;
        }
    }

    /**
     * The estimate of a job if it were submitted now (a dry run): the job is added to a copy of the core and both
     * replays are run. The core is not changed.
     *
     * @param job the job as it would be observed, queued
     */
    public Estimate ifSubmitted(JobObservation job) {
        Simulation typicalSim = simulations.apply(null);
        Simulation lateSim = simulations.apply(null);
        typicalSim.submit(job);
        lateSim.submit(job);
        Replayed replayed = replayBoth(typicalSim, lateSim);
        Estimate e = replayed.estimates().get(job.key());
        return e != null ? e : new Estimate(Estimate.State.BLOCKED, null, null, null, List.of(), replayed.at());
    }

    /**
     * What the change would do: the state now replayed as it is and under the change, and every pending job's place
     * and estimate in both. Three replays (the change's at median run times only: its estimates have no
     * {@code etaLate}); nothing is written.
     *
     * @param tree     the quota groups under the change; null: as now
     * @param settings the policy switches under the change; null: as now
     */
    public WhatIf whatIf(QuotaTree tree, SchedulerSettings settings) {
        return whatIf(tree, settings, Long.MIN_VALUE);
    }

    /**
     * As {@link #whatIf(QuotaTree, SchedulerSettings)}; when the core has not changed since the last refresh
     * ({@code changes} is the count that refresh saw), its estimates serve as "now" and only the replay under the
     * change is run.
     */
    public WhatIf whatIf(QuotaTree tree, SchedulerSettings settings, long changes) {
        Forecast last = current;
        boolean reuse;
        synchronized (refreshing) {
            reuse = changes != Long.MIN_VALUE && changes == changesSeen && last != Forecast.NONE;
        }
        Simulation nowTypical = simulations.apply(null);
        Simulation thenTypical = simulations.apply(settings);
        if (tree != null) {
            thenTypical.replaceTree(tree);
        }
        Instant at = nowTypical.now();
        Map<JobKey, PendingView> placesNow = places(nowTypical.pending());
        Map<JobKey, PendingView> placesThen = places(thenTypical.pending());
        Map<JobKey, Estimate> now = reuse ? last.estimates()
                : replayBoth(nowTypical, simulations.apply(null)).estimates();
        // the side under the change at median run times only: a what-if compares starts, and it costs one replay less
        List<JobStatus> jobsThen = thenTypical.jobs();
        QuotaTree treeThen = thenTypical.tree();
        Map<JobKey, Estimate> then = Estimates.of(jobsThen, treeThen,
                Replay.run(thenTypical, history.snapshot(at), Replay.Quantile.TYPICAL, limits), null);
        List<WhatIf.Job> jobs = new ArrayList<>();
        Map<String, long[]> byGroup = new TreeMap<>();
        List<JobKey> keys = new ArrayList<>(placesNow.keySet());
        keys.sort(null);
        for (JobKey key : keys) {
            PendingView before = placesNow.get(key);
            PendingView after = placesThen.get(key);
            Estimate e0 = now.get(key);
            Estimate e1 = then.get(key);
            jobs.add(new WhatIf.Job(key, before.status().group(), before.position(), e0,
                    after == null ? null : after.status().group(), after == null ? 0 : after.position(), e1));
            String group = before.status().group();
            if (group == null) {
                continue;
            }
            long[] sums = byGroup.computeIfAbsent(group, g -> new long[3]);
            Instant t0 = e0 == null ? null : e0.eta();
            Instant t1 = e1 == null ? null : e1.eta();
            if (t0 != null && t1 != null) {
                long shift = Duration.between(t0, t1).getSeconds();
                if (shift < 0) {
                    sums[0]++;
                } else if (shift > 0) {
                    sums[1]++;
                }
                sums[2] += shift;
            } else if (t0 == null && t1 != null) {
                sums[0]++;
            } else if (t0 != null) {
                sums[1]++;
            }
        }
        List<WhatIf.Group> groups = new ArrayList<>();
        byGroup.forEach((g, s) -> groups.add(new WhatIf.Group(g, (int) s[0], (int) s[1], s[2])));
        return new WhatIf(at, jobs, groups);
    }

    /** Two replays of one state and the estimates they give: what the state held, and the median replay. */
    private record Replayed(Instant at, List<JobStatus> jobs, Map<JobKey, Estimate> estimates, Replay.Result typical) {
    }

    /**
     * Replays two copies of one state, at median and at 90th-percentile run times, on one snapshot of the history;
     * the copies are used up.
     */
    private Replayed replayBoth(Simulation typicalSim, Simulation lateSim) {
        Instant at = typicalSim.now();
        List<JobStatus> jobs = typicalSim.jobs();
        QuotaTree tree = typicalSim.tree();
        RunTimeHistory.Snapshot snapshot = history.snapshot(at);
        Replay.Result typical = Replay.run(typicalSim, snapshot, Replay.Quantile.TYPICAL, limits);
        Replay.Result late = Replay.run(lateSim, snapshot, Replay.Quantile.LATE, limits);
        return new Replayed(at, jobs, Estimates.of(jobs, tree, typical, late), typical);
    }

    private static Map<JobKey, PendingView> places(List<PendingView> pending) {
        Map<JobKey, PendingView> out = new HashMap<>();
        for (PendingView v : pending) {
            out.put(v.status().key(), v);
        }
        return out;
    }

    /** The estimates' own error so far. */
    public EstimateAccuracy accuracy() {
        synchronized (refreshing) {
            if (errorCount == 0) {
                return EstimateAccuracy.NONE;
            }
            double[] sorted = Arrays.copyOf(errors, errorCount);
            Arrays.sort(sorted);
            return new EstimateAccuracy(errorCount, quantile(sorted, 0.5), quantile(sorted, 0.9));
        }
    }

    private static double quantile(double[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /** Keeps each job's first estimate, and scores it when the job is seen admitted. Under {@code refreshing}. */
    private void measure(List<JobStatus> jobs, Map<JobKey, Estimate> estimates, Instant at) {
        Set<JobKey> present = new HashSet<>();
        for (JobStatus job : jobs) {
            present.add(job.key());
            if (job.state() == JobState.ADMITTED) {
                First first = firsts.remove(job.key());
                Instant admitted = admittedAt(job);
                if (first != null && admitted != null && !admitted.isBefore(first.madeAt())) {
                    double wait = Math.max(1000, Duration.between(first.madeAt(), admitted).toMillis());
                    double error = Math.abs(Duration.between(first.eta(), admitted).toMillis()) / wait;
                    errors[errorNext] = error;
                    errorNext = (errorNext + 1) % WINDOW;
                    errorCount = Math.min(WINDOW, errorCount + 1);
                }
            } else {
                Estimate e = estimates.get(job.key());
                if (e != null && e.eta() != null) {
                    firsts.putIfAbsent(job.key(), new First(e.eta(), at));
                }
            }
        }
        firsts.keySet().retainAll(present);
    }

    private static Instant admittedAt(JobStatus job) {
        if (job.record() == null || job.record().startedOutside()) {
            return null;
        }
        try {
            return Instant.parse(job.record().admittedAt());
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
