package io.kubequeue.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * One run: a fresh API server state, one load, one admitter (kube-queue as a separate process under one policy,
 * or the in-process {@link ReferenceAdmitter}), the job runner, the harness's watch; from the first submission
 * until every job has been seen finished (or the timeout). Progress goes to {@code out} every 10 s.
 */
final class BenchRun {

    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final long PROGRESS_NANOS = Duration.ofSeconds(10).toNanos();
    /**
     * Creates outstanding at once at most: 256 at 150 ms is ~1,700 creates/s, far above the baseline's ~385/s, and
     * the burst's pace is then the server's.
     */
    static final int CREATES_IN_FLIGHT = 256;
    /** The runner's status writes outstanding at once at most (two per job; ~130 outstanding at 215 admissions/s). */
    static final int RUNNER_IN_FLIGHT = 512;

    /** Lines of the class histogram printed with the backlog's heap (the header and the top classes). */
    static final int HISTOGRAM_LINES = 18;

    private final BenchOptions options;
    private final KubeQueueProcess.Shipped shipped;
    private final PrintStream out;

    BenchRun(BenchOptions options, KubeQueueProcess.Shipped shipped, PrintStream out) {
        this.options = options;
        this.shipped = shipped;
        this.out = out;
    }

    /**
     * @param server the API server (a new embedded one, or the cluster)
     * @param reference whether to run the reference admitter instead of kube-queue
     * @param policy    kube-queue's policy, or the reference's mode ({@link Policy#reference()})
     */
    RunResult run(ApiServer server, String loadName, boolean reference, Policy policy) throws InterruptedException {
        Load load = Load.named(loadName, options.scale());
        String admitter = reference ? "reference" : "kube-queue";
        String name = loadName + "-" + (reference ? "reference-" + policy.referenceMode() : policy.option);
        out.printf("%n--- run %s: %s, %,d jobs (%s), on %s%n", name, reference ? "reference admitter, "
                + policy.referenceMode() : "kube-queue " + policy.label(),
                load.jobs.size(), load.describeCounts(), server.describe());
        server.clear(Load.namespaces(), options.timeout());
        load.setUp(server.client());

        KubeQueueProcess kubeQueue = null;
        ReferenceAdmitter referenceAdmitter = null;
        try (KubernetesClient runnerClient = server.newClient(); KubernetesClient createClient = server.newClient();
             KubernetesClient referenceClient = server.newClient(WriteCounts.REFERENCE);
             Observer observer = new Observer(server.client(), load);
             JobRunner runner = new JobRunner(new JobWriter(runnerClient, RUNNER_IN_FLIGHT))) {
            observer.addListener(runner);
            observer.start();
            String notReady = createBackground(load, createClient, observer, runner);
            if (notReady != null) {
                return failed(load, admitter, policy, notReady);
            }
            double startSeconds = 0;
            if (reference) {
                referenceAdmitter = new ReferenceAdmitter(load, new JobWriter(referenceClient, options.inFlight()),
                        policy == Policy.BLOCKING);
                observer.addListener(referenceAdmitter);
            } else {
                long t = System.nanoTime();
                kubeQueue = KubeQueueProcess.start(name, options, shipped, server, policy);
                out.println("    " + kubeQueue.describe(shipped));
                // with a backlog, start-up reads every job of it first: up to the run's own timeout
                Duration ready = load.background.isEmpty() ? READY_TIMEOUT : options.timeout();
                if (!kubeQueue.awaitReady(ready)) {
                    return failed(load, admitter, policy, "kube-queue was not ready within " + ready
                            + (kubeQueue.alive() ? "" : " (it exited)") + "; its log: " + kubeQueue.log());
                }
                startSeconds = (System.nanoTime() - t) / 1e9;
                out.printf("    kube-queue ready after %.1f s: %s%n", startSeconds, kubeQueue);
            }
            double pendingBefore = Double.NaN;
            long heapBefore = -1;
            if (kubeQueue != null && !load.background.isEmpty()) {
                // the backlog's memory, measured while it is pending and before the window (the full GC pauses it)
                long t = System.nanoTime();
                if (!QueueCost.awaitPending(kubeQueue, load.backlogJobs(), QueueCost.PENDING_TIMEOUT)) {
                    return failed(load, admitter, policy, String.format("kube-queue did not show the %,d backlog jobs"
                            + " pending within %s (it shows %,.0f)", load.backlogJobs(), QueueCost.PENDING_TIMEOUT,
                            kubeQueue.alive() ? QueueCost.pending(kubeQueue) : Double.NaN));
                }
                double shown = (System.nanoTime() - t) / 1e9;
                double settled = QueueCost.awaitSettled(kubeQueue);
                pendingBefore = QueueCost.pending(kubeQueue);
                long inUse = kubeQueue.heapAfterFullGc();
                Path histogram = kubeQueue.log().resolveSibling(name + ".histogram.txt");
                List<String> top = kubeQueue.classHistogram(histogram, HISTOGRAM_LINES);
                // the live heap: what the histogram's own full GC found live; the heap in use just after a full GC
                // also holds the dead objects SerialGC leaves in place (-XX:MarkSweepDeadRatio, 5 % of the old
                // generation: 6.4 MiB at 100,000 pending, issue 27)
                long live = KubeQueueProcess.histogramTotalBytes(histogram);
                heapBefore = live >= 0 ? live : inUse;
                out.printf("    kube-queue shows %,.0f pending after %.1f s more, settled (CPU < %.1f core) %s; heap after"
                        + " full GC %.1f MiB live (GC.class_histogram), %.1f MiB in use just after GC.run%n",
                        pendingBefore, shown, QueueCost.SETTLED_CORES,
                        settled < 0 ? "NOT within " + QueueCost.SETTLE_TIMEOUT : String.format("after %.1f s", settled),
                        heapBefore / (1024.0 * 1024), inUse / (1024.0 * 1024));
                out.printf("    its live heap by class (jcmd GC.class_histogram, all in %s):%n", histogram);
                top.forEach(line -> out.println("      " + line));
            }
            QueueCost.Start cycles0 = kubeQueue == null ? null : QueueCost.Start.read(kubeQueue);
            JobWriter creates = new JobWriter(createClient, CREATES_IN_FLIGHT);
            ProcStats.Machine machine0 = ProcStats.machine();
            ProcStats.Process self0 = ProcStats.self();
            long server0 = server.serverCpuNanos();
            WriteFigures writes0 = server.writes();
            ProcStats.Process kq0 = kubeQueue == null ? null : ProcStats.process(kubeQueue.pid());
            double refresh0 = kubeQueue == null ? Double.NaN : refreshSeconds(kubeQueue);

            String failure = null;
            long start;
            double submitLag;
            EstimatePoller poller = null;
            try (Submitter submitter = new Submitter(load, creates, observer::awaitFinished)) {
                if (kubeQueue != null && !options.estimatePoll().isZero()) {
                    List<String> groups = new java.util.ArrayList<>();
                    for (int leaf = 0; leaf < load.tree.leaves(); leaf++) {
                        groups.add(load.leafName(leaf));
                    }
                    poller = new EstimatePoller(kubeQueue.apiBase(), groups, options.estimatePoll(),
                            () -> submitter.done() && observer.snapshot().created() >= load.jobs.size(),
                            new io.fabric8.kubernetes.client.utils.KubernetesSerialization().asJson(load.tree()));
                }
                start = submitter.start();
                if (poller != null) {
                    poller.start();
                }
                long deadline = start + options.timeout().toNanos();
                long nextProgress = start + PROGRESS_NANOS;
                while (!observer.awaitAllFinished(Math.min(PROGRESS_NANOS, Math.max(1, deadline - System.nanoTime())))) {
                    long now = System.nanoTime();
                    if (now >= nextProgress) {
                        progress(now - start, submitter, observer.snapshot(), kubeQueue);
                        nextProgress += PROGRESS_NANOS;
                    }
                    if (kubeQueue != null && !kubeQueue.alive()) {
                        failure = "kube-queue exited during the run; its log: " + kubeQueue.log();
                        break;
                    }
                    if (now >= deadline) {
                        failure = "not every job finished within --timeout " + options.timeout().toSeconds() + " s";
                        break;
                    }
                }
                submitLag = submitter.maxLag() / 1e6;
            } finally {
                if (poller != null) {
                    poller.close();
                }
            }
            long end = System.nanoTime();
            if (referenceAdmitter != null) {
                // before its client closes (answers the write budget still holds would come back as errors)
                referenceAdmitter.close();
            }
            ProcStats.Machine machine1 = ProcStats.machine();
            ProcStats.Process self1 = ProcStats.self();
            long server1 = server.serverCpuNanos();
            Observer.Snapshot seen = observer.snapshot();
            progress(end - start, null, seen, kubeQueue);
            long window = end - start;

            RunResult.ProcessFigures process = null;
            QueueCost cost = null;
            EstimateFigures estimates = null;
            if (kubeQueue != null && kubeQueue.alive()) {
                ProcStats.Process kq1 = ProcStats.process(kubeQueue.pid());
                if (poller != null) {
                    double refresh1 = refreshSeconds(kubeQueue);
                    // a timer not published at the start has counted nothing yet (Micrometer registers it on first use)
                    estimates = EstimateFigures.of(load, poller.result(),
                            refresh1 - (Double.isNaN(refresh0) ? 0 : refresh0),
                            (kq1.cpuNanos() - kq0.cpuNanos()) / 1e9);
                }
                double admissionsMetric = kubeQueue.metric("kube_queue_admissions_total", "");
                RunResult.VersionFigures versions = new RunResult.VersionFigures(
                        kubeQueue.metric("kube_queue_admission_version_refusals_total", ""),
                        kubeQueue.metric("kube_queue_admission_patches_total", "outcome=\"outdated_unsent\""),
                        kubeQueue.metric("kube_queue_admissions_rebound_total", ""),
                        kubeQueue.metric("kube_queue_admission_fences_total", ""));
                long heap = kubeQueue.heapAfterFullGc();
                process = new RunResult.ProcessFigures(heap, kq1.hwmKiB(), kq1.rssKiB(),
                        (double) (kq1.cpuNanos() - kq0.cpuNanos()) / window, startSeconds, admissionsMetric,
                        kubeQueue.describe(shipped), versions);
                cost = QueueCost.read(kubeQueue, load.backlogJobs(), pendingBefore, heapBefore, cycles0);
            }
            if (failure == null && observer.backlogAdmitted() > 0) {
                failure = String.format("%,d backlog jobs were admitted, which cannot fit (first %s)",
                        observer.backlogAdmitted(), observer.firstBacklogAdmitted());
            }
            // after the process figures (its full GC takes a moment): writes kube-queue sends late are counted too
            WriteFigures writes = writes0 == null ? null : server.writes().since(writes0);
            long lastFinished = seen.finished() == 0 ? end : seen.lastFinished();
            double wall = (failure == null ? lastFinished - start : end - start) / 1e9;
            double admissionWindow = (seen.lastAdmitted() - start) / 1e9;
            return new RunResult(load.name, admitter, policy, load.jobs.size(), seen.admitted(), seen.finished(), failure,
                    wall, seen.admitted() == 0 || admissionWindow <= 0 ? 0 : seen.admitted() / admissionWindow,
                    RunResult.timeToAdmission(load), load.limits, seen.leafPeak(), seen.parentPeak(), seen.rootPeak(),
                    seen.excessEvents(), seen.excesses(), process, (double) (self1.cpuNanos() - self0.cpuNanos()) / window,
                    server0 < 0 ? Double.NaN : (double) (server1 - server0) / window, machine0.busyCoresUntil(machine1, window), creates.failures() + runner.failures(),
                    creates.firstFailure() != null ? creates.firstFailure() : runner.firstFailure(), submitLag,
                    referenceAdmitter == null ? 0 : referenceAdmitter.refused(), cost, writes, estimates);
        } finally {
            if (referenceAdmitter != null) {
                referenceAdmitter.close();
            }
            if (kubeQueue != null) {
                kubeQueue.close();
            }
        }
    }

