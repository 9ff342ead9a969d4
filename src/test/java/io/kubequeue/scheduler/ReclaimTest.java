package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * Reclaim in the core, case by case (issue 16; docs/policies.md, "Reclaim"). The tree: root (cpu 4 min and max) with
 * team-a and team-b (each min 2, max 4); team-b's two 2-cpu jobs borrow team-a's min.
 */
class ReclaimTest {

    private final EvictionScenario it = new EvictionScenario();
    private final MutableClock clock = it.clock;
    private final Map<JobKey, JobObservation> cluster = it.cluster;
    private Scheduler scheduler = newScheduler(3);

    private Scheduler newScheduler(int maxPerHour) {
        return scheduler = it.start(SchedulerSettings.defaults().withReclaim(maxPerHour), EvictionScenario.twoTeams());
    }

    private JobObservation submit(String ns, String name, long millicores, int priority, boolean stoppable) {
        return it.submit(ns, name, millicores, priority, stoppable);
    }

    private CycleResult cycle() {
        return it.cycle();
    }

    private void applyAndSee(Eviction e) {
        it.applyAndSee(e);
    }

    private JobState state(String ns, String name) {
        return it.state(ns, name);
    }

    @Test
    void aGroupWithinItsMinSuspendsTheLowestPriorityBorrowerAndIsAdmittedOnceItIsSeenSuspended() {
        submit("b", "b1", 2000, 5, true);
        submit("b", "b2", 2000, 1, true);
        assertEquals(2, cycle().admissions().size());
        submit("a", "a1", 2000, 0, true);

        CycleResult reclaiming = cycle();

        assertEquals(List.of(), reclaiming.admissions(), "nothing is admitted before the victim is seen suspended");
        assertEquals(1, reclaiming.evictions().size());
        Eviction e = reclaiming.evictions().get(0);
        assertEquals("b2", e.key().name(), "lowest priority first");
        assertEquals(Eviction.Reason.RECLAIM, e.reason());
        assertEquals(new JobKey("Job", "a", "a1"), e.preemptor());
        assertEquals("team-a", e.preemptorGroup());
        assertEquals(List.of(new CycleResult.Reclaim(new JobKey("Job", "a", "a1"), "team-a", List.of(e.key()),
                        List.of(e.record().group()), new java.util.TreeSet<>(List.of("cpu")))),
                reclaiming.reclaims());
        assertEquals(JobState.HELD, state("a", "a1"));
        assertEquals(4000, scheduler.usage("root").get("cpu"), "the victim stays charged until seen suspended");

        scheduler.settleEviction(e.key(), e.record(), new EvictionOutcome.Applied("99"));
        assertEquals(List.of(), cycle().admissions(), "the write's answer alone frees nothing");

        applyAndSee(e);
        CycleResult next = cycle();
        assertEquals(List.of("a1"), next.admissions().stream().map(a -> a.key().name()).toList(),
                "the preemptor is admitted, not the victim (higher priority, same room)");
        assertEquals(JobState.BACKOFF, state("b", "b2"));
        assertEquals(List.of(), next.evictions());
    }

