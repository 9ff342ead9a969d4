package io.kubequeue.scheduler.forecast;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;

/**
 * The queue played forward (issue 30): a {@link Simulation} (a copy of the core, the same policy, order, tree,
 * backoff and reclaim rules) is driven as the admission loop drives the core — a cycle at every event, an event being
 * a job's predicted end or the next retry, and at once again after a cycle that decided something (its writes are
 * seen and trigger the next) — with every job's run time taken from the {@link RunTimeHistory}. A job
 * whose run time is unknown never ends in the replay, so whatever waits behind it is never started and is told
 * "unknown", not guessed.
 *
 * <p>Bounded: at most {@link Limits#cycles()} cycles and {@link Limits#horizon()} of simulated time. Assumes what
 * the answer says it assumes: no job arrives, is edited or deleted, no quota changes, writes apply at once and an
 * evicted job's pods are gone at once.
 */
public final class Replay {

    /** Which run time each job is given. */
    public enum Quantile {
        /** The median (p50): the estimate. */
        TYPICAL,
        /** The 90th percentile: the late end of the band. */
        LATE
    }

    /** Why a replay stopped. */
    public enum Stop {
        /** Nothing more would happen: every job that can start started, or waits on a job that never ends here. */
        SETTLED,
        /** The next event lies past the horizon. */
        HORIZON,
        /** The cycle budget ran out. */
        CYCLES
    }

    /**
     * Bounds on one replay's cost.
     *
     * @param horizon simulated time looked ahead
     * @param cycles  cycles run at most
     */
    public record Limits(Duration horizon, int cycles, Duration resolution) {
        /** Thirty days ahead, 200,000 cycles, events a tenth of a second apart at the closest. */
        public static final Limits STANDARD = new Limits(Duration.ofDays(30), 200_000, Duration.ofMillis(100));
        /** Thirty days ahead, 200,000 cycles, every event at its own instant: what the real cycles do, exactly. */
        public static final Limits EXACT = new Limits(Duration.ofDays(30), 200_000, Duration.ZERO);

        /**
         * @param horizon    simulated time looked ahead
         * @param cycles     cycles run at most
         * @param resolution events are taken at multiples of this after the replay's start, so the events of one
         *                   tick (jobs ending, backoffs ending) cost one cycle, as the admission loop coalesces a burst
         *                   of triggers into one: a start is then predicted up to one tick late per job it waits
         *                   behind. Zero: each event at its own instant (exact)
         */
        public Limits {
            if (resolution.isNegative()) {
                throw new IllegalArgumentException("resolution below zero: " + resolution);
            }
        }

        /** Limits at the standard resolution. */
        public Limits(Duration horizon, int cycles) {
            this(horizon, cycles, STANDARD.resolution());
        }
    }

    /**
     * What the replay found.
     *
     * @param from        when it started (the simulation's time then)
     * @param starts      each job admitted in the replay (and still admitted at its end, or ended) with the simulated
     *                    time of its admission
     * @param freedBy     for each job started, the job whose end came last before its admission, if one did (what it
     *                    waited for, as far as a replay can tell)
     * @param ends        each job's predicted end, for jobs whose run time is known
     * @param runTimes    the prediction each job was given when the replay admitted it, or at its start for jobs that
     *                    ran already
     * @param unknownRuns jobs whose run time is unknown that still held quota when the replay stopped
     * @param stop        why it stopped
     * @param reached     the simulated time it reached
     * @param cycles      how many cycles it ran
     */
    public record Result(Instant from, Map<JobKey, Instant> starts, Map<JobKey, JobKey> freedBy,
                         Map<JobKey, Instant> ends, Map<JobKey, RunTimeHistory.Prediction> runTimes,
                         Set<JobKey> unknownRuns, Stop stop, Instant reached, int cycles) {
        public Result {
            starts = Collections.unmodifiableMap(starts);
            freedBy = Collections.unmodifiableMap(freedBy);
            ends = Collections.unmodifiableMap(ends);
            runTimes = Collections.unmodifiableMap(runTimes);
            unknownRuns = Collections.unmodifiableSet(unknownRuns);
        }
    }

    private record Ending(Instant at, JobKey key) {
    }

    private Replay() {
    }

