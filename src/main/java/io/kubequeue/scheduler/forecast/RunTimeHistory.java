package io.kubequeue.scheduler.forecast;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.kubequeue.scheduler.model.FinishedRun;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.RunTimeHints;

/**
 * How long jobs run in this cluster, learnt from the runs that ended (issue 30): per class of alike jobs — the same
 * quota group, kind and request shape (each resource's amount rounded down to a power of two) — the last
 * {@code runsPerClass} run times, each weighed by its age (halved every {@code halfLife}), so the distribution follows
 * a cluster whose jobs change. A class with no run falls back to the group and kind, any shape; with none there
 * either, a run time is unknown, never invented.
 *
 * <p>Bounded: at most {@code classes} classes of each level (the least recently fed goes first) and
 * {@code runsPerClass} runs each; a run is counted once, by job and admission time, among the last
 * {@code 16 × classes} seen (the same finished job is listed again at every restart). Thread-safe; a {@link #snapshot}
 * is an immutable copy that a replay reads without a lock.
 */
public final class RunTimeHistory {

    /** Where a prediction comes from, as the answer tells it. */
    public enum Source {
        /** The job's own {@code kube-queue/expected-duration} annotation. */
        EXPECTED,
        /** Runs of alike jobs: the same quota group, kind and request shape. */
        ALIKE,
        /** Runs of the same kind in the same quota group, of any request shape. */
        KIND,
        /** No history: the job's {@code activeDeadlineSeconds}, the longest it may run. */
        DEADLINE,
        /** Nothing to go by. */
        UNKNOWN
    }

    /**
     * How much longer a job runs.
     *
     * @param typical the median (p50) of what is left, never negative; null when {@link Source#UNKNOWN}
     * @param late    the 90th percentile of what is left, at least {@code typical}; null when unknown
     * @param source  what it comes from
     * @param runs    how many runs of history it rests on (0 unless {@link Source#ALIKE} or {@link Source#KIND})
     */
    public record Prediction(Duration typical, Duration late, Source source, int runs) {
        /** Nothing known. */
        public static final Prediction UNKNOWN = new Prediction(null, null, Source.UNKNOWN, 0);

        /** Whether a run time is known. */
        public boolean known() {
            return source != Source.UNKNOWN;
        }
    }

    private record Run(long millis, Instant endedAt) {
    }

    private final Duration halfLife;
    private final int runsPerClass;
    private final Map<String, ArrayDeque<Run>> byShape;
    private final Map<String, ArrayDeque<Run>> byKind;
    private final Map<String, Boolean> seen;

    /**
     * @param halfLife     a run counts half as much once this old
     * @param runsPerClass runs kept per class (the newest)
     * @param classes      classes kept per level
     * @throws IllegalArgumentException for a half-life that is not positive, or bounds below 1
     */
    public RunTimeHistory(Duration halfLife, int runsPerClass, int classes) {
        if (halfLife == null || halfLife.isZero() || halfLife.isNegative()) {
            throw new IllegalArgumentException("half-life must be positive: " + halfLife);
        }
        if (runsPerClass < 1 || classes < 1) {
            throw new IllegalArgumentException("bounds must be at least 1: " + runsPerClass + ", " + classes);
        }
        this.halfLife = halfLife;
        this.runsPerClass = runsPerClass;
        this.byShape = lru(classes);
        this.byKind = lru(classes);
        this.seen = lru(classes * 16);
    }

    /** A week's half-life, 64 runs per class, 4,096 classes. */
    public static RunTimeHistory standard() {
        return new RunTimeHistory(Duration.ofDays(7), 64, 4096);
    }

