package io.kubequeue.bench;

import java.time.Duration;

/**
 * What kube-queue's pending jobs cost it in one run, read from its {@code /q/metrics} and a full GC: the
 * scheduling cycle's duration over the measured window, and (backlog load) the live heap while the backlog is
 * pending, before the window starts.
 *
 * @param backlog         the backlog load's pending jobs that cannot fit ({@link Load#backlogJobs}); 0 for other loads
 * @param pendingBefore   {@value #PENDING_SERIES} summed over groups and states just before the window: what
 *                        kube-queue itself holds pending; NaN when not read (loads without a backlog)
 * @param heapBeforeBytes heap in use right after a full GC at that moment, bytes; -1 when not read
 * @param cycleP50Seconds the median of the cycles run in the window, seconds, from the difference of two readings
 *                        of {@value #CYCLE_SERIES}{@code _bucket} ({@link CycleHistogram}); without buckets,
 *                        {@code {quantile="0.5"}} at the end of the run (Micrometer's last ~2 minutes); NaN when
 *                        kube-queue publishes neither
 * @param cycleP99Seconds the same, p99
 * @param cycleMeanSeconds cycles' mean duration over the window (Δ{@code _sum} ÷ Δ{@code _count}), seconds; NaN
 *                        without cycles
 * @param cycles          cycles run in the window (Δ{@code _count})
 */
