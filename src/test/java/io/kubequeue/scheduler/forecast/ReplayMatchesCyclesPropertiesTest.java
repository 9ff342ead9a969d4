package io.kubequeue.scheduler.forecast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import io.kubequeue.scheduler.MutableClock;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.RunTimeHints;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * A replay predicts exactly what the real cycles then do when every run time is as predicted (issue 30, "Tests"):
 * the same jobs admitted at the same instants, per policy, with reclaim on and off. Trees declare cpu, memory and GPUs
 * in min and max (some groups over their min in one resource and under it in another once jobs run); jobs ask for
 * some of them, with priorities and run times given by {@code kube-queue/expected-duration}. The real scheduler is
 * driven as the admission loop drives it (a cycle at every job end and every retry, writes applied at once) up to a
 * random step, the replay is taken there, and the real run goes on to its end.
 */
class ReplayMatchesCyclesPropertiesTest {

    static final Instant T0 = Instant.parse("2026-12-05T08:00:00Z");

    record JobSpec(String ns, long cpu, long memory, long gpu, int priority, int seconds, boolean stoppable,
                   boolean preemptible) {
    }

    record Case(SchedulingPolicy policy, boolean reclaim, List<long[]> groups, List<JobSpec> jobs, int copyAfter) {
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<long[]> group = Combinators.combine(Arbitraries.longs().between(0, 4), Arbitraries.longs()
                        .between(2, 8), Arbitraries.longs().between(0, 2), Arbitraries.longs().between(1, 3))
                .as((minCpu, maxCpu, minGpu, maxGpu) -> new long[]{minCpu * 1000, Math.max(minCpu, maxCpu) * 1000,
                        minGpu, Math.max(minGpu, maxGpu)});
        Arbitrary<JobSpec> job = Combinators.combine(Arbitraries.of("a", "b", "c"), Arbitraries.longs().between(1, 5),
                Arbitraries.longs().between(0, 4), Arbitraries.longs().between(0, 2), Arbitraries.integers()
                        .between(0, 2), Arbitraries.integers().between(1, 90), Arbitraries.of(true, false),
                Arbitraries.of(true, true, false)).as((ns, cpu, mem, gpu, prio, secs, stoppable, preemptible) ->
                new JobSpec(ns, cpu * 1000, mem << 30, gpu, prio, secs, stoppable, preemptible));
        return Combinators.combine(Arbitraries.of(SchedulingPolicy.values()), Arbitraries.of(true, false),
                group.list().ofSize(3), job.list().ofMinSize(1).ofMaxSize(14), Arbitraries.integers().between(0, 12))
                .as(Case::new);
    }

    /** Root: 8 cpu, 12 GiB, 4 GPUs; three teams with min and max in cpu and GPUs, max memory 8 GiB. */
    static QuotaTree tree(List<long[]> groups) {
        List<QuotaNode> nodes = new ArrayList<>();
        nodes.add(new QuotaNode("root", null, List.of(), Resources.of("cpu", 8000L, "memory", 12L << 30,
                "nvidia.com/gpu", 4L), Resources.of("cpu", 8000L, "memory", 12L << 30, "nvidia.com/gpu", 4L)));
        String[] ns = {"a", "b", "c"};
        for (int i = 0; i < 3; i++) {
            long[] g = groups.get(i);
            nodes.add(new QuotaNode("root.team-" + ns[i], "root", List.of(ns[i]),
                    Resources.of("cpu", g[0], "nvidia.com/gpu", g[2], "memory", 2L << 30),
                    Resources.of("cpu", g[1], "nvidia.com/gpu", g[3], "memory", 8L << 30)));
        }
        return new QuotaTree(nodes);
    }

    /** The cluster beside a real scheduler, driven as the admission loop drives it. */
    static final class Cluster {
        final MutableClock clock = new MutableClock(T0);
        final Scheduler scheduler;
        final Map<JobKey, JobObservation> jobs = new HashMap<>();
        final Map<JobKey, Instant> ends = new HashMap<>();
        final Map<JobKey, Instant> admittedAt = new TreeMap<>();
        long version = 1;

        Cluster(SchedulerSettings settings, QuotaTree tree) {
            scheduler = new Scheduler(settings, clock);
            scheduler.watchPods(key -> false);
            scheduler.replaceTree(tree);
        }

        void submit(int i, JobSpec spec) {
            Resources request = Resources.of("cpu", spec.cpu());
            request = spec.memory() > 0 ? request.with("memory", spec.memory()) : request;
            request = spec.gpu() > 0 ? request.with("nvidia.com/gpu", spec.gpu()) : request;
            JobObservation o = new JobObservation(new JobKey("Job", spec.ns(), "job-" + i), "uid-" + i,
                    JobObservation.Phase.QUEUED, request, JobPriority.of(spec.priority()), T0.plusSeconds(i), null,
                    spec.preemptible(), null, Long.toString(version++), spec.stoppable(),
                    io.kubequeue.scheduler.model.EvictionMarks.NONE)
                    .withRunTime(new RunTimeHints(Duration.ofSeconds(spec.seconds()), null));
            jobs.put(o.key(), o);
            scheduler.observe(o);
        }

