package io.kubequeue.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.kubequeue.bench.Load.JobRecord;

/**
 * One kube-queue run's figures of its start-time estimates (issue 30, "Measured, not assumed").
 *
 * @param poll           what the {@link EstimatePoller} read (samples, the reads' cost, the what-ifs)
 * @param cells          per class and {@link EstimateError#ALL}, the error at each of {@link EstimateError#POINTS}
 * @param jobs           admitted jobs the figures are taken on
 * @param warmUp         jobs left out as the history's warm-up (the {@code varied} load's first phase)
 * @param refreshSeconds Δ{@code kube_queue_estimate_refresh_seconds_sum} over the measured window: the replays'
 *                       wall time (an upper bound of their CPU: a replay is single-threaded); NaN when kube-queue
 *                       does not publish the timer
 * @param cpuSeconds     kube-queue's process CPU time over the same window ({@link ProcStats})
 */
record EstimateFigures(EstimatePoller.Result poll, Map<String, EstimateError.Cell[]> cells, int jobs, int warmUp,
                       double refreshSeconds, double cpuSeconds) {

    /** The timer of the replays (its {@code _sum} and {@code _count} on the Prometheus endpoint). */
    static final String REFRESH_SERIES = "kube_queue_estimate_refresh_seconds";
    /** The replays' CPU time, which the share is taken from where kube-queue publishes it (else the wall time). */
    static final String REFRESH_CPU_SERIES = "kube_queue_estimate_refresh_cpu_seconds_total";
    /** The target: the estimates cost at most this share of kube-queue's CPU. */
    static final double CPU_SHARE_TARGET = 0.10;
    /** The target for a what-if's answer time, ms (strictly below). */
    static final double WHAT_IF_TARGET_MILLIS = 1_000;

    static EstimateFigures of(Load load, EstimatePoller.Result poll, double refreshSeconds, double cpuSeconds) {
        List<EstimateError.Job> jobs = new ArrayList<>();
        int warmUp = 0;
        for (JobRecord j : load.jobs) {
            if (!load.estimatesCount(j)) {
                warmUp++;
                continue;
            }
            if (j.admittedAt != 0 && j.createdAt != 0) {
                jobs.add(new EstimateError.Job(j.jobClass.name(), j.createdAt, j.admittedAt,
                        poll.samples().getOrDefault(j.key(), List.of())));
            }
        }
        dump(jobs);
        List<String> classes = load.classes.stream().map(Load.JobClass::name).toList();
        return new EstimateFigures(poll, EstimateError.byClass(jobs, classes), jobs.size(), warmUp, refreshSeconds,
                cpuSeconds);
    }

    /** The replays' share of kube-queue's CPU; NaN when unknown. */
    double cpuShare() {
        return Double.isNaN(refreshSeconds) || cpuSeconds <= 0 ? Double.NaN : refreshSeconds / cpuSeconds;
    }

    /**
     * With env {@code BENCH_ESTIMATE_DUMP=PATH}, every job's reads as lines (class, created, admitted, then each read
     * as seen:eta:state; nanoseconds on the watch's clock), appended to PATH: to look at single jobs' estimates.
     */
    private static void dump(List<EstimateError.Job> jobs) {
        String path = System.getenv("BENCH_ESTIMATE_DUMP");
        if (path == null || path.isBlank()) {
            return;
        }
        StringBuilder out = new StringBuilder();
        for (EstimateError.Job job : jobs) {
            out.append(job.jobClass()).append(' ').append(job.createdAt()).append(' ').append(job.admittedAt());
            for (EstimateError.Sample s : job.samples()) {
                out.append(' ').append(s.seenAt()).append(':').append(s.eta()).append(':').append(s.state());
            }
            out.append('\n');
        }
        try {
            java.nio.file.Files.writeString(java.nio.file.Path.of(path), out, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (java.io.IOException e) {
            System.err.println("bench: cannot write " + path + ": " + e);
        }
    }
}
