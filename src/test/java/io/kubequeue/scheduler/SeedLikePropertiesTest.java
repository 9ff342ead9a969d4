package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * Property tests on trees and jobs that look like real clusters (issue 26, item 8): the root and every team declare
 * all four resources of the seed's tree in min and max (cpu, memory, nvidia.com/gpu, aliyun.com/gpu-mem; the root's
 * min 0, as the seed's), the teams' mins share the root out and their max lets them borrow; jobs ask cpu and memory
 * in realistic proportions and GPUs only sometimes, so groups are over their min in one resource and under it in
 * another. Steps: submit, cycle (reclaim on), a victim seen suspended, a job finished, a running job's request edited
 * up or down (a template or replicas edit), time, a restart that rebuilds everything from the cluster; in the second
 * property also admissions left on their way while pending jobs are edited (the patch, bound to the version decided
 * on, is refused by the model's API server if the job moved on). A model of the
 * cluster stands beside the scheduler. After every step:
 * <ul>
 *   <li>no cycle takes a node above its max in a resource (only a running job's raised request may, charged at once);</li>
 *   <li>a reclaim's victim leaves its group at or above its min in each resource the reclaim frees;</li>
 *   <li><b>reclaim happens when the rule says it must</b>: a lone pending job that fits its group's min, short at the
 *       root only of resources its group guarantees, whose first candidate victim alone frees enough while keeping
 *       its own group's min in those resources, starts a reclaim in the cycle that tries it;</li>
 *   <li><b>a charge never below what runs</b>: each running job is charged exactly the most it asked while seen running
 *       (its admitted request included), and after a restart the higher of its admitted request (read from its
 *       record) and what it asks now.</li>
 * </ul>
 */
class SeedLikePropertiesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final long GI = 1L << 30;
    private static final String GPU = "nvidia.com/gpu";
    private static final String GPU_MEM = "aliyun.com/gpu-mem";
    private static final List<String> RESOURCES = List.of("cpu", "memory", GPU, GPU_MEM);

    /** A team: min and max per resource (all four declared, as the seed's tree does). */
    record Team(Resources min, Resources max) {
    }

    /** A job: team index, request, priority. */
    record JobSpec(int team, Resources request, int priority) {
    }

    record Step(int kind, int a, int b) {
    }

    record Scenario(Resources rootMax, List<Team> teams, List<JobSpec> jobs, List<Step> steps) {
    }

    /** A request that uses some of the four and not others: no key for a resource it does not ask. */
    private static Resources request(long cpu, long memory, long gpu, long gpuMem) {
        Map<String, Long> m = new TreeMap<>();
        if (cpu > 0) {
            m.put("cpu", cpu);
        }
        if (memory > 0) {
            m.put("memory", memory);
        }
        if (gpu > 0) {
            m.put(GPU, gpu);
            m.put(GPU_MEM, gpuMem);
        }
        return Resources.of(m);
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        return scenarios(false);
    }

    /** As {@link #scenarios()}, with admissions left on their way and pending jobs edited meanwhile. */
    @Provide
    Arbitrary<Scenario> scenariosWithPatchesOnTheirWay() {
        return scenarios(true);
    }

    private static Arbitrary<Scenario> scenarios(boolean patchesOnTheirWay) {
        Arbitrary<Resources> rootMax = Combinators.combine(Arbitraries.longs().between(4, 12),
                        Arbitraries.longs().between(8, 48), Arbitraries.longs().between(0, 8), Arbitraries.longs().between(0, 32))
                .as((c, m, g, gm) -> Resources.of("cpu", c * 1000, "memory", m * GI, GPU, g, GPU_MEM, gm));
        // a team's min: a share of each resource (0 often for GPUs); its max: everything, or its min and some more
        Arbitrary<Team> team = Combinators.combine(Arbitraries.longs().between(0, 6),
                        Arbitraries.longs().between(0, 24), Arbitraries.longs().between(0, 3).injectNull(0.4),
                        Arbitraries.longs().between(0, 12), Arbitraries.of(true, true, false), Arbitraries.longs().between(0, 4))
                .as((c, m, g, gm, borrowsAll, extra) -> {
                    long gpus = g == null ? 0 : g;
                    Resources min = Resources.of("cpu", c * 1000, "memory", m * GI, GPU, gpus, GPU_MEM, g == null ? 0 : gm);
                    Resources max = borrowsAll ? null : Resources.of("cpu", (c + extra) * 1000, "memory",
                            (m + 4 * extra) * GI, GPU, gpus + extra, GPU_MEM, (g == null ? 0 : gm) + 4 * extra);
                    return new Team(min, max);
                });
        Arbitrary<JobSpec> job = Combinators.combine(Arbitraries.integers().between(0, 3),
                        Arbitraries.longs().between(1, 8).map(v -> v * 500), // cpu: 500m .. 4
                        Arbitraries.frequency(Tuple.of(2, 0L), Tuple.of(6, 1L), Tuple.of(3, 2L), Tuple.of(1, 8L)), // Gi
                        Arbitraries.frequency(Tuple.of(7, 0L), Tuple.of(2, 1L), Tuple.of(1, 2L)),
                        Arbitraries.longs().between(1, 8), Arbitraries.integers().between(0, 2))
                .as((t, cpu, mem, gpu, gpuMem, prio) -> new JobSpec(t, request(cpu, mem * GI, gpu, gpu * gpuMem), prio));
        Arbitrary<Step> step = Combinators.combine(Arbitraries.frequency(
                        Tuple.of(6, 0), // submit
                        Tuple.of(6, 1), // cycle
                        Tuple.of(3, 2), // an eviction written and seen
                        Tuple.of(2, 3), // a running job finishes
                        Tuple.of(3, 4), // a running job's request is edited
                        Tuple.of(1, 5), // time passes
                        Tuple.of(1, 6), // restart
                        Tuple.of(3, 7), // one team submits three jobs (it will borrow)
                        Tuple.of(3, 8), // another submits a job sized within what its min has left
                        // a pending job is edited, perhaps while its admission is on its way
                        Tuple.of(patchesOnTheirWay ? 3 : 0, 9),
                        Tuple.of(patchesOnTheirWay ? 4 : 0, 10)), // an admission on its way reaches the API server
                Arbitraries.integers().between(0, 1000), Arbitraries.integers().between(0, 1000)).as(Step::new);
        return Combinators.combine(rootMax, team.list().ofMinSize(2).ofMaxSize(4), job.list().ofMinSize(6).ofMaxSize(20),
                step.list().ofMinSize(20).ofMaxSize(90)).as(Scenario::new);
    }

    /** The cluster's view of one job. */
    static final class ClusterJob {
        final JobKey key;
        final int team;
        final int priority;
        Resources request;
        boolean running;
        AdmissionRecord record;
        /** The request the record names (what the admission patch wrote). */
        Resources admitted;
        EvictionMarks marks = EvictionMarks.NONE;
        int version = 1;
        /** What the scheduler must charge it while it runs (the model's rule, see the class comment). */
        Resources expectedCharge;
        /** An admission decided and not yet written (its patch on its way), or null. */
        Admission inFlight;

        ClusterJob(JobKey key, JobSpec spec) {
            this.key = key;
            this.team = spec.team();
            this.priority = spec.priority();
            this.request = spec.request();
        }

        JobObservation observation() {
            JobObservation.Phase p = running ? JobObservation.Phase.ADMITTED : JobObservation.Phase.QUEUED;
            return new JobObservation(key, key.name(), p, request, JobPriority.of(priority), T0.plusSeconds(
                    Integer.parseInt(key.name().substring(1))), null, true, record, Integer.toString(version), true,
                    running ? new EvictionMarks(null, null, marks.reclaimedAt(), marks.timedOutAt()) : marks, JobObservation.Pods.NONE,
                    running ? admitted : null);
        }
    }

    private static QuotaTree tree(Scenario s) {
        List<QuotaNode> nodes = new ArrayList<>();
        nodes.add(new QuotaNode("root", null, List.of(), Resources.of("cpu", 0L, "memory", 0L, GPU, 0L, GPU_MEM, 0L),
                s.rootMax()));
        for (int i = 0; i < s.teams().size(); i++) {
            Team t = s.teams().get(i);
            Resources max = t.max() == null ? s.rootMax() : t.max();
            nodes.add(new QuotaNode("team-" + i, "root", List.of("ns" + i), t.min(), max.max(t.min())));
        }
        return new QuotaTree(nodes);
    }

    @Property(tries = 600)
    void realisticTreesKeepEveryPromise(@ForAll("scenarios") Scenario s) {
        run(s, false);
    }

    /**
     * Edits between a decision and its patch: half the admissions wait on their way for later steps, and a pending
     * job (its admission on its way or not) is edited meanwhile. The API server refuses a patch bound to a version
     * the job has left; the job is decided again on its new copy, and every promise above still holds.
     */
    @Property(tries = 400)
    void editsBetweenADecisionAndItsPatchKeepEveryPromise(@ForAll("scenariosWithPatchesOnTheirWay") Scenario s) {
        run(s, true);
    }

    private static void run(Scenario s, boolean patchesOnTheirWay) {
        QuotaTree tree = tree(s);
        MutableClock clock = new MutableClock(T0);
        SchedulerSettings settings = SchedulerSettings.defaults().withReclaim(1000);
        Scheduler scheduler = new Scheduler(settings, clock);
        scheduler.replaceTree(tree);
        Map<JobKey, ClusterJob> cluster = new LinkedHashMap<>();
        List<Eviction> unsent = new ArrayList<>();
        List<String> log = new ArrayList<>();
        int submitted = 0;
        int mustReclaim = 0;
        int mixedVictimGroup = 0;
        int editedDown = 0;
        int refusedAsEdited = 0;
        try {
            for (Step step : s.steps()) {
                log.add(step.toString());
                switch (step.kind()) {
                    case 0 -> {
                        if (submitted < s.jobs().size()) {
                            JobSpec spec = s.jobs().get(submitted);
                            int team = spec.team() % s.teams().size();
                            ClusterJob job = new ClusterJob(new JobKey("Job", "ns" + team, "j" + submitted),
                                    new JobSpec(team, spec.request(), spec.priority()));
                            submitted++;
                            cluster.put(job.key, job);
                            scheduler.observe(job.observation());
                        }
                    }
                    case 1 -> {
                        Expectation must = mustReclaim(scheduler, tree, cluster, unsent, clock.instant());
                        Map<String, Resources> before = usages(scheduler, tree);
                        CycleResult result = scheduler.schedule();
                        for (Admission a : result.admissions()) {
                            ClusterJob job = cluster.get(a.key());
                            job.inFlight = a;
                            if (!patchesOnTheirWay || step.b() % 2 == 0) { // the others stay on their way a while
                                patchReachesServer(scheduler, job, clock.instant());
                            }
                        }
                        Map<String, Resources> after = usages(scheduler, tree);
                        for (QuotaNode n : tree.nodes()) {
                            for (Map.Entry<String, Long> l : n.max().asMap().entrySet()) {
                                long now = after.get(n.name()).get(l.getKey());
                                assertTrue(now <= l.getValue() || now <= before.get(n.name()).get(l.getKey()),
                                        "a cycle took " + n.name() + " " + l.getKey() + " to " + now + " above " + l.getValue());
                            }
                        }
                        for (Eviction e : result.evictions()) {
                            CycleResult.Reclaim r = result.reclaims().stream().filter(x -> x.victims().contains(e.key()))
                                    .findFirst().orElseThrow();
                            ReclaimPropertiesTest.checkVictimSide(scheduler, tree, e,
                                    ReclaimPropertiesTest.decidedBy(unsent, result, r), r.resources());
                            if (mixed(scheduler, tree.pathToRoot(e.record().group()).get(0))) {
                                mixedVictimGroup++;
                            }
                        }
                        if (must != null) {
                            mustReclaim++;
                            assertTrue(result.reclaims().stream().anyMatch(r -> r.preemptor().equals(must.job())),
                                    "the rule says " + must.job() + " must reclaim (short of " + must.short_() + ", "
                                            + must.victim() + " alone frees it): " + result.reclaims());
                        }
                        unsent.addAll(result.evictions());
                    }
                    case 2 -> {
                        if (!unsent.isEmpty()) {
                            Eviction e = unsent.remove(step.a() % unsent.size());
                            ClusterJob job = cluster.get(e.key());
                            if (job != null && job.running && e.record().equals(job.record)) {
                                job.running = false;
                                job.marks = e.history();
                                job.version++;
                                job.expectedCharge = null;
                                scheduler.settleEviction(e.key(), e.record(),
                                        new EvictionOutcome.Applied(Integer.toString(job.version)));
                                scheduler.observe(job.observation());
                            } else {
                                scheduler.settleEviction(e.key(), e.record(), EvictionOutcome.REFUSED);
                            }
                        }
                    }
                    case 3 -> {
                        ClusterJob job = pickRunning(cluster, step.a()).orElse(null);
                        if (job != null) {
                            cluster.remove(job.key);
                            scheduler.observe(JobObservation.finished(job.key, job.key.name()));
                        }
                    }
                    case 4 -> {
                        ClusterJob job = pickRunning(cluster, step.a()).orElse(null);
                        if (job == null) {
                            break;
                        }
                        // a template or replicas edit: each resource it asks scaled to 1/4 .. 2x
                        long num = 1 + step.b() % 8;
                        Map<String, Long> edited = new TreeMap<>();
                        job.request.asMap().forEach((k, v) -> edited.put(k, Math.max(1, v * num / 4)));
                        Resources next = Resources.of(edited);
                        if (num < 4) {
                            editedDown++;
                        }
                        job.request = next;
                        job.version++;
                        job.expectedCharge = job.expectedCharge.max(next);
                        scheduler.observe(job.observation());
                    }
                    case 7, 8 -> {
                        int team = step.a() % s.teams().size();
                        QuotaNode group = tree.pathToRoot("team-" + team).get(0);
                        for (int n = 0; n < (step.kind() == 7 ? 3 : 1); n++) {
                            JobSpec spec = s.jobs().get((submitted + step.b()) % s.jobs().size());
                            Resources request = spec.request();
                            if (step.kind() == 8) { // within its group's min: a job entitled to reclaim
                                Resources left = group.min().minus(scheduler.usage(group.name()));
                                Map<String, Long> within = new TreeMap<>();
                                request.asMap().forEach((k, v) -> {
                                    if (Math.min(v, left.get(k)) > 0) {
                                        within.put(k, Math.min(v, left.get(k)));
                                    }
                                });
                                if (within.isEmpty()) {
                                    break;
                                }
                                request = Resources.of(within);
                            }
                            ClusterJob job = new ClusterJob(new JobKey("Job", "ns" + team, "j" + (1000 + submitted)),
                                    new JobSpec(team, request, spec.priority()));
                            submitted++;
                            cluster.put(job.key, job);
                            scheduler.observe(job.observation());
                        }
                    }
                    case 9 -> {
                        List<ClusterJob> pending = cluster.values().stream().filter(j -> !j.running).toList();
                        if (pending.isEmpty()) {
                            break;
                        }
                        // a replicas, parallelism or min-resources edit of a job not running yet: 1/4 .. 4x
                        ClusterJob job = pending.get(step.a() % pending.size());
                        long num = 1 + step.b() % 16;
                        Map<String, Long> edited = new TreeMap<>();
                        job.request.asMap().forEach((k, v) -> edited.put(k, Math.max(1, v * num / 4)));
                        job.request = Resources.of(edited);
                        job.version++;
                        scheduler.observe(job.observation());
                    }
                    case 10 -> {
                        List<ClusterJob> onTheirWay = cluster.values().stream().filter(j -> j.inFlight != null).toList();
                        if (!onTheirWay.isEmpty()) {
                            ClusterJob job = onTheirWay.get(step.a() % onTheirWay.size());
                            if (!patchReachesServer(scheduler, job, clock.instant())) {
                                refusedAsEdited++;
                            }
                        }
                    }
                    case 5 -> clock.advance(Duration.ofMinutes(1 + step.a() % 30));
                    default -> {
                        scheduler = new Scheduler(settings, clock);
                        scheduler.replaceTree(tree);
                        unsent.clear(); // decided, never written
                        for (ClusterJob job : cluster.values()) {
                            job.inFlight = null; // decided, never written
                            if (job.running) {
                                // what the cluster holds is all a new leader knows: its record and what it asks now
                                job.expectedCharge = job.request.max(job.admitted);
                            }
                            scheduler.observe(job.observation());
                        }
                    }
                }
                checkCharges(scheduler, tree, cluster);
            }
        } catch (AssertionError e) {
            fail(e.getMessage() + "\nsteps: " + log, e);
        }
        if (patchesOnTheirWay) {
            Statistics.label("an admission refused: its job edited after the decision").collect(refusedAsEdited > 0);
            Statistics.label("an admission refused: its job edited after the decision")
                    .coverage(c -> c.check(true).percentage(p -> p >= 3));
            return; // the reclaim figures below are the first property's
        }
        Statistics.label("a reclaim the rule requires").collect(mustReclaim > 0);
        Statistics.label("a victim's group over its min in one resource, under it in another").collect(mixedVictimGroup > 0);
        Statistics.label("a running job edited down").collect(editedDown > 0);
        // a guard on the generator, not a rate: such trees come ~1.5 % of the tries (9 of 600 on average), so a floor
        // of 1 % failed one seed in ten or so (seed -3055339194576583198: 5 of 600, on the builds before and after the
        // core's split alike); at least 3 still fails when the generator stops drawing them
        Statistics.label("a reclaim the rule requires").coverage(c -> c.check(true).count(n -> n >= 3));
        Statistics.label("a victim's group over its min in one resource, under it in another")
                .coverage(c -> c.check(true).percentage(p -> p >= 2));
        Statistics.label("a running job edited down").coverage(c -> c.check(true).percentage(p -> p >= 20));
    }

    /**
     * The API server applies the job's admission patch as a real one does: its {@code test} of the resourceVersion
     * the decision read fails if the job was edited since (then it is refused and decided again on its new copy),
     * else the job starts and carries the record and the request decided. Returns whether it started.
     */
    private static boolean patchReachesServer(Scheduler scheduler, ClusterJob job, Instant now) {
        Admission a = job.inFlight;
        job.inFlight = null;
        if (!Integer.toString(job.version).equals(a.resourceVersion())) {
            int triedBefore = scheduler.status(job.key).orElseThrow().attempts();
            scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Refused(Integer.toString(job.version)));
            JobStatus st = scheduler.status(job.key).orElseThrow();
            assertEquals(JobState.ACTIVE, st.state(), job.key + " edited after its decision is decided again on"
                    + " its new copy in the next cycle, with no backoff: " + st);
            assertEquals(triedBefore, st.attempts(), job.key + " refused because it changed: no failed try counted");
            return false;
        }
        assertEquals(job.request, a.request(), "decided on the request of the version it is bound to");
        job.running = true;
        job.record = a.record();
        job.admitted = a.request();
        job.expectedCharge = a.request();
        job.marks = job.marks.settledAt(now);
        job.version++;
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied(Integer.toString(job.version)));
        scheduler.observe(job.observation());
        return true;
    }

    private static java.util.Optional<ClusterJob> pickRunning(Map<JobKey, ClusterJob> cluster, int a) {
        List<ClusterJob> running = cluster.values().stream().filter(j -> j.running).toList();
        return running.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(running.get(a % running.size()));
    }

    /** Whether the group is over its min in some resource and under it in another. */
    private static boolean mixed(Scheduler scheduler, QuotaNode group) {
        Resources used = scheduler.usage(group.name());
        boolean over = false;
        boolean under = false;
        for (String r : RESOURCES) {
            long min = group.min().get(r);
            over |= used.get(r) > min;
            under |= used.get(r) < min;
        }
        return over && under;
    }

    private static Map<String, Resources> usages(Scheduler scheduler, QuotaTree tree) {
        Map<String, Resources> all = new HashMap<>();
        tree.nodes().forEach(n -> all.put(n.name(), scheduler.usage(n.name())));
        return all;
    }

    /** Each running job is charged what the model says, and usage is exactly the sum of the charges. */
    private static void checkCharges(Scheduler scheduler, QuotaTree tree, Map<JobKey, ClusterJob> cluster) {
        assertEquals(scheduler.groupsByWalk(), scheduler.groups(), "the per-group counts say what a walk says");
        assertNull(scheduler.backoffWavesBroken(), "backoff waves and lone waiters keep their rules");
        for (QuotaNode node : tree.nodes()) {
            scheduler.pending(node.name()); // a reclaiming preemptor queued again is no longer among the held
        }
        Map<String, Resources> expected = new HashMap<>();
        for (ClusterJob job : cluster.values()) {
            JobState state = scheduler.status(job.key).map(JobStatus::state).orElse(null);
            boolean charged = job.running || job.inFlight != null;
            assertEquals(charged, state == JobState.ADMITTED,
                    job.key + " runs or has its admission on its way iff admitted: " + state);
            if (job.running) {
                for (QuotaNode n : tree.pathToRoot(job.record.group())) {
                    expected.merge(n.name(), job.expectedCharge.with(Resources.MAX_JOBS, 1), Resources::plus);
                }
            } else if (job.inFlight != null) { // charged at what was decided, whatever it asks now
                for (QuotaNode n : tree.pathToRoot(job.inFlight.record().group())) {
                    expected.merge(n.name(), job.inFlight.request().with(Resources.MAX_JOBS, 1), Resources::plus);
                }
            }
        }
        for (QuotaNode n : tree.nodes()) {
            Resources want = expected.getOrDefault(n.name(), Resources.NONE);
            Resources got = scheduler.usage(n.name());
            for (String r : RESOURCES) {
                assertEquals(want.get(r), got.get(r), "usage of " + n.name() + " in " + r
                        + ": each running job charged the most it asked while running (never below what runs)");
            }
        }
    }

    /** A reclaim the rule requires in the next cycle: the job, what it is short of, the victim that frees it. */
    record Expectation(JobKey job, Map<String, Long> short_, JobKey victim) {
    }

    /**
     * The rule of docs/policies.md "Reclaim", worked out independently for the one case it decides plainly: a single
     * pending job, never tried, no reclaim or eviction in progress. Its group's usage + request ≤ its min in every
     * resource it is short of at the root (the others it may borrow from free room, within its group's max), and
     * each of those is
     * guaranteed by its group (a min above 0); the first candidate victim in victim order (lowest priority, most recently admitted, key) that frees any
     * of it frees all of it alone and leaves its own group at or above its min in each of those resources.
     */
    private static Expectation mustReclaim(Scheduler scheduler, QuotaTree tree, Map<JobKey, ClusterJob> cluster,
                                           List<Eviction> unsent, Instant now) {
        // the one job the cycle tries: every other pending job waits out a backoff that has not expired
        List<ClusterJob> tried = new ArrayList<>();
        for (ClusterJob j : cluster.values()) {
            if (j.running || j.inFlight != null) {
                continue;
            }
            JobStatus st = scheduler.status(j.key).orElseThrow();
            if (st.state() == JobState.HELD) {
                if (st.hold() != null && st.hold().kind() == Hold.Reason.RECLAIMING) {
                    return null; // a reclaim in progress: its room is reserved
                }
                continue; // never fits: not tried
            }
            if (st.state() == JobState.ACTIVE || st.retryAt() == null
                    || !st.retryAt().isAfter(now)) {
                tried.add(j);
            }
        }
        if (tried.size() != 1 || !unsent.isEmpty()) {
            return null;
        }
        ClusterJob job = tried.get(0);
        JobStatus status = scheduler.status(job.key).orElseThrow();
        if (status.state() != JobState.ACTIVE || !job.marks.equals(EvictionMarks.NONE)) {
            return null; // a victim waiting for its preemptor: the plain case only
        }
        QuotaNode root = tree.pathToRoot("team-0").get(1);
        QuotaNode group = tree.pathToRoot("team-" + job.team).get(0);
        Resources groupUsed = scheduler.usage(group.name());
        Resources rootUsed = scheduler.usage(root.name());
        Map<String, Long> short_ = new TreeMap<>();
        for (Map.Entry<String, Long> r : job.request.asMap().entrySet()) {
            String k = r.getKey();
            if (group.max().has(k) && groupUsed.get(k) + r.getValue() > group.max().get(k)) {
                return null; // over its own group's max: no other group's job can make room there
            }
            if (rootUsed.get(k) + r.getValue() > root.max().get(k)) {
                if (group.min().get(k) == 0) {
                    return null;
                }
                short_.put(k, rootUsed.get(k) + r.getValue() - root.max().get(k));
            }
        }
        if (short_.isEmpty()) {
            return null; // it fits
        }
        for (String k : short_.keySet()) {
            if (job.request.get(k) > group.min().get(k) - groupUsed.get(k)) {
                return null; // not within its group's min in what it is short of (in the others it may borrow)
            }
        }
        ClusterJob victim = cluster.values().stream().filter(j -> j.running && j.team != job.team)
                .filter(j -> short_.keySet().stream().anyMatch(k -> j.expectedCharge.get(k) > 0))
                .min(Comparator.comparingInt((ClusterJob j) -> j.priority)
                        .thenComparing((ClusterJob j) -> Instant.parse(j.record.admittedAt()), Comparator.reverseOrder())
                        .thenComparing(j -> j.key))
                .orElse(null);
        if (victim == null) {
            return null;
        }
        QuotaNode victimGroup = tree.pathToRoot("team-" + victim.team).get(0);
        Resources victimGroupUsed = scheduler.usage(victimGroup.name());
        for (Map.Entry<String, Long> r : short_.entrySet()) {
            long frees = victim.expectedCharge.get(r.getKey());
            if (frees < r.getValue()
                    || frees > 0 && victimGroupUsed.get(r.getKey()) - frees < victimGroup.min().get(r.getKey())) {
                return null;
            }
        }
        assertFalse(short_.isEmpty());
        return new Expectation(job.key, short_, victim.key);
    }
}
