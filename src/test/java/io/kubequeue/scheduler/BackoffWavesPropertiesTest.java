package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * Issue 27 item 4: backed-off jobs that wait alike wait as one wave ({@code BackoffWave}), and that changes no
 * decision. Two schedulers are driven with the same events, one with waves and one where every job waits alone (the
 * code as it was), under every policy, reclaim on or off, with trees whose min and max declare cpu, memory and GPUs
 * (and a deeper path), jobs that use some of them, bursts of alike jobs (so that waves form), admissions applied or
 * refused, finishes, re-suspensions, deletes, edits of priority and request, evictions for reclaims, tree changes,
 * restarts and time. After every step both say the same: every cycle's admissions in the same order, its holds,
 * tries, first failures, evictions and reclaims; every job's state, tries and retry time; each group's pending jobs
 * with their positions and reasons; the next retry. And a cycle with waves never touches more entries than without.
 */
class BackoffWavesPropertiesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String GPU = "nvidia.com/gpu";
    private static final long GI = 1L << 30;

    /** Limits of one node: null is not declared. cpu in millicores, memory in GiB, GPUs in units. */
    record Limits(Long cpu, Long memoryGi, Long gpu) {
        Resources resources() {
            Map<String, Long> m = new HashMap<>();
            if (cpu != null) {
                m.put(Resources.CPU, cpu);
            }
            if (memoryGi != null) {
                m.put(Resources.MEMORY, memoryGi * GI);
            }
            if (gpu != null) {
                m.put(GPU, gpu);
            }
            return Resources.of(m);
        }

        /** This min, kept within {@code max} where both declare a resource. */
        Limits within(Limits max) {
            return new Limits(cap(cpu, max.cpu), cap(memoryGi, max.memoryGi), cap(gpu, max.gpu));
        }

        private static Long cap(Long v, Long limit) {
            return v == null || limit == null ? v : Long.valueOf(Math.min(v, limit));
        }
    }

    /** A tree: root, g1, g2, g3 (under root or under g1), each group ns-i's own. */
    record TreeSpec(List<Limits> mins, List<Limits> maxes, boolean deep) {
        QuotaTree build() {
            List<QuotaNode> nodes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String parent = i == 0 ? null : i == 3 && deep ? "g1" : "g0";
                nodes.add(new QuotaNode("g" + i, parent, i == 0 ? List.of() : List.of("ns" + i),
                        mins.get(i).within(maxes.get(i)).resources(), maxes.get(i).resources()));
            }
            return new QuotaTree(nodes);
        }
    }

    /** A job: namespace 1..3, cpu millicores, memory GiB, GPUs, priority, preemptible (and stoppable). */
    record JobSpec(int namespace, long cpu, long memoryGi, long gpu, int priority, boolean preemptible) {
        Resources request() {
            Map<String, Long> m = new HashMap<>();
            m.put(Resources.CPU, cpu);
            if (memoryGi > 0) {
                m.put(Resources.MEMORY, memoryGi * GI);
            }
            if (gpu > 0) {
                m.put(GPU, gpu);
            }
            return Resources.of(m);
        }
    }

    enum OpType { SUBMIT, BURST, CYCLE, SETTLE, REFUSE, FINISH, RESUSPEND, DELETE, UPDATE, EVICT, TREE, RESTART, ADVANCE }

    record Op(OpType type, int a, int b) {
    }

    record Scenario(SchedulingPolicy policy, boolean reclaim, Duration maxBackoff, List<TreeSpec> trees,
                    List<JobSpec> jobs, List<Op> ops) {
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<Long> cpu = Arbitraries.integers().between(-1, 8).map(i -> i < 0 ? null : i * 1000L);
        Arbitrary<Long> mem = Arbitraries.integers().between(-1, 16).map(i -> i < 0 ? null : (long) i);
        Arbitrary<Long> gpu = Arbitraries.integers().between(-2, 4).map(i -> i < 0 ? null : (long) i);
        Arbitrary<Limits> limits = Combinators.combine(cpu, mem, gpu).as(Limits::new);
        Arbitrary<TreeSpec> tree = Combinators.combine(limits.list().ofSize(4), limits.list().ofSize(4),
                Arbitraries.of(true, false)).as(TreeSpec::new);
        Arbitrary<JobSpec> job = Combinators.combine(Arbitraries.integers().between(1, 3),
                Arbitraries.of(500L, 1000L, 2000L, 3000L), Arbitraries.of(0L, 1L, 4L), Arbitraries.of(0L, 0L, 1L),
                Arbitraries.of(0, 0, 5), Arbitraries.of(true, true, false)).as(JobSpec::new);
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(4, Arbitraries.just(OpType.SUBMIT)),
                        net.jqwik.api.Tuple.of(3, Arbitraries.just(OpType.BURST)),
                        net.jqwik.api.Tuple.of(8, Arbitraries.just(OpType.CYCLE)),
                        net.jqwik.api.Tuple.of(4, Arbitraries.just(OpType.SETTLE)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.REFUSE)),
                        net.jqwik.api.Tuple.of(4, Arbitraries.just(OpType.FINISH)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.RESUSPEND)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.DELETE)),
                        net.jqwik.api.Tuple.of(2, Arbitraries.just(OpType.UPDATE)),
                        net.jqwik.api.Tuple.of(2, Arbitraries.just(OpType.EVICT)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.TREE)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.RESTART)),
                        net.jqwik.api.Tuple.of(6, Arbitraries.just(OpType.ADVANCE))),
                Arbitraries.integers().between(0, 1000), Arbitraries.integers().between(0, 1000)).as(Op::new);
        return Combinators.combine(Arbitraries.of(SchedulingPolicy.class), Arbitraries.of(true, false),
                Arbitraries.of(Duration.ofSeconds(1), Duration.ofSeconds(4), Duration.ofSeconds(20)),
                tree.list().ofMinSize(1).ofMaxSize(3), job.list().ofMinSize(2).ofMaxSize(6),
                op.list().ofMinSize(20).ofMaxSize(150)).as(Scenario::new);
    }

    /** A job as the cluster holds it. */
    static final class ClusterJob {
        final JobKey key;
        JobSpec spec;
        final Instant created;
        int version = 1;
        String phase = "suspended";
        AdmissionRecord record;
        EvictionMarks marks = EvictionMarks.NONE;

        ClusterJob(JobKey key, JobSpec spec, Instant created) {
            this.key = key;
            this.spec = spec;
            this.created = created;
        }

        JobObservation observation() {
            if (phase.equals("finished")) {
                return JobObservation.finished(key, key.name());
            }
            JobObservation.Phase p = phase.equals("suspended") ? JobObservation.Phase.QUEUED
                    : JobObservation.Phase.ADMITTED;
            return new JobObservation(key, key.name(), p, spec.request(), JobPriority.of(spec.priority()), created,
                    null, spec.preemptible(), record, Integer.toString(version), true,
                    p == JobObservation.Phase.QUEUED ? marks : EvictionMarks.NONE);
        }
    }

    /**
     * The scheduler with waves ({@code on}) and the one without, driven alike. Or ({@code copyAt} ≥ 0) two alike
     * with waves until step {@code copyAt}, where {@code off} becomes a {@code Scheduler.copy} of {@code on}, and the
     * copy is driven alike from there ({@code SchedulerCopyPropertiesTest}).
     */
    static final class Twins {
        final Scenario scenario;
        final int copyAt;
        int step;
        final MutableClock clock = new MutableClock(T0);
        final Map<JobKey, ClusterJob> cluster = new LinkedHashMap<>();
        final List<Admission> inFlight = new ArrayList<>();
        final List<Eviction> unsentEvictions = new ArrayList<>();
        final List<String> log = new ArrayList<>();
        Scheduler on;
        Scheduler off;
        QuotaTree tree;
        int nextId;
        long visitsOn;
        long visitsOff;

        Twins(Scenario scenario) {
            this(scenario, -1);
        }

        Twins(Scenario scenario, int copyAt) {
            this.scenario = scenario;
            this.copyAt = copyAt;
            this.tree = scenario.trees().get(0).build();
            restart();
        }

        SchedulerSettings settings() {
            SchedulerSettings s = new SchedulerSettings(scenario.policy(), Duration.ofSeconds(1),
                    scenario.maxBackoff());
            return scenario.reclaim() ? s.withReclaim(3) : s;
        }

        void restart() {
            on = new Scheduler(settings(), clock);
            off = new Scheduler(settings(), clock);
            if (copyAt < 0) {
                off.waitInWaves(false);
            }
            inFlight.clear();
            unsentEvictions.clear();
            both(s -> {
                s.replaceTree(tree);
                return null;
            });
            for (ClusterJob job : cluster.values()) {
                observe(job);
            }
        }

        /** Calls both and checks they answer alike. */
        <T> T both(Function<Scheduler, T> call) {
            T a = call.apply(on);
            T b = call.apply(off);
            assertEquals(b, a, () -> "with waves and without, after " + log);
            return a;
        }

        void observe(ClusterJob job) {
            JobObservation o = job.observation();
            both(s -> s.observe(o));
        }

        ClusterJob pick(String phase, int arg) {
            List<ClusterJob> in = cluster.values().stream().filter(j -> j.phase.equals(phase)).toList();
            return in.isEmpty() ? null : in.get(arg % in.size());
        }

        void submit(JobSpec spec) {
            int id = nextId++;
            ClusterJob job = new ClusterJob(new JobKey("Job", "ns" + spec.namespace(), "j" + id), spec,
                    T0.plusSeconds(id / 3));
            cluster.put(job.key, job);
            observe(job);
        }

        void apply(Op op) {
            if (step++ == copyAt) {
                off = on.copy(clock);
                log.add("copy");
                check(); // the copy answers as the original at once
            }
            log.add(op.toString());
            List<JobSpec> jobs = scenario.jobs();
            switch (op.type()) {
                case SUBMIT -> submit(jobs.get(op.a() % jobs.size()));
                case BURST -> {
                    JobSpec spec = jobs.get(op.a() % jobs.size());
                    for (int i = 0; i < 2 + op.b() % 12; i++) {
                        submit(spec);
                    }
                }
                case CYCLE -> cycle();
                case SETTLE, REFUSE -> {
                    if (!inFlight.isEmpty()) {
                        Admission a = inFlight.remove(op.a() % inFlight.size());
                        ClusterJob job = cluster.get(a.key());
                        if (op.type() == OpType.SETTLE && job != null && job.phase.equals("suspended")) {
                            job.phase = "running";
                            job.record = a.record();
                            job.version++;
                            both(s -> s.settle(a.key(), a.record(), new AdmissionOutcome.Applied(
                                    Integer.toString(job.version))));
                            if (op.b() % 2 == 0) {
                                observe(job);
                            }
                        } else {
                            both(s -> s.settle(a.key(), a.record(), AdmissionOutcome.REFUSED));
                        }
                    }
                }
                case FINISH -> {
                    ClusterJob job = pick("running", op.a());
                    if (job != null) {
                        job.phase = "finished";
                        observe(job);
                    }
                }
                case RESUSPEND -> {
                    ClusterJob job = pick("running", op.a());
                    if (job != null) {
                        job.phase = "suspended";
                        job.version++;
                        observe(job);
                    }
                }
                case DELETE -> {
                    ClusterJob job = pick("suspended", op.a());
                    if (job != null) {
                        job.phase = "finished";
                        observe(job);
                    }
                }
                case UPDATE -> {
                    ClusterJob job = pick("suspended", op.a());
                    if (job != null) {
                        JobSpec s = job.spec;
                        job.spec = op.b() % 2 == 0
                                ? new JobSpec(s.namespace(), s.cpu(), s.memoryGi(), s.gpu(), s.priority() + 1,
                                        s.preemptible())
                                : jobs.get(op.b() % jobs.size());
                        job.version++;
                        observe(job);
                    }
                }
                case EVICT -> {
                    if (!unsentEvictions.isEmpty()) {
                        Eviction e = unsentEvictions.remove(op.a() % unsentEvictions.size());
                        ClusterJob job = cluster.get(e.key());
                        if (job != null && job.phase.equals("running") && e.record().equals(job.record)) {
                            job.phase = "suspended";
                            job.marks = e.history();
                            job.version++;
                            both(s -> {
                                s.settleEviction(e.key(), e.record(),
                                        new EvictionOutcome.Applied(Integer.toString(job.version)));
                                return null;
                            });
                            observe(job);
                        } else {
                            both(s -> {
                                s.settleEviction(e.key(), e.record(), EvictionOutcome.REFUSED);
                                return null;
                            });
                        }
                    }
                }
                case TREE -> {
                    tree = scenario.trees().get(op.a() % scenario.trees().size()).build();
                    QuotaTree t = tree;
                    both(s -> {
                        s.replaceTree(t);
                        return null;
                    });
                }
                case RESTART -> restart();
                case ADVANCE -> clock.advance(Duration.ofMillis(List.of(100, 500, 1000, 1000, 2000, 5000, 21_000)
                        .get(op.a() % 7)));
            }
            check();
        }

        void cycle() {
            CycleResult a = on.schedule();
            CycleResult b = off.schedule();
            assertNull(a.failure(), () -> "failure with waves after " + log);
            assertNull(b.failure(), () -> "failure without waves after " + log);
            assertEquals(b.admissions(), a.admissions(), () -> "admissions, in order, after " + log);
            assertEquals(b.holds(), a.holds(), () -> "holds after " + log);
            assertEquals(b.tried(), a.tried(), () -> "tried after " + log);
            assertEquals(b.notFitting(), a.notFitting(), () -> "not fitting after " + log);
            assertEquals(b.heldInCycle(), a.heldInCycle(), () -> "held after " + log);
            assertEquals(b.unschedulable(), a.unschedulable(), () -> "first failures after " + log);
            assertEquals(b.evictions(), a.evictions(), () -> "evictions after " + log);
            assertEquals(b.reclaims(), a.reclaims(), () -> "reclaims after " + log);
            int visitsWith = on.lastCycleVisits();
            int visitsWithout = off.lastCycleVisits();
            assertTrue(copyAt >= 0 || visitsWith <= visitsWithout, () -> "a cycle with waves touched " + visitsWith
                    + " entries, without " + visitsWithout + ", after " + log);
            visitsOn += visitsWith;
            visitsOff += visitsWithout;
            inFlight.addAll(a.admissions());
            unsentEvictions.addAll(a.evictions());
        }

        void check() {
            both(s -> s.jobs().stream().sorted(Comparator.comparing(JobStatus::key)).toList());
            both(Scheduler::nextRetry);
            both(Scheduler::groups);
            assertEquals(on.groupsByWalk(), on.groups(), () -> "groups as counted and as walked, after " + log);
            for (Scheduler s : List.of(on, off)) {
                String broken = s.backoffWavesBroken();
                assertNull(broken, () -> "waves and lone waiters: " + broken + ", after " + log);
            }
            for (QuotaNode node : tree.nodes()) {
                both(s -> s.pending(node.name()));
            }
            for (ClusterJob job : cluster.values()) {
                both(s -> s.find(job.key.namespace(), job.key.name()));
            }
        }
    }

    /**
     * A wave that expires when a reclaim has become possible for its shape (the borrowing jobs' admissions settled
     * meanwhile, which gives no room): its jobs start their reclaims one by one, as each would alone. A wave decided as a whole
     * there would start none.
     */
    @net.jqwik.api.Example
    void aWaveWhoseShapeMayReclaimIsDecidedJobByJob() {
        Limits none = new Limits(null, null, null);
        Limits two = new Limits(2000L, null, null);
        Limits four = new Limits(4000L, null, null);
        TreeSpec tree = new TreeSpec(List.of(four, two, two, none), List.of(four, four, four, none), false);
        JobSpec borrower = new JobSpec(2, 1000, 0, 0, 0, true);
        JobSpec owner = new JobSpec(1, 1000, 0, 0, 0, true);
        List<Op> ops = new ArrayList<>(List.of(new Op(OpType.BURST, 0, 2), new Op(OpType.CYCLE, 0, 0),
                new Op(OpType.BURST, 1, 0), new Op(OpType.CYCLE, 0, 0)));
        for (int i = 0; i < 4; i++) {
            ops.add(new Op(OpType.SETTLE, 0, 0));
        }
        ops.add(new Op(OpType.ADVANCE, 2, 0));
        Scenario scenario = new Scenario(SchedulingPolicy.DEFAULT, true, Duration.ofSeconds(20), List.of(tree),
                List.of(borrower, owner), ops);
        Twins twins = new Twins(scenario);
        for (Op op : ops) {
            twins.apply(op);
        }
        twins.apply(new Op(OpType.CYCLE, 0, 0));
        assertEquals(2, twins.on.jobs().stream().filter(j -> j.state() == JobState.HELD).count(),
                "both jobs of the wave reclaim their group's min");
    }

    @Property(tries = 400)
    void wavesDecideExactlyAsJobsWaitingAlone(@ForAll("scenarios") Scenario scenario) {
        Twins twins = new Twins(scenario);
        for (Op op : scenario.ops()) {
            twins.apply(op);
        }
        // and then long enough for every backoff to end, cycle by cycle
        for (int i = 0; i < 30; i++) {
            twins.clock.advance(Duration.ofSeconds(1));
            twins.apply(new Op(OpType.CYCLE, 0, 0));
        }
        net.jqwik.api.statistics.Statistics.label("waves saved visits")
                .collect(twins.visitsOn < twins.visitsOff);
        net.jqwik.api.statistics.Statistics.label("policy, reclaim").collect(scenario.policy(), scenario.reclaim());
    }
}
