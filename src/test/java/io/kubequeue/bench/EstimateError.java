package io.kubequeue.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How far kube-queue's start-time estimates were from the admissions the watch then saw (issue 30, "Measured, not
 * assumed"): the pure arithmetic, apart from the polling ({@link EstimatePoller}).
 *
 * <p>Per admitted job, its estimates sampled while it was pending ({@link Sample}: when seen, the ETA, the state) are
 * read at four points of its actual wait ({@link #POINTS}: submission, 25, 50 and 75 %): the sample seen nearest to
 * {@code created + point × wait} ({@link #nearest}). An {@code ESTIMATED} sample's error is
 * {@code |eta − admitted| / wait} ({@link #error}); samples in any other state are counted per state, not in the
 * error figures. Percentiles are nearest-rank, as every other figure of the report.
 */
final class EstimateError {

    /** The points of a job's wait where its estimate is read, as fractions of the wait. */
    static final double[] POINTS = {0, 0.25, 0.5, 0.75};
    /** Their names in the report. */
    static final List<String> POINT_NAMES = List.of("submission", "25 % of wait", "50 % of wait", "75 % of wait");
    /** The targets on the baseline: median error ≤ 20 % of the wait, p90 ≤ 50 %. */
    static final double MEDIAN_TARGET = 0.20;
    static final double P90_TARGET = 0.50;
    /** The state whose samples carry an ETA. */
    static final String ESTIMATED = "ESTIMATED";
    /** The row of every class together. */
    static final String ALL = "all";

    private EstimateError() {
    }

    /**
     * One reading of a pending job's estimate.
     *
     * @param seenAt when the read was sent ({@link System#nanoTime()})
     * @param eta    the ETA on the same clock ({@link System#nanoTime()} scale), meaningful only when
     *               {@link #state} is {@link #ESTIMATED}
     * @param state  the estimate's state as kube-queue wrote it
     */
    record Sample(long seenAt, long eta, String state) {
        boolean estimated() {
            return ESTIMATED.equals(state);
        }
    }

    /**
     * What one job did and what was read of it.
     *
     * @param jobClass   its class (small, medium, large)
     * @param createdAt  first seen by the watch (nanoTime)
     * @param admittedAt seen admitted by the watch (nanoTime)
     * @param samples    its estimates while pending, in the order read
     */
    record Job(String jobClass, long createdAt, long admittedAt, List<Sample> samples) {
        long waitNanos() {
            return admittedAt - createdAt;
        }
    }

    /**
     * The figures at one point of the wait, over a set of jobs.
     *
     * @param jobs      jobs admitted after a wait (the ones the point is read for)
     * @param samples   of them, those whose nearest sample was {@code ESTIMATED}: the errors' count
     * @param median    median error, a fraction of the wait; NaN without samples
     * @param p90       90th percentile of the error; NaN without samples
     * @param others    how many nearest samples were in each other state
     * @param unsampled jobs read never while pending (admitted before a read of their group came round)
     * @param offset    median distance of the nearest sample from its point, a fraction of the wait (how well the
     *                  polling rate resolves the point); NaN when none
     */
    record Cell(int jobs, int samples, double median, double p90, Map<String, Integer> others, int unsampled,
                double offset) {

        boolean medianMet() {
            return samples > 0 && median <= MEDIAN_TARGET;
        }

        boolean p90Met() {
            return samples > 0 && p90 <= P90_TARGET;
        }
    }

    /**
     * The sample seen nearest to {@code target} (the earlier of two as near), or null if there is none.
     *
     * @param samples in any order
     */
    static Sample nearest(List<Sample> samples, long target) {
        Sample best = null;
        long bestDistance = Long.MAX_VALUE;
        for (Sample s : samples) {
            long distance = Math.abs(s.seenAt() - target);
            if (distance < bestDistance || (distance == bestDistance && best != null && s.seenAt() < best.seenAt())) {
                best = s;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** {@code |eta − admitted| / (admitted − created)}; NaN when the wait is not positive. */
    static double error(long eta, long admittedAt, long createdAt) {
        long wait = admittedAt - createdAt;
        if (wait <= 0) {
            return Double.NaN;
        }
        return Math.abs((double) eta - admittedAt) / wait;
    }

    /** The figures at {@code point} (a fraction of the wait) over {@code jobs}; jobs with no wait are skipped. */
    static Cell cell(List<Job> jobs, double point) {
        List<Double> errors = new ArrayList<>();
        List<Double> offsets = new ArrayList<>();
        Map<String, Integer> others = new TreeMap<>();
        int counted = 0;
        int unsampled = 0;
        for (Job job : jobs) {
            long wait = job.waitNanos();
            if (wait <= 0) {
                continue;
            }
            counted++;
            long target = job.createdAt() + Math.round(point * wait);
            Sample s = nearest(job.samples(), target);
            if (s == null) {
                unsampled++;
                continue;
            }
            offsets.add(Math.abs((double) s.seenAt() - target) / wait);
            if (s.estimated()) {
                errors.add(error(s.eta(), job.admittedAt(), job.createdAt()));
            } else {
                others.merge(s.state(), 1, Integer::sum);
            }
        }
        double[] e = errors.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double[] o = offsets.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return new Cell(counted, e.length, rank(e, 0.5), rank(e, 0.9), others, unsampled, rank(o, 0.5));
    }

    /**
     * Per class (in {@code classes}' order) and for {@link #ALL}, the cells at each of the {@link #POINTS}.
     */
    static Map<String, Cell[]> byClass(List<Job> jobs, List<String> classes) {
        Map<String, Cell[]> table = new LinkedHashMap<>();
        for (String c : classes) {
            table.put(c, cells(jobs.stream().filter(j -> j.jobClass().equals(c)).toList()));
        }
        table.put(ALL, cells(jobs));
        return table;
    }

    private static Cell[] cells(List<Job> jobs) {
        Cell[] cells = new Cell[POINTS.length];
        for (int i = 0; i < POINTS.length; i++) {
            cells[i] = cell(jobs, POINTS[i]);
        }
        return cells;
    }

    /** Nearest-rank percentile of sorted values; NaN for none. */
    static double rank(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /** Median and max of some values (e.g. what-if answer times); NaN for none. */
    static double[] medianAndMax(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return new double[] {rank(v, 0.5), v.length == 0 ? Double.NaN : v[v.length - 1]};
    }

    static String describeOthers(Cell cell) {
        if (cell.others().isEmpty() && cell.unsampled() == 0) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        cell.others().forEach((state, n) -> parts.add(state + " " + n));
        if (cell.unsampled() > 0) {
            parts.add("never read " + cell.unsampled());
        }
        return String.join(", ", parts);
    }
}