record QueueCost(int backlog, double pendingBefore, long heapBeforeBytes, double cycleP50Seconds,
                 double cycleP99Seconds, double cycleMeanSeconds, double cycles) {

    /**
     * The scheduling cycle's timer as kube-queue's Prometheus endpoint names it (Micrometer's {@code Timer}
     * {@code kube_queue_scheduling_cycle}, base unit seconds): its percentiles are the series itself with a
     * {@code quantile} label, its totals {@code _count} and {@code _sum}. One constant, so a renamed series is fixed
     * here.
     */
    static final String CYCLE_SERIES = "kube_queue_scheduling_cycle_seconds";
    /** Pending jobs per group and state ({@code active}, {@code backoff}, {@code blocked}). */
    static final String PENDING_SERIES = "kube_queue_pending_jobs";
    /** How long kube-queue may take to show the backlog pending after it is ready (its gauges lag up to 5 s). */
    static final Duration PENDING_TIMEOUT = Duration.ofMinutes(5);

    /** The cycle timer's totals and buckets at the start of the window. */
    record Start(double count, double sum, CycleHistogram buckets) {
        static Start read(KubeQueueProcess kubeQueue) {
            return new Start(kubeQueue.metric(CYCLE_SERIES + "_count", ""), kubeQueue.metric(CYCLE_SERIES + "_sum", ""),
                    CycleHistogram.parse(kubeQueue.metricsText(), CYCLE_SERIES));
        }
    }

    /** The figures at the end of the window, given those before it. */
    static QueueCost read(KubeQueueProcess kubeQueue, int backlog, double pendingBefore, long heapBeforeBytes,
                          Start start) {
        double count = kubeQueue.metric(CYCLE_SERIES + "_count", "") - start.count();
        double sum = kubeQueue.metric(CYCLE_SERIES + "_sum", "") - start.sum();
        CycleHistogram window = CycleHistogram.parse(kubeQueue.metricsText(), CYCLE_SERIES).since(start.buckets());
        double p50 = window.count() > 0 ? window.quantile(0.5) : kubeQueue.sample(CYCLE_SERIES, "quantile=\"0.5\"");
        double p99 = window.count() > 0 ? window.quantile(0.99) : kubeQueue.sample(CYCLE_SERIES, "quantile=\"0.99\"");
        return new QueueCost(backlog, pendingBefore, heapBeforeBytes, p50, p99, count > 0 ? sum / count : Double.NaN,
                count);
    }

    /** What kube-queue holds pending now, by its own gauge (summed over groups and states). */
    static double pending(KubeQueueProcess kubeQueue) {
        return kubeQueue.metric(PENDING_SERIES, "");
    }

    /**
     * Waits until kube-queue shows at least {@code jobs} pending; false if it did not within the time (or exited).
     */
    static boolean awaitPending(KubeQueueProcess kubeQueue, int jobs, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && kubeQueue.alive()) {
            if (pending(kubeQueue) >= jobs) {
                return true;
            }
            Thread.sleep(500);
        }
        return false;
    }

    /** Below this CPU (cores, over {@link #SETTLE_SAMPLE}) kube-queue counts as settled: its start-up work done. */
    static final double SETTLED_CORES = 0.1;
    static final Duration SETTLE_SAMPLE = Duration.ofSeconds(2);
    static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(3);

    /**
     * Waits until kube-queue's CPU stays under {@value #SETTLED_CORES} cores for one {@link #SETTLE_SAMPLE}: its
     * start-up done (the informers' queued notifications handled, JOSDK's per-job event state gone), so that the
     * heap measured next is what the pending jobs keep, not what reading them took.
     *
     * @return the seconds waited, or -1 if it did not settle within {@link #SETTLE_TIMEOUT} (the heap is read anyway)
     */
    static double awaitSettled(KubeQueueProcess kubeQueue) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + SETTLE_TIMEOUT.toNanos();
        // JOSDK's informers list every job once more after start-up recovery, in pages, with little CPU while they
        // wait for the server: the CPU alone read a backlog still being listed as settled (issue 27)
        while (System.nanoTime() < deadline && kubeQueue.alive() && !controllersStarted(kubeQueue.log())) {
            Thread.sleep(500);
        }
        while (System.nanoTime() < deadline && kubeQueue.alive()) {
            long cpu0 = ProcStats.process(kubeQueue.pid()).cpuNanos();
            long t0 = System.nanoTime();
            Thread.sleep(SETTLE_SAMPLE.toMillis());
            double cores = (double) (ProcStats.process(kubeQueue.pid()).cpuNanos() - cpu0) / (System.nanoTime() - t0);
            if (cores < SETTLED_CORES) {
                return (System.nanoTime() - start) / 1e9;
            }
        }
        return -1;
    }

    private static final java.util.regex.Pattern STARTING = java.util.regex.Pattern.compile("Starting '([^']+)' controller");

    /**
     * Whether every controller JOSDK logged as starting ({@code Starting 'NAME' controller}) has logged
     * {@code 'NAME' controller started}: its informers have listed. False if the log cannot be read.
     */
    static boolean controllersStarted(java.nio.file.Path log) {
        String text;
        try {
            text = java.nio.file.Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return false;
        }
        var starting = STARTING.matcher(text);
        boolean any = false;
        while (starting.find()) {
            any = true;
            if (!text.contains("'" + starting.group(1) + "' controller started")) {
                return false;
            }
        }
        return any;
    }

    /** Heap after full GC ÷ pending jobs (the figure), bytes; NaN when either is missing or nothing pends. */
    double heapPerPendingBytes() {
        return heapBeforeBytes < 0 || !(pendingBefore > 0) ? Double.NaN : heapBeforeBytes / pendingBefore;
    }

    /**
     * What each pending job adds: (this heap − the heap of the run without a backlog) ÷ (this pending − that
     * pending), bytes; NaN when either is missing. The fixed part of the heap (the runtime, the other groups'
     * jobs) left out, this is the figure that grows with the backlog.
     */
    double marginalHeapPerPendingBytes(QueueCost none) {
        if (none == null || heapBeforeBytes < 0 || none.heapBeforeBytes < 0 || Double.isNaN(pendingBefore)
                || Double.isNaN(none.pendingBefore) || pendingBefore <= none.pendingBefore) {
            return Double.NaN;
        }
        return (heapBeforeBytes - none.heapBeforeBytes) / (pendingBefore - none.pendingBefore);
    }
}
