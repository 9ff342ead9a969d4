package io.kubequeue.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.FinishedRun;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;


/**
 * Prints what the scheduler core costs at the scale kube-queue is designed for: 15,000 jobs in 30 quota
 * groups under one root. A benchmark command, not a test: it asserts nothing and prints figures.
 *
 * <pre>./mvnw -q test-compile exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.kubequeue.scheduler.SchedulerBenchmark</pre>
 *
 * <p>With the start-time estimates' cost (issue 30), for one policy:
 * <pre>./mvnw -q test-compile exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.kubequeue.scheduler.SchedulerBenchmark -Dexec.args="RETRY_ON_RELEASE estimates"</pre>
 */
public final class SchedulerBenchmark {

    private static final int GROUPS = 30;
    private static final int JOBS = 15_000;

    private SchedulerBenchmark() {
    }

    /**
     * @param args the policies to run (names of {@link SchedulingPolicy}; all when none), and {@code estimates} to
     *             time the start-time estimates too, in each policy's last round (issue 30: a replay of the whole
     *             state, which takes minutes under some policies, so asked for by name)
     */
    public static void main(String[] args) {
        boolean estimates = List.of(args).contains("estimates");
        List<SchedulingPolicy> policies = List.of(args).stream().filter(a -> !a.equals("estimates"))
                .map(SchedulingPolicy::valueOf).toList();
        for (SchedulingPolicy policy : policies.isEmpty() ? List.of(SchedulingPolicy.values()) : policies) {
            for (int round = 1; round <= 3; round++) {
                System.out.printf("%s, round %d%n", policy, round);
                run(new Random(round), policy, estimates && round == 3);
            }
        }
    }

    /**
     * The start-time estimates on the 15,000-job state (issue 30), with a warmed history: each group has finished
     * runs of every request shape its jobs have (8 runs of each, 1 to 10 minutes), so every pending job can be
     * estimated. Times one {@code refreshEstimates()} (two copies and two replays) and one
     * {@code whatIf(sameTree, null)}, each printed as soon as it is done.
     */
    private static void estimates(Scheduler scheduler, QuotaTree tree, List<JobObservation> jobs, Instant t0,
                                  Random random) {
        int learnt = 0;
        Instant runsEnd = t0.minusSeconds(60);
        for (int g = 0; g < GROUPS; g++) {
            for (int cpu = 1; cpu <= 8; cpu++) {
                for (int mem = 1; mem <= 4; mem++) {
                    for (int r = 0; r < 8; r++) {
                        Instant admitted = runsEnd.minusSeconds(60 + random.nextInt(540));
                        scheduler.learn(new FinishedRun(new JobKey("Job", "ns-" + g, "done-" + learnt), "team-" + g,
                                Resources.of("cpu", 500L * cpu, "memory", (1L << 30) * mem), admitted, runsEnd));
                        learnt++;
                    }
                }
            }
        }
        long refreshStart = System.nanoTime();
        scheduler.refreshEstimates();
        long refreshTook = System.nanoTime() - refreshStart;
        Map<Estimate.State, Integer> states = new EnumMap<>(Estimate.State.class);
        for (JobObservation job : jobs) {
            scheduler.estimate(job.key()).ifPresent(e -> states.merge(e.state(), 1, Integer::sum));
        }
        System.out.printf("  start-time estimates, history of %,d runs (%,d held): refreshEstimates() %,.1f ms;"
                + " estimates %s%n", learnt, scheduler.history().runs(), refreshTook / 1e6, states);
        System.out.flush();
        long whatIfStart = System.nanoTime();
        int whatIfJobs = scheduler.whatIf(tree, null).jobs().size();
        long whatIfTook = System.nanoTime() - whatIfStart;
        System.out.printf("  whatIf(same tree, null): %,.1f ms over %,d pending jobs%n", whatIfTook / 1e6, whatIfJobs);
        System.out.flush();
    }

