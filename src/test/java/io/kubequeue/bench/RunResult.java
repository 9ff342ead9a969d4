package io.kubequeue.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.kubequeue.bench.Load.JobRecord;

/**
 * The figures of one run: one load, one admitter (kube-queue under one policy, or the reference).
 *
 * @param load             the load's name
 * @param admitter         {@code kube-queue} or {@code reference}
 * @param policy           kube-queue's policy; for the reference, the mode it ran in ({@link Policy#reference()})
 * @param jobs             jobs in the load
 * @param admitted         jobs seen admitted
 * @param finished         jobs seen finished
 * @param failure          why the run did not complete (timeout, kube-queue not ready or gone), or null
 * @param wallSeconds      first submission to last completion seen, seconds
 * @param admissionsPerSecond admissions seen ÷ (last admission seen − first submission)
 * @param timeToAdmission  per class, seconds from the Job first seen to seen admitted
 * @param limits           the tree's limits
 * @param leafPeak         highest cpu in use per leaf, millicores
 * @param parentPeak       highest cpu in use per parent, millicores
 * @param rootPeak         highest cpu in use at the root, millicores
 * @param excessEvents     admissions after which a group's usage was above its max (any fails the run)
 * @param excesses         the first few, described
 * @param process          kube-queue's process figures, or null (the reference runs in the harness)
 * @param harnessCores     the harness's process (API server, watch, runner, submitter, reference) CPU, average cores
 * @param serverCores      the embedded API server's request threads (its event loop) alone, average cores; NaN on a
 *                         cluster. Near 1, the server is saturated
 * @param machineCores     the machine's busy CPU (every process), average cores
 * @param writeFailures    the harness's writes that failed (creates, status)
 * @param firstWriteFailure the first of them, or null
 * @param submitLagMillis  the largest delay of a submission behind its schedule, ms
 * @param refused          the reference's patches refused or lost
 * @param cost             kube-queue's cycle duration and (backlog load) heap with the backlog pending, or null
 *                         (the reference, or kube-queue gone)
 * @param writes           the API writes the embedded server received from the first submission to the end of the
 *                         run, by client and kind, with its write budget's waits; null on a cluster (or a failed start)
 * @param estimates        kube-queue's start-time estimates against the admissions seen (issue 30), or null (the
 *                         reference, {@code --estimate-poll off}, or kube-queue gone)
 */
record RunResult(String load, String admitter, Policy policy, int jobs, int admitted, int finished, String failure,
                 double wallSeconds, double admissionsPerSecond, Map<String, Stats> timeToAdmission,
                 Load.Limits limits, long[] leafPeak, long[] parentPeak, long rootPeak, long excessEvents,
                 List<String> excesses, ProcessFigures process, double harnessCores, double serverCores, double machineCores,
                 long writeFailures, String firstWriteFailure, double submitLagMillis, long refused, QueueCost cost,
                 WriteFigures writes, EstimateFigures estimates) {

    /**
     * kube-queue's process.
     *
     * @param heapAfterGcBytes heap in use right after a full GC at the end of the run, bytes (-1: not read)
     * @param rssPeakKiB       highest resident set size over the process's life (VmHWM), KiB
     * @param rssFinalKiB      resident set size at the end of the run (VmRSS), KiB
     * @param cpuCores         CPU time used between the first submission and the end ÷ that wall time, cores
     * @param startSeconds     process start to ready (/q/health/ready 200), seconds
     * @param admissionsMetric kube-queue's own {@code kube_queue_admissions_total}
     * @param jvm              the command line it ran with
     * @param versions         what binding admissions to the job's version cost (issue 26), from its metrics
     */
    record ProcessFigures(long heapAfterGcBytes, long rssPeakKiB, long rssFinalKiB, double cpuCores,
                          double startSeconds, double admissionsMetric, String jvm, VersionFigures versions) {
    }

    /**
     * kube-queue's admissions that met a job changed since their decision (issue 26).
     *
     * @param refused  patches the API server refused because the job's version had moved on
     *                 ({@code kube_queue_admission_version_refusals_total})
     * @param unsent   admissions handed back before sending, the change already seen ({@code outcome="outdated_unsent"})
     * @param rebound  admissions bound to the newer version before sending, the decision still standing
     *                 ({@code kube_queue_admissions_rebound_total})
     * @param fences   patches sent again after an ambiguous answer ({@code kube_queue_admission_fences_total})
     */
    record VersionFigures(double refused, double unsent, double rebound, double fences) {
    }

    /**
     * Time to admission of one class, seconds.
     *
     * @param n   jobs admitted
     */
    record Stats(int n, double avg, double p50, double p90, double p99) {

        static Stats of(List<Double> values) {
            if (values.isEmpty()) {
                return new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
            }
            double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            return new Stats(v.length, Arrays.stream(v).average().orElse(Double.NaN), rank(v, 0.50), rank(v, 0.90),
                    rank(v, 0.99));
        }

        /** Nearest-rank percentile. */
        private static double rank(double[] sorted, double p) {
            int i = (int) Math.ceil(p * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
        }
    }

    /** Time to admission per class, in the load's class order. */
    static Map<String, Stats> timeToAdmission(Load load) {
        Map<String, List<Double>> byClass = new LinkedHashMap<>();
        load.classes.forEach(c -> byClass.put(c.name(), new ArrayList<>()));
        for (JobRecord j : load.jobs) {
            if (j.admittedAt != 0 && j.createdAt != 0) {
                byClass.get(j.jobClass.name()).add((j.admittedAt - j.createdAt) / 1e9);
            }
        }
        Map<String, Stats> stats = new LinkedHashMap<>();
        byClass.forEach((c, values) -> stats.put(c, Stats.of(values)));
        return stats;
    }

    /** A short name for the report: {@code kube-queue StrictConsistency=true} or {@code reference (blocking)}. */
    String label() {
        return isReference() ? "reference (" + policy.referenceMode() + ")"
                : admitter + " " + policy.label();
    }

    /** The client whose writes are this run's admitter's: {@code kube-queue} or {@code reference}. */
    String writer() {
        return isReference() ? WriteCounts.REFERENCE : WriteCounts.KUBE_QUEUE;
    }

    /** The admitter's API writes ÷ the admissions seen; NaN on a cluster or without admissions. */
    double writesPerAdmission() {
        return writes == null ? Double.NaN : writes.perAdmission(writer(), admitted);
    }

    boolean isReference() {
        return admitter.equals("reference");
    }

    boolean complete() {
        return failure == null;
    }
}