    /** {@code kube_queue_estimate_refresh_seconds_sum} now, NaN when kube-queue does not publish it. */
    private static double refreshSeconds(KubeQueueProcess kubeQueue) {
        if (kubeQueue.publishes(EstimateFigures.REFRESH_CPU_SERIES)) { // the replays' CPU time, where measured
            return kubeQueue.metric(EstimateFigures.REFRESH_CPU_SERIES, "");
        }
        String sum = EstimateFigures.REFRESH_SERIES + "_sum";
        return kubeQueue.publishes(sum) ? kubeQueue.metric(sum, "") : Double.NaN;
    }

    private void progress(long elapsed, Submitter submitter, Observer.Snapshot s, KubeQueueProcess kubeQueue) {
        String kq = "";
        if (kubeQueue != null && kubeQueue.alive()) {
            ProcStats.Process p = ProcStats.process(kubeQueue.pid());
            kq = String.format("; kube-queue RSS %d MiB", p.rssKiB() / 1024);
        }
        out.printf("    %6.1f s: %ssubmitted/seen %,d, admitted %,d, finished %,d%s%n", elapsed / 1e9,
                submitter == null ? "" : String.format("sent %,d, ", submitter.sent()), s.created(), s.admitted(),
                s.finished(), kq);
    }

    private static RunResult failed(Load load, String admitter, Policy policy, String why) {
        return new RunResult(load.name, admitter, policy, load.jobs.size(), 0, 0, why, 0, 0,
                RunResult.timeToAdmission(load), load.limits, new long[load.tree.leaves()], new long[load.tree.parents()],
                0, 0, List.of(), null, 0, Double.NaN, 0, 0, null, 0, 0, null, null, null);
    }

    /**
     * The jobs a load has before its run (the backlog load's holder and backlog): created before kube-queue starts,
     * all seen by the harness's watch, and the job runner's {@code Suspended} conditions on them written, so the
     * measured window shares the API server with nothing of theirs. Null when done (or none), else why not.
     */
    private String createBackground(Load load, KubernetesClient client, Observer observer, JobRunner runner)
            throws InterruptedException {
        if (load.background.isEmpty()) {
            return null;
        }
        long t = System.nanoTime();
        JobWriter writer = new JobWriter(client, CREATES_IN_FLIGHT);
        load.background.forEach(j -> writer.create(load.job(j)));
        if (!observer.awaitBackgroundCreated(options.timeout().toNanos())
                || !runner.awaitQuiet(options.timeout().toNanos())) {
            return String.format("the %,d jobs before the run were not created within %s (first failure: %s)",
                    load.background.size(), options.timeout(), writer.firstFailure());
        }
        out.printf("    created %,d jobs before the run in %.1f s (%,d failed)%n", load.background.size(),
                (System.nanoTime() - t) / 1e9, writer.failures());
        return null;
    }
}