    /**
     * Plays the simulation forward; the simulation is used up.
     *
     * @param sim      a copy of the core, at the time to start from
     * @param history  the run times to go by
     * @param quantile which run time each job gets
     * @param limits   bounds on the cost
     */
    public static Result run(Simulation sim, RunTimeHistory.Snapshot history, Quantile quantile, Limits limits) {
        Instant from = sim.now();
        Instant horizon = from.plus(limits.horizon());
        Map<JobKey, Instant> starts = new HashMap<>();
        Map<JobKey, JobKey> freedBy = new HashMap<>();
        Map<JobKey, Instant> ends = new HashMap<>();
        Map<JobKey, RunTimeHistory.Prediction> runTimes = new HashMap<>();
        Set<JobKey> unknown = new HashSet<>();
        PriorityQueue<Ending> endings = new PriorityQueue<>(Comparator.comparing(Ending::at).thenComparing(Ending::key));
        for (JobStatus job : sim.jobs()) {
            if (job.state() == JobState.ADMITTED) {
                // it runs from when its admission applied (runs are learnt from then), never before its record's
                // time; a record a millisecond ahead (admissions within a cycle are a millisecond apart) runs from it
                Instant recorded = recordedAt(job.record(), Instant.MIN); // MIN: the record names no time
                Instant running = sim.runningSince(job.key()).filter(applied -> applied.isAfter(recorded))
                        .orElse(recorded == Instant.MIN ? from : recorded);
                Instant start = running.isAfter(from) ? running : from;
                RunTimeHistory.Prediction p = history.remaining(job.group(), job.key().kind(), job.request(),
                        sim.runTime(job.key()), Duration.between(running, start));
                runTimes.put(job.key(), p);
                plan(job.key(), p, quantile, start, ends, endings, unknown);
            }
        }
        JobKey lastEnded = null;
        Instant lastChange = from;
        Duration quiet = sim.maxBackoff().multipliedBy(2);
        int cycles = 0;
        Stop stop;
        while (true) {
            CycleResult result = sim.cycle();
            cycles++;
            boolean again = !result.isEmpty() && cycles < limits.cycles();
            if (!result.admissions().isEmpty() || !result.evictions().isEmpty()) {
                lastChange = sim.now();
            }
            for (Eviction eviction : result.evictions()) {
                JobKey victim = eviction.key();
                unknown.remove(victim);
                starts.remove(victim);
                if (ends.remove(victim) != null) {
                    endings.removeIf(e -> e.key().equals(victim));
                }
            }
            for (Admission admission : result.admissions()) {
                JobKey key = admission.key();
                // the record's time, as the job will show it: a millisecond apart within a cycle, never before now
                Instant start = recordedAt(admission.record(), sim.now());
                starts.put(key, start);
                if (lastEnded != null) {
                    freedBy.put(key, lastEnded);
                }
                String group = admission.record().group();
                RunTimeHistory.Prediction p = history.remaining(group, key.kind(), admission.request(),
                        sim.runTime(key), Duration.ZERO);
                runTimes.put(key, p);
                plan(key, p, quantile, start, ends, endings, unknown);
            }
            if (again) {
                continue; // what a cycle wrote is seen at once and triggers the next, as in the admission loop
            }
            Optional<Instant> retry = sim.nextRetry();
            Instant next = endings.isEmpty() ? null : endings.peek().at();
            if (retry.isPresent() && (next == null || retry.get().isBefore(next))) {
                next = retry.get();
            }
            if (next == null || endings.isEmpty() && next.isAfter(lastChange.plus(quiet))) {
                // nothing ends any more, and every backed-off job was tried since the last change: nothing will
                stop = Stop.SETTLED;
                break;
            }
            if (next.isAfter(horizon)) {
                stop = Stop.HORIZON;
                break;
            }
            if (cycles >= limits.cycles()) {
                stop = Stop.CYCLES;
                break;
            }
            if (!next.isAfter(sim.now())) {
                next = sim.now().plusMillis(1); // a retry already due was tried by this cycle: never loop in place
            }
            next = tick(from, next, limits.resolution());
            sim.advanceTo(next);
            while (!endings.isEmpty() && !endings.peek().at().isAfter(next)) {
                JobKey ended = endings.poll().key();
                sim.end(ended);
                lastEnded = ended;
                lastChange = next;
            }
        }
        return new Result(from, starts, freedBy, ends, runTimes, unknown, stop, sim.now(), cycles);
    }

    private static void plan(JobKey key, RunTimeHistory.Prediction p, Quantile quantile, Instant now,
                             Map<JobKey, Instant> ends, PriorityQueue<Ending> endings, Set<JobKey> unknown) {
        if (!p.known()) {
            unknown.add(key);
            return;
        }
        Instant end = now.plus(quantile == Quantile.TYPICAL ? p.typical() : p.late());
        ends.put(key, end);
        endings.add(new Ending(end, key));
    }

    /** {@code at}, rounded up to the next multiple of {@code resolution} after {@code from}. */
    static Instant tick(Instant from, Instant at, Duration resolution) {
        long step = resolution.toNanos();
        if (step <= 0) {
            return at;
        }
        long since = Duration.between(from, at).toNanos();
        long ticks = (since + step - 1) / step;
        return from.plusNanos(ticks * step);
    }

    /** The admission time a record names; {@code otherwise} if it names none. */
    static Instant recordedAt(AdmissionRecord record, Instant otherwise) {
        if (record == null || record.startedOutside() || record.admittedAt() == null) {
            return otherwise;
        }
        try {
            Instant at = Instant.parse(record.admittedAt());
            return at.isBefore(otherwise) ? otherwise : at;
        } catch (DateTimeParseException e) {
            return otherwise;
        }
    }
}