    private static <V> Map<String, V> lru(int bound) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > bound;
            }
        };
    }

    /**
     * Learns one run.
     *
     * @return false if it was counted before (the same job and admission time), or it is a started-outside charge
     */
    public synchronized boolean record(FinishedRun run) {
        String id = run.key().kind() + '/' + run.key().namespace() + '/' + run.key().name() + '@' + run.admittedAt();
        if (seen.put(id, Boolean.TRUE) != null) {
            return false;
        }
        Run r = new Run(run.ran().toMillis(), run.finishedAt());
        add(byShape, shapeClass(run.group(), run.key().kind(), run.request()), r);
        add(byKind, kindClass(run.group(), run.key().kind()), r);
        return true;
    }

    private void add(Map<String, ArrayDeque<Run>> level, String cls, Run run) {
        ArrayDeque<Run> runs = level.computeIfAbsent(cls, k -> new ArrayDeque<>());
        runs.addLast(run);
        while (runs.size() > runsPerClass) {
            runs.removeFirst();
        }
    }

    /** How many runs are held, over every class of alike jobs. */
    public synchronized int runs() {
        return byShape.values().stream().mapToInt(ArrayDeque::size).sum();
    }

    /** An immutable copy, weighed as of {@code now}, for a replay to read without a lock. O(runs held). */
    public synchronized Snapshot snapshot(Instant now) {
        return new Snapshot(weigh(byShape, now), weigh(byKind, now));
    }

    private Map<String, Weighed> weigh(Map<String, ArrayDeque<Run>> level, Instant now) {
        Map<String, Weighed> out = new HashMap<>();
        double halfLifeMillis = halfLife.toMillis();
        level.forEach((cls, runs) -> {
            List<Run> sorted = new ArrayList<>(runs);
            sorted.sort(Comparator.comparingLong(Run::millis));
            long[] millis = new long[sorted.size()];
            double[] weights = new double[sorted.size()];
            for (int i = 0; i < millis.length; i++) {
                millis[i] = sorted.get(i).millis();
                double age = Math.max(0, Duration.between(sorted.get(i).endedAt(), now).toMillis());
                weights[i] = Math.pow(0.5, age / halfLifeMillis);
            }
            out.put(cls, new Weighed(millis, weights));
        });
        return out;
    }

    /** The runs of one class, shortest first, each with its weight. */
    private record Weighed(long[] millis, double[] weights) {

        /**
         * The {@code q}-quantile of what is left of runs longer than {@code elapsed}; null if no run was that long.
         */
        Duration remaining(double q, long elapsed) {
            double total = 0;
            for (int i = 0; i < millis.length; i++) {
                if (millis[i] > elapsed) {
                    total += weights[i];
                }
            }
            if (total <= 0) {
                return null;
            }
            double sum = 0;
            long last = elapsed;
            for (int i = 0; i < millis.length; i++) {
                if (millis[i] > elapsed) {
                    sum += weights[i];
                    last = millis[i];
                    if (sum >= q * total * (1 - 1e-9)) { // runs of one age weigh alike: no rounding tips it
                        break;
                    }
                }
            }
            return Duration.ofMillis(last - elapsed);
        }

        int count(long elapsed) {
            int n = 0;
            for (long m : millis) {
                n += m > elapsed ? 1 : 0;
            }
            return n;
        }
    }

    /** The history as it stood at one instant; immutable. */
    public static final class Snapshot {
        private final Map<String, Weighed> byShape;
        private final Map<String, Weighed> byKind;

        private Snapshot(Map<String, Weighed> byShape, Map<String, Weighed> byKind) {
            this.byShape = byShape;
            this.byKind = byKind;
        }

        /** A snapshot that knows no run. */
        public static Snapshot empty() {
            return new Snapshot(Map.of(), Map.of());
        }

        /**
         * How much longer a job runs that has run for {@code elapsed} (zero for a pending job): its annotation if it
         * has one, else the runs of alike jobs longer than {@code elapsed}, else those of its kind in its group;
         * never past its deadline. With no history and a deadline, the deadline.
         *
         * @param group   its quota group
         * @param kind    its kind
         * @param request its request (millicores, bytes, counts)
         * @param hints   what it says of its run time
         * @param elapsed how long it has run
         */
        public Prediction remaining(String group, String kind, Resources request, RunTimeHints hints,
                                    Duration elapsed) {
            Objects.requireNonNull(hints, "hints");
            long ran = Math.max(0, elapsed.toMillis());
            Prediction p;
            if (hints.expected() != null) {
                Duration left = nonNegative(hints.expected().minusMillis(ran));
                p = new Prediction(left, left, Source.EXPECTED, 0);
            } else {
                p = fromRuns(byShape.get(shapeClass(group, kind, request)), Source.ALIKE, ran);
                if (!p.known()) {
                    p = fromRuns(byKind.get(kindClass(group, kind)), Source.KIND, ran);
                }
            }
            if (hints.deadline() == null) {
                return p;
            }
            Duration untilDeadline = nonNegative(hints.deadline().minusMillis(ran));
            if (!p.known()) {
                return new Prediction(untilDeadline, untilDeadline, Source.DEADLINE, 0);
            }
            return new Prediction(min(p.typical(), untilDeadline), min(p.late(), untilDeadline), p.source(), p.runs());
        }

        private static Prediction fromRuns(Weighed runs, Source source, long elapsed) {
            if (runs == null) {
                return Prediction.UNKNOWN;
            }
            Duration typical = runs.remaining(0.5, elapsed);
            if (typical == null) {
                return Prediction.UNKNOWN;
            }
            return new Prediction(typical, runs.remaining(0.9, elapsed), source, runs.count(elapsed));
        }
    }

    private static Duration nonNegative(Duration d) {
        return d.isNegative() ? Duration.ZERO : d;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** The class of alike jobs: group, kind and each requested resource's power of two. */
    static String shapeClass(String group, String kind, Resources request) {
        StringBuilder cls = new StringBuilder(kindClass(group, kind));
        for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
            if (r.getKey().equals(Resources.MAX_JOBS) || r.getValue() <= 0) {
                continue;
            }
            cls.append(' ').append(r.getKey()).append(":2^").append(63 - Long.numberOfLeadingZeros(r.getValue()));
        }
        return cls.toString();
    }

    private static String kindClass(String group, String kind) {
        return group + ' ' + kind;
    }
}