    private static void run(Random random, SchedulingPolicy policy, boolean estimates) {
        System.gc();
        long heapBefore = usedHeap();
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        Scheduler scheduler = new Scheduler(new SchedulerSettings(policy, Duration.ofSeconds(1), Duration.ofSeconds(20)),
                clock);
        List<QuotaNode> nodes = new ArrayList<>();
        nodes.add(new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 1_000_000L, "memory", 4L << 40)));
        for (int g = 0; g < GROUPS; g++) {
            nodes.add(new QuotaNode("team-" + g, "root", List.of("ns-" + g), null,
                    Resources.of("cpu", 40_000L, "memory", 160L << 30)));
        }
        QuotaTree tree = new QuotaTree(nodes);
        scheduler.replaceTree(tree);

        List<JobObservation> jobs = new ArrayList<>(JOBS);
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < JOBS; i++) {
            int g = random.nextInt(GROUPS);
            jobs.add(new JobObservation(new JobKey("Job", "ns-" + g, "job-" + i), "uid-" + i, JobObservation.Phase.QUEUED,
                    Resources.of("cpu", 500L * (1 + random.nextInt(8)), "memory", (1L << 30) * (1 + random.nextInt(4))),
                    JobPriority.of(random.nextInt(3)), t0.plusMillis(i), null, true, null));
        }
        long start = System.nanoTime();
        jobs.forEach(scheduler::observe);
        long submitted = System.nanoTime();
        List<Admission> first = scheduler.schedule().admissions();
        long firstCycle = System.nanoTime();
        System.gc();
        long heapAfter = usedHeap();

        // a copy of the whole core (what a simulation of the queue ahead starts from), five times: the last counts
        long copyTook = 0;
        int copied = 0;
        for (int i = 0; i < 5; i++) {
            long copyStart = System.nanoTime();
            copied = scheduler.copy(clock).jobs().size();
            copyTook = System.nanoTime() - copyStart;
        }

        if (estimates) {
            estimates(scheduler, tree, jobs, t0, random);
        }

        // steady state: one job finishes, the next cycle admits what now fits (under retry-on-release, every
        // backed-off job of the tree is tried again: the policy's own cost)
        int cycles = 2_000;
        long steadyStart = System.nanoTime();
        int admittedInSteadyState = 0;
        for (int i = 0; i < cycles && i < first.size(); i++) {
            scheduler.observe(JobObservation.finished(first.get(i).key()));
            admittedInSteadyState += scheduler.schedule().admissions().size();
        }
        long steadyEnd = System.nanoTime();

        // worst case for the default policy: every backoff expires at once and each job is tried again
        clock.advance(Duration.ofSeconds(21));
        long retryStart = System.nanoTime();
        int retried = scheduler.schedule().admissions().size();
        long retryEnd = System.nanoTime();

        System.out.printf("  observe %,d queued jobs: %,.1f ms (%,.0f ns/job)%n", JOBS, (submitted - start) / 1e6,
                (submitted - start) / (double) JOBS);
        System.out.printf("  first cycle over all %d groups: %,.1f ms, %,d admitted%n", GROUPS,
                (firstCycle - submitted) / 1e6, first.size());
        System.out.printf("  copy of the core after it (Scheduler.copy, %,d jobs, fifth of five): %,.1f ms%n", copied,
                copyTook / 1e6);
        System.out.printf("  %,d release+cycle steps: %,.1f µs each, %,d admitted%n", Math.min(cycles, first.size()),
                (steadyEnd - steadyStart) / 1e3 / Math.min(cycles, first.size()), admittedInSteadyState);
        if (policy == SchedulingPolicy.RETRY_ON_RELEASE) {
            return; // nothing is left in backoff to expire
        }
        System.out.printf("  cycle after every backoff expired at once (%,d jobs tried): %,.1f ms, %,d admitted%n",
                JOBS - first.size(), (retryEnd - retryStart) / 1e6, retried);
        System.out.printf("  heap held by the scheduler with %,d jobs: ~%,d KiB (%,d bytes/job)%n", JOBS,
                (heapAfter - heapBefore) / 1024, (heapAfter - heapBefore) / JOBS);
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }
}
