package io.kubequeue.bench;

import java.time.Duration;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The raw patch rate: how many admissions per second the API server takes at N patches in flight with no logic at
 * all. On a fresh server it creates the load's Jobs (suspended), waits until the harness's watch has seen them all,
 * then sends one {@code test}+{@code replace} JSON Patch of {@code /spec/suspend} per Job, N at a time, and measures
 * from the first patch sent to the last Job seen unsuspended by the watch (the same clock as the admissions of a
 * run). No job runner: nothing else writes meanwhile. On the embedded server its patches and creates take their
 * slots of the write budget as every other client's do ({@link ApiServer}); its figure is only meaningful beside the
 * budget it was taken under ({@link Result#budget}).
 */
final class PatchRateProbe {

    /**
     * The probe's figures.
     *
     * @param jobs     Jobs patched
     * @param inFlight patches outstanding at once at most
     * @param seconds  first patch sent to last Job seen unsuspended
     * @param failures patches refused or lost
     * @param error    why the probe did not finish, or null
     * @param createSeconds first create sent to last Job seen, with {@value BenchRun#CREATES_IN_FLIGHT} creates in
     *                 flight: with a latency-bound server this is jobs ÷ (in flight ÷ latency); anything slower is the
     *                 server's own cost per request
     * @param harnessCores the harness's process (the embedded server above all) CPU during the patches, average cores
     * @param serverCores  the embedded server's event loop alone during the patches, average cores (NaN on a cluster)
     * @param createServerCores the same during the creates
     * @param writeRate the write budget it was taken under, writes a second: 0 none, -1 a cluster's own
     */
    record Result(int jobs, int inFlight, double seconds, long failures, String error, double createSeconds,
                  double harnessCores, double serverCores, double createServerCores, int writeRate) {

        /** The budget in words: "under a write budget of 500 writes/s", "with no write budget", … */
        String budget() {
            return writeRate > 0 ? "under a write budget of " + writeRate + " writes/s (all clients)"
                    : writeRate == 0 ? "with no write budget" : "under the cluster's own write budget";
        }

        /** Patches per second. */
        double rate() {
            return seconds > 0 ? jobs / seconds : 0;
        }
    }

    private PatchRateProbe() {
    }

    /** CPU nanoseconds between two readings ÷ wall nanoseconds; NaN without readings (a cluster). */
    private static double cores(long before, long after, double wallNanos) {
        return before < 0 || after < 0 ? Double.NaN : (after - before) / wallNanos;
    }

    static Result run(ApiServer server, Load load, int inFlight, Duration timeout) throws InterruptedException {
        server.clear(Load.namespaces(), timeout);
        load.setUp(server.client());
        try (Observer observer = new Observer(server.client(), load); KubernetesClient createClient = server.newClient();
             KubernetesClient patchClient = server.newClient(WriteCounts.PROBE)) {
            observer.start();
            JobWriter creates = new JobWriter(createClient, BenchRun.CREATES_IN_FLIGHT);
            long createStart = System.nanoTime();
            long serverAtCreate = server.serverCpuNanos();
            load.jobs.forEach(j -> creates.create(load.job(j)));
            if (!observer.awaitAllCreated(timeout.toNanos())) {
                return new Result(load.jobs.size(), inFlight, 0, creates.failures(),
                        "not every Job was created within " + timeout + " (first failure: " + creates.firstFailure() + ")",
                        0, 0, Double.NaN, Double.NaN, server.writeRate());
            }
            double createSeconds = (System.nanoTime() - createStart) / 1e9;
            double createServerCores = cores(serverAtCreate, server.serverCpuNanos(), createSeconds * 1e9);
            JobWriter patches = new JobWriter(patchClient, inFlight);
            ProcStats.Process self0 = ProcStats.self();
            long server0 = server.serverCpuNanos();
            long start = System.nanoTime();
            load.jobs.forEach(j -> patches.unsuspend(j.namespace, j.name));
            if (!observer.awaitAllAdmitted(timeout.toNanos())) {
                return new Result(load.jobs.size(), inFlight, 0, patches.failures(),
                        "not every patch was seen within " + timeout + " (first failure: " + patches.firstFailure() + ")",
                        createSeconds, 0, Double.NaN, createServerCores, server.writeRate());
            }
            long end = observer.snapshot().lastAdmitted();
            long wall = System.nanoTime() - start;
            double cores = (double) (ProcStats.self().cpuNanos() - self0.cpuNanos()) / wall;
            return new Result(load.jobs.size(), inFlight, (end - start) / 1e9, patches.failures(), null, createSeconds,
                    cores, cores(server0, server.serverCpuNanos(), wall), createServerCores, server.writeRate());
        }
    }
}