        /** Cycles until one decides nothing: each cycle's writes are seen at once and trigger the next. */
        void cycle() {
            for (int i = 0; i < 1000 && !cycleOnce().isEmpty(); i++) {
                // again
            }
        }

        CycleResult cycleOnce() {
            CycleResult result = scheduler.schedule();
            Instant now = clock.instant();
            for (Admission a : result.admissions()) {
                JobObservation held = jobs.get(a.key());
                String v = Long.toString(version++);
                JobObservation running = new JobObservation(held.key(), held.uid(), JobObservation.Phase.ADMITTED,
                        held.request(), held.priority(), held.createdAt(), null, held.preemptible(), a.record(), v,
                        held.stoppable(), held.evictions(), JobObservation.Pods.NONE, a.request(), held.runTime());
                jobs.put(a.key(), running);
                scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied(v));
                scheduler.observe(running);
                scheduler.podRan(a.key());
                Instant recorded = Instant.parse(a.record().admittedAt()); // the job runs from its record's time
                admittedAt.put(a.key(), recorded);
                ends.put(a.key(), recorded.plus(held.runTime().expected()));
            }
            for (Eviction e : result.evictions()) {
                JobObservation held = jobs.get(e.key());
                String v = Long.toString(version++);
                JobObservation suspended = new JobObservation(held.key(), held.uid(), JobObservation.Phase.QUEUED,
                        held.request(), held.priority(), held.createdAt(), null, held.preemptible(), held.record(), v,
                        held.stoppable(), e.writtenAt(now).history(), JobObservation.Pods.NONE,
                        held.admittedRequest(), held.runTime());
                jobs.put(e.key(), suspended);
                scheduler.settleEviction(e.key(), e.record(), new EvictionOutcome.Applied(v, now));
                scheduler.observe(suspended);
                admittedAt.remove(e.key());
                ends.remove(e.key());
            }
            return result;
        }

        /** To the next event, ends what ends then, and runs a cycle; false when nothing is left to happen. */
        boolean step() {
            Optional<Instant> retry = scheduler.nextRetry();
            Instant next = ends.values().stream().min(Comparator.naturalOrder()).orElse(null);
            if (retry.isPresent() && (next == null || retry.get().isBefore(next))) {
                next = retry.get();
            }
            if (next == null) {
                return false;
            }
            if (!next.isAfter(clock.instant())) {
                next = clock.instant().plusMillis(1);
            }
            clock.advance(Duration.between(clock.instant(), next));
            Instant now = next;
            ends.entrySet().stream().filter(e -> !e.getValue().isAfter(now))
                    .sorted(Map.Entry.<JobKey, Instant>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                    .map(Map.Entry::getKey).toList()
                    .forEach(key -> {
                        ends.remove(key);
                        scheduler.observe(JobObservation.finished(key, jobs.get(key).uid()));
                    });
            cycle();
            return true;
        }
    }

    static SchedulerSettings settings(SchedulingPolicy policy, boolean reclaim) {
        SchedulerSettings s = new SchedulerSettings(policy, Duration.ofSeconds(1), Duration.ofSeconds(20));
        return reclaim ? s.withReclaim(3) : s;
    }

    @Property(tries = 300)
    void theReplayAdmitsWhatTheCyclesThenAdmitAtTheSameInstants(@ForAll("cases") Case c) {
        Cluster cluster = new Cluster(settings(c.policy(), c.reclaim()), tree(c.groups()));
        for (int i = 0; i < c.jobs().size(); i++) {
            cluster.submit(i, c.jobs().get(i));
        }
        cluster.cycle();
        for (int i = 0; i < c.copyAfter() && cluster.step(); i++) {
            // the copy is taken wherever the run stands: jobs running, backed off, evicted, reclaiming
        }
        Replay.Result replay = Replay.run(cluster.scheduler.simulation(cluster.scheduler.settings()),
                RunTimeHistory.Snapshot.empty(), Replay.Quantile.TYPICAL, Replay.Limits.EXACT);
        Instant copiedAt = cluster.clock.instant();
        cluster.admittedAt.clear();
        int steps = 0;
        while (cluster.step()) {
            assertTrue(++steps < 100_000, "the real run ends");
        }
        Map<JobKey, Instant> predicted = new TreeMap<>(replay.starts());
        assertEquals(cluster.admittedAt, predicted, "admissions after " + copiedAt);
        assertEquals(Replay.Stop.SETTLED, replay.stop());
        Statistics.label("admissions predicted").collect(Math.min(predicted.size(), 5));
        Statistics.label("reclaim").collect(c.reclaim());
    }
}