    @Test
    void aRootThatDeclaresMinZeroAsTheSeedsDoesNotStopAReclaimBelowIt() {
        scheduler = it.start(SchedulerSettings.defaults().withReclaim(3), new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), Resources.of("cpu", 0L), Resources.of("cpu", 4000L)),
                new QuotaNode("team-a", "root", List.of("a"), Resources.of("cpu", 2000L), Resources.of("cpu", 4000L)),
                new QuotaNode("team-b", "root", List.of("b"), Resources.of("cpu", 2000L), Resources.of("cpu", 4000L)))));
        submit("b", "b1", 2000, 0, true);
        submit("b", "b2", 2000, 0, true);
        cycle();
        submit("a", "a1", 2000, 0, true);
        assertEquals(1, cycle().evictions().size());
    }

    private static final long GI = 1L << 30;

    /** cpu, memory, nvidia.com/gpu and aliyun.com/gpu-mem, as the seed's tree declares them in min and max. */
    private static Resources seedLike(long millicores, long bytes, long gpus, long gpuMem) {
        return Resources.of("cpu", millicores, "memory", bytes, "nvidia.com/gpu", gpus, "aliyun.com/gpu-mem", gpuMem);
    }

    /**
     * Issue 26, sequence 1: a tree whose min declares cpu and memory (and GPUs) as the seed's does. team-b borrows
     * root's 8 cpu (its min is 4 cpu, 16Gi) while it uses 2Gi of memory; team-a's 4-cpu job fits its own min. The
     * reclaim frees cpu only: team-b being under its min in memory, which nobody is short of, does not shield the cpu
     * it borrows (Kueue: a ClusterQueue is a reclaim target when it borrows one of the resources the preemptor needs).
     */
    @Test
    void aVictimsGroupUnderItsMinInAResourceNobodyIsShortOfStillGivesBackTheCpuItBorrows() {
        scheduler = it.start(SchedulerSettings.defaults().withReclaim(3), new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), seedLike(0, 0, 0, 0), seedLike(8000, 64 * GI, 64, 32)),
                new QuotaNode("team-a", "root", List.of("a"), seedLike(4000, 16 * GI, 0, 0), seedLike(8000, 32 * GI, 8, 16)),
                new QuotaNode("team-b", "root", List.of("b"), seedLike(4000, 16 * GI, 0, 0), seedLike(8000, 32 * GI, 8, 16)))));
        it.submit("b", "b1", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        it.submit("b", "b2", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        assertEquals(2, cycle().admissions().size());
        it.submit("a", "a1", Resources.of("cpu", 4000L, "memory", GI), 0, true);

        CycleResult reclaiming = cycle();

        assertEquals(1, reclaiming.evictions().size(), "one of team-b's jobs gives back the 4 cpu it borrows");
        Eviction e = reclaiming.evictions().get(0);
        assertEquals("b", e.key().namespace());
        applyAndSee(e);
        assertEquals(List.of("a1"), cycle().admissions().stream().map(a -> a.key().name()).toList());
        assertEquals(8000, scheduler.usage("root").get("cpu"), "never above root's max");
        assertEquals(4000, scheduler.usage("team-b").get("cpu"), "team-b keeps its min in the resource freed");
    }

    /**
     * The preemptor's side of the same rule: team-a borrows memory (20Gi running, its min is 16Gi, root has room) and
     * is short of cpu only; its 4-cpu job fits its cpu min, so it reclaims the cpu team-b borrows. Its memory above
     * its min is taken from free room, as any admission may (Kueue judges a preemptor on the resources that need
     * preemption).
     */
    @Test
    void aPreemptorOverItsMinInAResourceItIsNotShortOfStillReclaimsWhatItIs() {
        scheduler = it.start(SchedulerSettings.defaults().withReclaim(3), new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), seedLike(0, 0, 0, 0), seedLike(8000, 64 * GI, 64, 32)),
                new QuotaNode("team-a", "root", List.of("a"), seedLike(4000, 16 * GI, 0, 0), seedLike(8000, 32 * GI, 8, 16)),
                new QuotaNode("team-b", "root", List.of("b"), seedLike(4000, 16 * GI, 0, 0), seedLike(8000, 32 * GI, 8, 16)))));
        it.submit("a", "a0", Resources.of("memory", 20 * GI), 0, true);
        it.submit("b", "b1", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        it.submit("b", "b2", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        assertEquals(3, cycle().admissions().size());
        it.submit("a", "a1", Resources.of("cpu", 4000L, "memory", GI), 0, true);

        CycleResult reclaiming = cycle();

        assertEquals(1, reclaiming.evictions().size(), "team-a is short of cpu only, and within its cpu min");
        applyAndSee(reclaiming.evictions().get(0));
        assertEquals(List.of("a1"), cycle().admissions().stream().map(a -> a.key().name()).toList());
        assertEquals(8000, scheduler.usage("root").get("cpu"), "never above root's max");
        assertEquals(21 * GI, scheduler.usage("team-a").get("memory"), "its memory borrowed from free room");
    }

    /** A preemptor is still held to its own min in what it is short of: over its cpu min, it reclaims nothing. */
    @Test
    void aPreemptorThatWouldPassItsMinInTheResourceItIsShortOfReclaimsNothing() {
        scheduler = it.start(SchedulerSettings.defaults().withReclaim(3), new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), seedLike(0, 0, 0, 0), seedLike(8000, 64 * GI, 64, 32)),
                new QuotaNode("team-a", "root", List.of("a"), seedLike(2000, 16 * GI, 0, 0), seedLike(8000, 32 * GI, 8, 16)),
                new QuotaNode("team-b", "root", List.of("b"), seedLike(4000, 16 * GI, 0, 0), seedLike(8000, 32 * GI, 8, 16)))));
        it.submit("b", "b1", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        it.submit("b", "b2", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        cycle();
        it.submit("a", "a1", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        assertEquals(List.of(), cycle().evictions(), "4 cpu is over team-a's cpu min of 2");
    }

    /**
     * Two reclaims at once; the second's eviction is refused. The first's victim is seen suspended: its preemptor is
     * admitted in the next cycle, and its victim (which yields to it) is not. Before, the first reclaim was settled
     * while the refused one still held its reservation, so the first preemptor did not fit, queued again behind its
     * own victim, and that victim took the room back (found by ReclaimPropertiesTest, seed -5056092592443945187).
     */
    @Test
    void aRefusedEvictionOfOneReclaimDoesNotKeepAnotherPreemptorFromTheRoomItsVictimFreed() {
        String gpu = "nvidia.com/gpu";
        scheduler = it.start(SchedulerSettings.defaults().withReclaim(3), new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), Resources.of(gpu, 3L), Resources.of(gpu, 3L)),
                new QuotaNode("team-a", "root", List.of("a"), Resources.NONE, Resources.NONE),
                new QuotaNode("team-b", "root", List.of("b"), Resources.NONE, Resources.NONE))));
        it.submit("b", "b1", Resources.of(gpu, 1L), 0, true);
        it.submit("b", "b2", Resources.of(gpu, 1L), 0, true);
        assertEquals(2, cycle().admissions().size());
        it.submit("a", "a1", Resources.of(gpu, 2L), 0, true);
        it.submit("a", "a2", Resources.of(gpu, 1L), 0, true);
        CycleResult reclaiming = cycle();
        assertEquals(2, reclaiming.reclaims().size(), "a1 and a2 each reclaim one of team-b's jobs");
        Eviction forA1 = reclaiming.evictions().stream().filter(e -> e.preemptor().name().equals("a1")).findFirst()
                .orElseThrow();
        Eviction forA2 = reclaiming.evictions().stream().filter(e -> e.preemptor().name().equals("a2")).findFirst()
                .orElseThrow();
        applyAndSee(forA1);
        scheduler.settleEviction(forA2.key(), forA2.record(), EvictionOutcome.REFUSED); // that victim runs on

        List<String> admitted = cycle().admissions().stream().map(a -> a.key().name()).toList();

        assertEquals(JobState.ADMITTED, it.state("a", "a1"), "a1's victim is gone: a1 is admitted " + admitted);
        assertEquals(JobState.ADMITTED, it.state("b", forA2.key().name()), "the refused victim runs on");
        assertTrue(!admitted.contains(forA1.key().name()), "a1's victim does not take the room back: " + admitted);
        assertEquals(3, scheduler.usage("root").get(gpu), "never above root's max");
    }

    /**
     * Two reclaims in one cycle where the second counts on the first's victim: a1 is short of a GPU and reclaims
     * b-gpu (2 GPUs; a1 reserves one); a2 counts b-gpu's other GPU as on its way out and reclaims only b-cpu for the
     * cpu it is short of. b-cpu is seen suspended first: a2's own victims are gone, but the GPU it counted on is still
     * charged to b-gpu, so it cannot be admitted yet (root would hold 3 of 2 GPUs). It must go on waiting, its room
     * reserved, rather than give its reclaim up and back off while b-cpu (suspended for it) takes its cpu back (found
     * by ReclaimPropertiesTest, seed -8839912939055926842). Once b-gpu is seen suspended too, both are admitted.
     */
    @Test
    void aPreemptorThatCountedOnAnotherReclaimsVictimWaitsForItInsteadOfGivingUp() {
        String gpu = "nvidia.com/gpu";
        scheduler = it.start(SchedulerSettings.defaults().withReclaim(3), new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), Resources.of("cpu", 3000L, gpu, 2L),
                        Resources.of("cpu", 3000L, gpu, 2L)),
                new QuotaNode("team-a", "root", List.of("a"), Resources.NONE, Resources.NONE),
                new QuotaNode("team-b", "root", List.of("b"), Resources.NONE, Resources.NONE))));
        it.submit("b", "b-gpu", Resources.of(gpu, 2L), 0, true);
        it.submit("b", "b-cpu", Resources.of("cpu", 2000L), 0, true);
        assertEquals(2, cycle().admissions().size());
        it.submit("a", "a1", Resources.of("cpu", 1000L, gpu, 1L), 0, true);
        it.submit("a", "a2", Resources.of("cpu", 1000L, gpu, 1L), 0, true);
        CycleResult reclaiming = cycle();
        assertEquals(List.of("a1", "a2"), reclaiming.reclaims().stream().map(r -> r.preemptor().name()).toList());
        Eviction forA1 = reclaiming.evictions().stream().filter(e -> e.preemptor().name().equals("a1")).findFirst()
                .orElseThrow();
        Eviction forA2 = reclaiming.evictions().stream().filter(e -> e.preemptor().name().equals("a2")).findFirst()
                .orElseThrow();
        assertEquals(List.of("b-gpu", "b-cpu"), List.of(forA1.key().name(), forA2.key().name()),
                "a2 counts b-gpu's second GPU as on its way out: one victim each");

        applyAndSee(forA2);
        List<String> admitted = cycle().admissions().stream().map(a -> a.key().name()).toList();

        assertEquals(List.of(), admitted, "a2 cannot fit beside b-gpu's GPUs yet, and b-cpu yields to it");
        assertEquals(JobState.HELD, it.state("a", "a2"), "a2 waits for the GPU it counted on");
        assertEquals(Hold.Reason.RECLAIMING, scheduler.status(new JobKey("Job", "a", "a2")).orElseThrow().hold().kind());
        assertEquals(2, scheduler.usage("root").get(gpu), "never above root's max");

        applyAndSee(forA1);
        admitted = cycle().admissions().stream().map(a -> a.key().name()).toList();

        assertEquals(List.of("a1", "a2"), admitted, "both preemptors once every victim they counted on is gone");
        assertEquals(2, scheduler.usage("root").get(gpu));
        assertEquals(2000, scheduler.usage("root").get("cpu"));
    }

    /** The rule is judged per freed resource: a victim whose group would drop below its min in cpu is still refused. */
    @Test
    void aVictimsGroupIsNeverTakenBelowItsMinInAResourceTheReclaimFrees() {
        scheduler = it.start(SchedulerSettings.defaults().withReclaim(3), new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), seedLike(0, 0, 0, 0), seedLike(8000, 64 * GI, 64, 32)),
                new QuotaNode("team-a", "root", List.of("a"), seedLike(4000, 16 * GI, 0, 0), seedLike(8000, 32 * GI, 8, 16)),
                new QuotaNode("team-b", "root", List.of("b"), seedLike(6000, 16 * GI, 0, 0), seedLike(8000, 32 * GI, 8, 16)))));
        it.submit("b", "b1", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        it.submit("b", "b2", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        cycle();
        it.submit("a", "a1", Resources.of("cpu", 4000L, "memory", GI), 0, true);
        assertEquals(List.of(), cycle().evictions(), "either victim would leave team-b at 4 cpu, under its min of 6");
    }

    @Test
    void aCycleStartsAtMostItsPlanningBudgetOfReclaimsAndTheNextCycleGoesOn() {
        int teams = SchedulingCycle.RECLAIM_PLANS_PER_CYCLE + 4;
        List<QuotaNode> nodes = new java.util.ArrayList<>();
        nodes.add(new QuotaNode("root", null, List.of(), null, Resources.of("cpu", teams * 1000L)));
        nodes.add(new QuotaNode("borrower", "root", List.of("b"), null, null));
        for (int i = 0; i < teams; i++) {
            nodes.add(new QuotaNode("t" + i, "root", List.of("t" + i), Resources.of("cpu", 1000L), null));
        }
        scheduler = it.start(SchedulerSettings.defaults().withReclaim(3), new QuotaTree(nodes));
        for (int i = 0; i < teams; i++) {
            submit("b", "b" + i, 1000, 0, true);
        }
        cycle();
        for (int i = 0; i < teams; i++) {
            submit("t" + i, "a" + i, 1000, 0, true);
        }
        CycleResult first = cycle();
        assertEquals(SchedulingCycle.RECLAIM_PLANS_PER_CYCLE, first.reclaims().size(), "bounded work per cycle");
        assertEquals(SchedulingCycle.RECLAIM_PLANS_PER_CYCLE, first.evictions().size(),
                "one victim each: the room the others' victims free is not counted twice");
        clock.advance(Duration.ofSeconds(30)); // past the others' backoff
        CycleResult second = cycle();
        assertEquals(4, second.reclaims().size(), "the rest in the next cycle");
        assertEquals(4, second.evictions().size());

        // each preemptor is admitted once its own victim is seen suspended, not once every reclaim's are
        CycleResult.Reclaim one = first.reclaims().get(0);
        Eviction itsVictim = first.evictions().stream().filter(e -> e.preemptor().equals(one.preemptor()))
                .findFirst().orElseThrow();
        applyAndSee(itsVictim);
        assertEquals(List.of(one.preemptor()), cycle().admissions().stream().map(Admission::key).toList());
        assertEquals(teams * 1000L, scheduler.usage("root").get("cpu"), "never above the root's max");
    }

    @Test
    void mostRecentlyAdmittedFirstAmongEqualPriorities() {
        submit("b", "b1", 2000, 0, true);
        cycle();
        clock.advance(Duration.ofSeconds(5));
        submit("b", "b2", 2000, 0, true);
        cycle();
        submit("a", "a1", 2000, 0, true);
        assertEquals("b2", cycle().evictions().get(0).key().name());
    }

    @Test
    void neverTakesTheVictimGroupBelowItsMinNorUsesJobsThatCannotBeStoppedOrAreNonPreemptible() {
        submit("b", "b1", 3000, 0, true); // 3 of 4; b's min is 2: evicting it would leave b at 0 < 2
        cycle();
        submit("a", "a1", 2000, 0, true);
        CycleResult result = cycle();
        assertEquals(List.of(), result.evictions(), "b would fall below its min");
        assertEquals(JobState.BACKOFF, state("a", "a1"));
    }

    @Test
    void aJobThatSuspendingDoesNotStopIsNeverAVictim() {
        submit("b", "b1", 2000, 0, false);
        submit("b", "b2", 2000, 0, false);
        cycle();
        submit("a", "a1", 2000, 0, true);
        assertEquals(List.of(), cycle().evictions());
    }

    @Test
    void aJobAboveItsGroupsMinDoesNotReclaim() {
        submit("b", "b1", 2000, 0, true);
        submit("b", "b2", 2000, 0, true);
        cycle();
        submit("a", "a1", 3000, 0, true); // 3 > team-a's min of 2
        assertEquals(List.of(), cycle().evictions());
    }

    @Test
    void aRefusedEvictionGivesTheReclaimUpAndTheVictimRunsOn() {
        submit("b", "b1", 2000, 0, true);
        submit("b", "b2", 2000, 0, true);
        cycle();
        submit("a", "a1", 2000, 0, true);
        Eviction e = cycle().evictions().get(0);
        scheduler.settleEviction(e.key(), e.record(), EvictionOutcome.REFUSED);
        assertEquals(JobState.HELD, state("a", "a1"));
        CycleResult next = cycle();
        assertEquals(JobState.ADMITTED, state(e.key().namespace(), e.key().name()));
        assertEquals(4000, scheduler.usage("root").get("cpu"), "nothing was released");
        assertEquals(1, next.evictions().size(), "the reclaim starts again with the other borrower");
        assertTrue(!next.evictions().get(0).key().equals(e.key()), "a refused victim is not tried again");
    }

    @Test
    void aJobIsAVictimAtMostKTimesAnHour() {
        newScheduler(1);
        submit("b", "b1", 2000, 0, true);
        submit("b", "b2", 2000, 0, true);
        cycle();
        submit("a", "a1", 2000, 0, true);
        Eviction first = cycle().evictions().get(0);
        applyAndSee(first);
        cycle(); // a1 admitted
        // a1 ends, the victim comes back; a new job of team-a reclaims again: not from the same victim this hour
        JobObservation a1 = cluster.get(new JobKey("Job", "a", "a1"));
        scheduler.observe(JobObservation.finished(a1.key(), a1.uid()));
        clock.advance(Duration.ofSeconds(30)); // past the victim's backoff (the default policy wakes nobody early)
        cycle();
        assertEquals(JobState.ADMITTED, state(first.key().namespace(), first.key().name()));
        submit("a", "a2", 2000, 0, true);
        List<Eviction> second = cycle().evictions();
        assertEquals(1, second.size());
        assertTrue(!second.get(0).key().equals(first.key()), "the first victim was evicted once this hour already");
        applyAndSee(second.get(0));
        cycle();
        JobObservation a2 = cluster.get(new JobKey("Job", "a", "a2"));
        scheduler.observe(JobObservation.finished(a2.key(), a2.uid()));
        clock.advance(Duration.ofSeconds(30));
        cycle();
        submit("a", "a3", 2000, 0, true);
        assertEquals(List.of(), cycle().evictions(), "both borrowers were victims once in this hour");
        clock.advance(Duration.ofMinutes(61));
        assertEquals(1, cycle().evictions().size(), "an hour later they may be victims again");
    }

    /**
     * ReclaimPropertiesTest, seed 3227737241594834361: an eviction written long after it was decided (a backlog of
     * evictions, a slow API server) made its job a victim from when it was written, but was counted from when it was
     * decided; so the hour ended early and the job became a victim again within the hour it was suspended in.
     */
    @Test
    void aVictimCountsFromWhenItsEvictionWasWrittenNotFromWhenItWasDecided() {
        victimOfAnEvictionWrittenLateIsNotAVictimAgainWithinTheHour(false);
    }

    /** The same across a restart: the time the job carries is the one written. */
    @Test
    void aVictimCountsFromWhenItsEvictionWasWrittenAfterARestartToo() {
        victimOfAnEvictionWrittenLateIsNotAVictimAgainWithinTheHour(true);
    }

    /** A job seen suspended before the write's answer counts that eviction once: at the time written on it. */
    @Test
    void anEvictionSeenBeforeItsAnswerIsCountedOnce() {
        newScheduler(2);
        submit("b", "b1", 2000, 0, true);
        submit("b", "b2", 2000, 0, true);
        cycle();
        submit("a", "a1", 2000, 0, true);
        Eviction first = cycle().evictions().get(0);
        clock.advance(Duration.ofMinutes(5));
        Eviction written = first.writtenAt(clock.instant());
        JobObservation o = cluster.get(first.key());
        JobObservation suspended = it.copy(o, JobObservation.Phase.QUEUED, o.record(), written.history());
        cluster.put(first.key(), suspended);
        scheduler.observe(suspended); // the informer first
        scheduler.settleEviction(first.key(), first.record(),
                new EvictionOutcome.Applied(suspended.resourceVersion(), clock.instant()));
        cycle(); // a1 admitted
        it.finish("a", "a1");
        clock.advance(Duration.ofSeconds(30));
        cycle();
        assertEquals(JobState.ADMITTED, state(first.key().namespace(), first.key().name()));
        submit("a", "a2", 2000, 0, true);
        List<Eviction> second = cycle().evictions();
        assertEquals(List.of(first.key()), second.stream().map(Eviction::key).toList(),
                "a victim once this hour (K = 2), and the most recently admitted: it goes first again");
        assertEquals(List.of(written.history().reclaimedAt().get(0), clock.instant()),
                second.get(0).history().reclaimedAt(), "its history: the first eviction once, as written");
    }

    private void victimOfAnEvictionWrittenLateIsNotAVictimAgainWithinTheHour(boolean restart) {
        newScheduler(1);
        submit("b", "b1", 2000, 0, true);
        submit("b", "b2", 2000, 0, true);
        cycle();
        submit("a", "a1", 2000, 0, true);
        Eviction first = cycle().evictions().get(0);
        clock.advance(Duration.ofMinutes(50)); // decided now, written 50 minutes later
        applyAndSee(first);
        cycle(); // a1 admitted
        if (restart) {
            newScheduler(1);
            cluster.values().forEach(scheduler::observe);
        }
        it.finish("a", "a1");
        clock.advance(Duration.ofSeconds(30)); // past the victim's backoff
        cycle();
        assertEquals(JobState.ADMITTED, state(first.key().namespace(), first.key().name()));
        clock.advance(Duration.ofMinutes(15)); // 65.5 min after the decision, 15.5 after the job was suspended
        submit("a", "a2", 2000, 0, true);
        List<Eviction> second = cycle().evictions();
        assertEquals(1, second.size());
        assertTrue(!second.get(0).key().equals(first.key()),
                "the first victim was suspended 15 minutes ago: it was a victim once in this hour already");
    }

    @Test
    void afterARestartTheSuspendedVictimsPreemptorIsAdmittedFirst() {
        submit("b", "b1", 2000, 0, true);
        submit("b", "b2", 2000, 9, true); // higher priority than a1: without the mark it would go first
        cycle();
        submit("a", "a1", 2000, 0, true);
        Eviction e = cycle().evictions().get(0);
        assertEquals("b1", e.key().name());
        applyAndSee(e);
        // restart before the cycle that admits a1: a new scheduler sees the cluster as it is
        newScheduler(3);
        cluster.values().forEach(scheduler::observe);
        CycleResult first = cycle();
        assertEquals(List.of("a1"), first.admissions().stream().map(a -> a.key().name()).toList());
        assertNull(scheduler.status(e.key()).orElseThrow().record());
    }

    @Test
    void aChangeOfTheQuotaGroupsGivesTheReclaimUp() {
        submit("b", "b1", 2000, 0, true);
        submit("b", "b2", 2000, 0, true);
        cycle();
        submit("a", "a1", 2000, 0, true);
        cycle();
        assertEquals(JobState.HELD, state("a", "a1"));
        scheduler.replaceTree(scheduler.tree());
        assertEquals(JobState.ACTIVE, state("a", "a1"));
        assertEquals(4000, scheduler.usage("root").get("cpu"));
    }
}
