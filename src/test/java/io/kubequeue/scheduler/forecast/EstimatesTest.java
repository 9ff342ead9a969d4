package io.kubequeue.scheduler.forecast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.MutableClock;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.FinishedRun;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.RunTimeHints;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;
import io.kubequeue.scheduler.model.WhatIf;

/**
 * Estimates, what-if and unblock hints through the facade, on a fake clock (issue 30, "Tests"): the band from
 * history, never-fits, no quota group, unknown history, a held group, beyond the horizon, the rate limit, the
 * estimates' own error, what-if on tree edits, and the hint for each kind of blocker, rendered per reader.
 */
class EstimatesTest {

    static final Instant T0 = Instant.parse("2026-12-05T08:00:00Z");

    final MutableClock clock = new MutableClock(T0);
    Scheduler scheduler;
    long version = 1;
    int created;

    /** root 4 cpu; team-a (namespace a) and team-b (namespace b), each min 2 and max 4 unless given. */
    static QuotaTree tree(long maxA, String heldB) {
        return new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), Resources.of("cpu", 4000L), Resources.of("cpu", 4000L)),
                new QuotaNode("team-a", "root", List.of("a"), Resources.of("cpu", 2000L), Resources.of("cpu", maxA)),
                new QuotaNode("team-b", "root", List.of("b"), Resources.of("cpu", 2000L), Resources.of("cpu", 4000L),
                        heldB)));
    }

    void start(SchedulingPolicy policy, QuotaTree tree) {
        scheduler = new Scheduler(new SchedulerSettings(policy, Duration.ofSeconds(1), Duration.ofSeconds(20)), clock);
        scheduler.watchPods(key -> false);
        scheduler.replaceTree(tree);
        scheduler.tuneEstimates(Duration.ZERO, Duration.ofDays(30), 200_000);
    }

    JobObservation submit(String ns, String name, long millicores, RunTimeHints hints, boolean preemptible) {
        JobObservation o = new JobObservation(new JobKey("Job", ns, name), "uid-" + name, JobObservation.Phase.QUEUED,
                Resources.of("cpu", millicores), JobPriority.of(0), T0.plusSeconds(created++), null, preemptible,
                null, Long.toString(version++), true, EvictionMarks.NONE).withRunTime(hints);
        scheduler.observe(o);
        return o;
    }

    JobObservation submit(String ns, String name, long millicores, RunTimeHints hints) {
        return submit(ns, name, millicores, hints, true);
    }

    /** Runs a cycle and applies its admissions as the cluster would. */
    List<JobKey> cycle() {
        CycleResult result = scheduler.schedule();
        for (Admission a : result.admissions()) {
            String v = Long.toString(version++);
            scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied(v));
            scheduler.podRan(a.key());
        }
        return result.admissions().stream().map(Admission::key).toList();
    }

    Estimate estimate(String ns, String name) {
        return scheduler.estimate(new JobKey("Job", ns, name)).orElseThrow();
    }

    static RunTimeHints runs(int seconds) {
        return new RunTimeHints(Duration.ofSeconds(seconds), null);
    }

    @Test
    void aJobBehindARunningOneStartsWhenItEndsWithItsBandFromHistory() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        for (int i = 1; i <= 10; i++) { // runs of 10, 20, … 100 s of 4-cpu Jobs in team-a
            scheduler.learn(new FinishedRun(new JobKey("Job", "a", "old-" + i), "team-a", Resources.of("cpu", 4000L),
                    T0.minusSeconds(100 + i * 10L), T0.minusSeconds(100)));
        }
        submit("a", "running", 4000, RunTimeHints.NONE);
        assertEquals(1, cycle().size());
        submit("a", "next", 4000, runs(30));
        cycle();
        clock.advance(Duration.ofSeconds(5));
        scheduler.refreshEstimates();
        Estimate e = estimate("a", "next");
        assertEquals(Estimate.State.ESTIMATED, e.state());
        assertEquals(T0.plusSeconds(50), e.eta(), "the running job's median of 50 s (it ran 5: runs over 5 s count)");
        assertEquals(T0.plusSeconds(90), e.etaLate(), "its 90th percentile");
        assertEquals(Duration.ofSeconds(30), e.runsFor());
        assertEquals(T0.plusSeconds(5), e.computedAt());
        String said = e.assumptions().stream().map(Object::toString).collect(Collectors.joining("\n"));
        assertTrue(said.contains("starts once Job a/running ends"), said);
        assertTrue(said.contains("as its kube-queue/expected-duration says"), said);
    }

    @Test
    void neverFitsAndNoQuotaGroupSaySoInsteadOfATime() {
        start(SchedulingPolicy.DEFAULT, tree(4000, null));
        submit("a", "huge", 5000, runs(10));
        submit("z", "nowhere", 1000, runs(10));
        cycle();
        scheduler.refreshEstimates();
        assertEquals(Estimate.State.NEVER_FITS, estimate("a", "huge").state());
        assertNull(estimate("a", "huge").eta());
        assertEquals(Estimate.State.NO_QUOTA_GROUP, estimate("z", "nowhere").state());
    }

    @Test
    void aJobWaitingOnARunOfUnknownLengthIsUnknownAndTheRunIsNamedOnlyToWhoMaySeeIt() {
        start(SchedulingPolicy.DEFAULT, tree(4000, null));
        submit("b", "mystery", 4000, RunTimeHints.NONE);
        cycle();
        submit("a", "waiting", 2000, runs(10));
        cycle();
        scheduler.refreshEstimates();
        Estimate e = estimate("a", "waiting");
        assertEquals(Estimate.State.UNKNOWN, e.state());
        Explanation waits = e.assumptions().get(e.assumptions().size() - 1);
        assertTrue(waits.render(key -> true).contains("Job b/mystery"), waits.toString());
        String toTeamA = waits.render(key -> key.namespace().equals("a"));
        assertFalse(toTeamA.contains("mystery"), toTeamA);
        assertTrue(toTeamA.contains("a job in quota group team-b"), toTeamA);
    }

    @Test
    void aGroupThatAdmitsNothingIsBlockedNotNeverFits() {
        start(SchedulingPolicy.DEFAULT, tree(4000, "its ResourceQuota cannot be read"));
        submit("b", "stuck", 1000, runs(10));
        cycle();
        scheduler.refreshEstimates();
        assertEquals(Estimate.State.BLOCKED, estimate("b", "stuck").state());
        List<Explanation> hint = scheduler.unblock(new JobKey("Job", "b", "stuck"));
        assertEquals(List.of(Explanation.of("quota group team-b admits nothing now: its ResourceQuota cannot be read")),
                hint);
    }

    @Test
    void pastTheHorizonIsSaidAsSuch() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        scheduler.tuneEstimates(Duration.ZERO, Duration.ofSeconds(30), 1000);
        submit("a", "long", 4000, runs(600));
        cycle();
        submit("a", "after", 4000, runs(10));
        cycle();
        scheduler.refreshEstimates();
        assertEquals(Estimate.State.BEYOND_HORIZON, estimate("a", "after").state());
        scheduler.tuneEstimates(Duration.ZERO, Duration.ofDays(1), 1000);
        scheduler.refreshEstimates();
        assertEquals(T0.plusSeconds(600), estimate("a", "after").eta());
    }

    @Test
    void refreshesOnlyWhenTheCoreChangedAndTheIntervalPassed() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        scheduler.tuneEstimates(Duration.ofSeconds(10), Duration.ofDays(1), 1000);
        submit("a", "one", 4000, runs(60));
        cycle();
        submit("a", "two", 4000, runs(60));
        clock.advance(Duration.ofSeconds(11));
        assertTrue(scheduler.refreshEstimatesIfDue());
        Instant first = estimate("a", "two").computedAt();
        clock.advance(Duration.ofSeconds(11));
        assertFalse(scheduler.refreshEstimatesIfDue(), "nothing changed");
        submit("a", "three", 1000, runs(60));
        assertTrue(scheduler.refreshEstimatesIfDue(), "changed, and the last is 11 s old");
        Instant second = estimate("a", "two").computedAt();
        assertEquals(first.plusSeconds(11), second);
        submit("a", "four", 1000, runs(60));
        clock.advance(Duration.ofSeconds(2));
        assertFalse(scheduler.refreshEstimatesIfDue(), "changed, but the last is only 2 s old");
        assertEquals(second, estimate("a", "two").computedAt(), "the answer says how old it is");
        clock.advance(Duration.ofSeconds(8));
        assertTrue(scheduler.refreshEstimatesIfDue());
        assertTrue(scheduler.estimate(new JobKey("Job", "a", "four")).isPresent());
    }

    @Test
    void theEstimatesMeasureTheirOwnError() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        submit("a", "one", 4000, runs(60));
        cycle();
        submit("a", "two", 4000, runs(60));
        cycle();
        scheduler.refreshEstimates();
        assertEquals(T0.plusSeconds(60), estimate("a", "two").eta());
        clock.advance(Duration.ofSeconds(90)); // "one" runs 90 s, not 60: "two" starts 30 s late after a 90 s wait
        scheduler.observe(JobObservation.finished(new JobKey("Job", "a", "one"), "uid-one"));
        cycle();
        scheduler.refreshEstimates();
        assertEquals(1, scheduler.estimateAccuracy().samples());
        assertEquals(30.0 / 90, scheduler.estimateAccuracy().median(), 1e-3);
    }

    @Test
    void whatIfARaisedMaxAndARemovedGroup() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(2000, null));
        submit("a", "big", 3000, runs(10));
        submit("b", "small", 1000, runs(10));
        cycle();
        WhatIf raised = scheduler.whatIf(tree(4000, null), null);
        Map<String, WhatIf.Job> byName = raised.jobs().stream().collect(Collectors.toMap(j -> j.key().name(),
                j -> j));
        assertEquals(Estimate.State.NEVER_FITS, byName.get("big").estimate().state());
        assertEquals(Estimate.State.ESTIMATED, byName.get("big").estimateAfter().state());
        assertEquals(T0.plusMillis(1), byName.get("big").estimateAfter().eta(), "a millisecond after b's record");
        assertNull(byName.get("big").estimateAfter().etaLate(), "the change is replayed at median run times only");
        assertEquals(List.of(new WhatIf.Group("team-a", 1, 0, 0)), raised.groups());
        QuotaTree withoutB = new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), Resources.of("cpu", 4000L), Resources.of("cpu", 4000L)),
                new QuotaNode("team-a", "root", List.of("a"), Resources.of("cpu", 2000L), Resources.of("cpu", 2000L))));
        submit("b", "queued", 4000, runs(10)); // b is full: waits
        cycle();
        WhatIf removed = scheduler.whatIf(withoutB, null);
        WhatIf.Job queued = removed.jobs().stream().filter(j -> j.key().name().equals("queued")).findFirst()
                .orElseThrow();
        assertEquals(Estimate.State.ESTIMATED, queued.estimate().state());
        assertEquals(Estimate.State.NO_QUOTA_GROUP, queued.estimateAfter().state());
        assertTrue(removed.groups().contains(new WhatIf.Group("team-b", 0, 1, 0)), removed.groups().toString());
        assertEquals(Estimate.State.NEVER_FITS, scheduler.estimate(new JobKey("Job", "a", "big")).map(
                Estimate::state).orElse(Estimate.State.NEVER_FITS), "the real core is untouched");
        assertEquals(2000, scheduler.tree().node("team-a").orElseThrow().max().get("cpu"));
    }

    @Test
    void theSmallestChangeNamesTheLimitTheBorrowerAndTheJobWhoseEndAdmitsIt() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        submit("b", "borrower", 3000, runs(40));
        submit("a", "small", 1000, runs(100));
        cycle();
        submit("a", "waiting", 2000, runs(10));
        cycle();
        scheduler.refreshEstimates();
        List<String> hint = scheduler.unblock(new JobKey("Job", "a", "waiting")).stream().map(Object::toString)
                .toList();
        assertEquals(List.of("raise max cpu of quota group root by 2",
                "1 cpu that quota group team-b uses above its min given back (a reclaim)",
                "Job b/borrower ending (expected 2026-12-05T08:00:40Z)"), hint);
        List<String> toTeamA = scheduler.unblock(new JobKey("Job", "a", "waiting")).stream()
                .map(x -> x.render(key -> key.namespace().equals("a"))).toList();
        assertEquals("a job in quota group team-b ending (expected 2026-12-05T08:00:40Z)", toTeamA.get(2));
        assertEquals(List.of(), scheduler.unblock(new JobKey("Job", "a", "small")), "admitted: nothing to unblock");
    }

    @Test
    void aNonPreemptibleJobIsToldTheMinToRaise() {
        start(SchedulingPolicy.DEFAULT, tree(4000, null));
        submit("a", "guaranteed", 2000, runs(100), false);
        cycle();
        submit("a", "more", 1000, runs(10), false);
        cycle();
        assertEquals(List.of("raise min cpu of quota group team-a by 1"), scheduler.unblock(
                new JobKey("Job", "a", "more")).stream().map(Object::toString).toList());
    }

    @Test
    void endsWithinOneTickCostOneCycleAndTheStartIsTheTick() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        submit("a", "one", 1000, new RunTimeHints(Duration.ofMillis(10_010), null));
        submit("a", "two", 1000, new RunTimeHints(Duration.ofMillis(10_020), null));
        submit("a", "three", 2000, new RunTimeHints(Duration.ofMillis(10_030), null));
        cycle();
        submit("a", "next", 4000, runs(10));
        cycle();
        Replay.Result exact = Replay.run(scheduler.simulation(scheduler.settings()), RunTimeHistory.Snapshot.empty(),
                Replay.Quantile.TYPICAL, Replay.Limits.EXACT);
        Replay.Result ticked = Replay.run(scheduler.simulation(scheduler.settings()), RunTimeHistory.Snapshot.empty(),
                Replay.Quantile.TYPICAL, new Replay.Limits(Duration.ofDays(1), 1000, Duration.ofMillis(100)));
        JobKey next = new JobKey("Job", "a", "next");
        // "three" was admitted 2 ms after T0 (records are a millisecond apart): it ends at 10.032 s
        assertEquals(T0.plusMillis(10_032), exact.starts().get(next));
        assertEquals(T0.plusMillis(10_100), ticked.starts().get(next), "the three ends are one tick: 10.1 s");
        assertTrue(ticked.cycles() < exact.cycles(), ticked.cycles() + " cycles against " + exact.cycles());
    }

    @Test
    void aRunLearntAsItEndsIsDatedToTheMillisecondNotToTheSecondItsObjectSays() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        clock.advance(Duration.ofMillis(10_950));
        // admitted at 10.700 s, ended at 10.950 s: the object's completionTime says 10 s
        scheduler.learn(new FinishedRun(new JobKey("Job", "a", "short"), "team-a", Resources.of("cpu", 1000L),
                T0.plusMillis(10_700), T0.plusSeconds(10)));
        // one that ended long ago keeps the time it carries
        scheduler.learn(new FinishedRun(new JobKey("Job", "a", "old"), "team-a", Resources.of("cpu", 8000L),
                T0.minusSeconds(100), T0.minusSeconds(40)));
        RunTimeHistory.Snapshot s = scheduler.history().snapshot(clock.instant());
        assertEquals(Duration.ofMillis(250), s.remaining("team-a", "Job", Resources.of("cpu", 1000L),
                RunTimeHints.NONE, Duration.ZERO).typical());
        assertEquals(Duration.ofSeconds(60), s.remaining("team-a", "Job", Resources.of("cpu", 8000L),
                RunTimeHints.NONE, Duration.ZERO).typical());
    }

    @Test
    void refreshesAreAtLeastTwentyTimesTheirOwnCostApart() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        submit("a", "one", 4000, runs(60));
        cycle();
        submit("a", "two", 4000, runs(60));
        Forecaster forecaster = new Forecaster(s -> scheduler.simulation(scheduler.settings()), scheduler.history(),
                clock, Duration.ofMillis(1), Replay.Limits.EXACT);
        assertEquals(Duration.ofMillis(1), forecaster.spacing(), "no refresh yet: the interval");
        Forecaster.Forecast f = forecaster.refresh();
        assertTrue(f.cost().compareTo(Duration.ZERO) > 0, "a replay costs CPU: " + f.cost());
        Duration byCost = f.cost().multipliedBy(Forecaster.SPACING_PER_COST);
        assertEquals(byCost.compareTo(Duration.ofMillis(1)) > 0 ? byCost : Duration.ofMillis(1), forecaster.spacing());
        clock.advance(Duration.ofMillis(1));
        boolean due = forecaster.refreshIfDue(42);
        assertEquals(byCost.compareTo(Duration.ofMillis(1)) <= 0, due, "due only once the spacing has passed");
    }

    @Test
    void aRunIsLearntFromWhenItsAdmissionAppliedAndAReplayLearnsNothing() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        submit("a", "burst", 1000, RunTimeHints.NONE);
        CycleResult decided = scheduler.schedule();
        Admission a = decided.admissions().get(0);
        clock.advance(Duration.ofSeconds(3)); // its write waited 3 s behind others
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied("99"));
        // a replay of the copy, which ends jobs, must not write into the history it shares
        submit("a", "short", 1000, runs(2)); // the replay admits it and ends it
        Replay.run(scheduler.simulation(scheduler.settings()), scheduler.history().snapshot(clock.instant()),
                Replay.Quantile.TYPICAL, Replay.Limits.EXACT);
        assertEquals(0, scheduler.history().runs(), "a replay learns nothing");
        clock.advance(Duration.ofSeconds(10));
        scheduler.observe(JobObservation.finished(a.key(), "uid-burst"));
        assertEquals(1, scheduler.history().runs());
        assertEquals(Duration.ofSeconds(10), scheduler.history().snapshot(clock.instant()).remaining("team-a", "Job",
                Resources.of("cpu", 1000L), RunTimeHints.NONE, Duration.ZERO).typical(), "10 s, not 13");
        // the feed's view of the same run (record time to its completion time) is the same run: counted once
        scheduler.learn(new FinishedRun(a.key(), "team-a", Resources.of("cpu", 1000L),
                Instant.parse(a.record().admittedAt()), clock.instant().minusMillis(500)));
        assertEquals(1, scheduler.history().runs());
    }

    /**
     * A running job deleted by its owner was cut short: how long it ran says nothing of how long such jobs run, so it is
     * not learnt (it was, and the next estimate named it as a run of a few seconds: CI's QueueApiTest).
     */
    @Test
    void aRunningJobDeletedIsNotLearntAsARun_oneThatFinishesIs() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        submit("a", "cut", 1000, RunTimeHints.NONE);
        submit("a", "whole", 1000, RunTimeHints.NONE);
        List<Admission> admitted = scheduler.schedule().admissions();
        assertEquals(2, admitted.size());
        for (Admission a : admitted) {
            scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied("99"));
        }
        clock.advance(Duration.ofSeconds(4));
        Admission cut = admitted.stream().filter(a -> a.key().name().equals("cut")).findFirst().orElseThrow();
        Admission whole = admitted.stream().filter(a -> a.key().name().equals("whole")).findFirst().orElseThrow();
        assertTrue(scheduler.deleted(cut.key(), "uid-cut").released(), "its room is given back all the same");
        assertEquals(0, scheduler.history().runs(), "a deleted run is not learnt");
        clock.advance(Duration.ofSeconds(6));
        scheduler.observe(JobObservation.finished(whole.key(), "uid-whole"));
        assertEquals(1, scheduler.history().runs());
        assertEquals(Duration.ofSeconds(10), scheduler.history().snapshot(clock.instant()).remaining("team-a", "Job",
                Resources.of("cpu", 1000L), RunTimeHints.NONE, Duration.ZERO).typical(), "the whole run only");
    }

    @Test
    void aRunningJobHasRunSinceItsAdmissionAppliedNotSinceItWasDecided() {
        start(SchedulingPolicy.RETRY_ON_RELEASE, tree(4000, null));
        for (int i = 1; i <= 10; i++) { // 4-cpu Jobs of team-a ran exactly 20 s, from their admission applied
            scheduler.learn(new FinishedRun(new JobKey("Job", "a", "old-" + i), "team-a", Resources.of("cpu", 4000L),
                    T0.minusSeconds(100), T0.minusSeconds(60), T0.minusSeconds(80)));
        }
        submit("a", "running", 4000, RunTimeHints.NONE);
        CycleResult decided = scheduler.schedule();
        Admission a = decided.admissions().get(0);
        clock.advance(Duration.ofSeconds(5)); // its write waited 5 s
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied("99"));
        submit("a", "next", 4000, runs(10));
        cycle();
        clock.advance(Duration.ofSeconds(10));
        scheduler.refreshEstimates();
        // it has run 10 s of its 20 (not 15, counted from the decision): "next" starts 25 s after T0
        assertEquals(T0.plusSeconds(25), estimate("a", "next").eta());
    }
}
