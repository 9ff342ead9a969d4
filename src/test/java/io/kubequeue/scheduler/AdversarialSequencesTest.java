package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.Unreadable;

/**
 * Adversarial sequences against the scheduler core, from a review of the issue-12 changes: each is one concrete
 * event sequence a real cluster can produce, and each failed before its fix (the comment on each says what went
 * wrong then). The assertions are the invariants of docs/behaviour.md §1–§3.
 */
class AdversarialSequencesTest extends InFlightScenario {

    /**
     * §1/§2: "An edit seen while an admission is on its way is kept, and wins if the admission is handed back";
     * a suspended job whose request cannot be read "stays suspended until it is fixed". Here the edit that made
     * the request unreadable is dropped, and the job is re-admitted with its stale request.
     */
    @Test
    void anUnreadableEditSeenWhileTheAdmissionIsOnItsWayWithdrawsTheJobIfItIsHandedBack() {
        scheduler.observe(queued("j", "u", 1000, "10"));
        Admission a = admitOnly("j");
        // the user breaks the request (e.g. min-resources unparsable) before our patch lands
        assertEquals(Unreadable.KEPT, scheduler.observeUnreadable(
                unreadable("j", "u", JobObservation.Phase.QUEUED, null, "11")));
        scheduler.settle(a.key(), a.record(), AdmissionOutcome.REFUSED); // refused (e.g. resourceVersion test), handed back
        clock.advance(Duration.ofMinutes(1));
        List<Admission> again = scheduler.schedule().admissions();
        assertTrue(again.isEmpty(), "a suspended job whose request cannot be read must not be admitted, got " + again);
        assertTrue(scheduler.status(key("j")).isEmpty()
                        || scheduler.status(key("j")).get().state() != JobState.ADMITTED,
                "withdrawn until fixed");
    }

    /**
     * §1: "a queued job whose spec.suspend is set false by hand ... kube-queue charges it to its group as started
     * outside kube-queue". A queued job that was withdrawn because its request could not be read is forgotten, so
     * when it is then fixed and started by hand in one edit, nothing charges it.
     */
    @Test
    void aWithdrawnJobFixedAndStartedByHandIsCharged() {
        scheduler.observe(queued("j", "u", 3000, "10"));
        assertEquals(Unreadable.WITHDRAWN, scheduler.observeUnreadable(
                unreadable("j", "u", JobObservation.Phase.QUEUED, null, "11")));
        // fixed and unsuspended by hand (spec.suspend false, annotation gone)
        scheduler.observe(job("j", "u", JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD, 3000, null, "12"));
        assertEquals(3000, cpu("team-a"), "the job runs: its 3 cpu must be charged");
    }

    /** Same, but still unreadable when started by hand: §2 says a running unreadable job is charged as unknown. */
    @Test
    void aWithdrawnJobStartedByHandWhileStillUnreadableHoldsItsGroup() {
        scheduler.observe(queued("j", "u", 3000, "10"));
        scheduler.observeUnreadable(unreadable("j", "u", JobObservation.Phase.QUEUED, null, "11"));
        Unreadable outcome = scheduler.observeUnreadable(
                unreadable("j", "u", JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD, null, "12"));
        scheduler.observe(queued("k", "v", 4000, "13"));
        List<Admission> admitted = scheduler.schedule().admissions();
        assertEquals(Unreadable.HOLDS_GROUP, outcome, "a queued job, started by hand, runs with unknown use");
        assertTrue(admitted.isEmpty(), "team-a's use is unknown: nothing may be admitted, got " + admitted);
    }

    /**
     * observe() re-labels an in-flight admission as started outside when the job is seen running without our record,
     * precisely so that a later refusal "must not uncharge a running job". observeUnreadable() does not, so the
     * Admitter's "refused, and the read-back failed too -> settle(REFUSED)" uncharges a job that runs.
     */
    @Test
    void aJobStartedByHandWithAnUnreadableRequestWhileOurAdmissionIsOnItsWayStaysChargedAfterTheRefusal() {
        scheduler.observe(queued("j", "u", 3000, "10"));
        Admission a = admitOnly("j");
        scheduler.observeUnreadable(unreadable("j", "u", JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD, null, "11"));
        // the writer finds no mark in the directory (JobFeed.unreadable stored the job's marks: none) and hands the
        // admission back at once (Admitter.admit); likewise a refusal whose read-back fails, or a lost leadership
        scheduler.settle(a.key(), a.record(), AdmissionOutcome.REFUSED);
        assertEquals(JobState.ADMITTED, scheduler.status(key("j")).orElseThrow().state(), "the job runs");
        assertTrue(scheduler.usage("team-a").get(Resources.MAX_JOBS) >= 1, "and stays charged");
        scheduler.observe(queued("k", "v", 4000, "12"));
        clock.advance(Duration.ofMinutes(1));
        List<Admission> admitted = scheduler.schedule().admissions();
        assertFalse(admitted.stream().anyMatch(x -> x.key().name().equals("k")),
                "k (4 cpu) must not be admitted next to a running 3-cpu j in a 4-cpu group: " + admitted);
    }

    /**
     * §1: a running job's charge follows its request ("charge what it uses now, even above max, so nothing else
     * is admitted into that room"). A job started by hand whose started-outside record is not (yet) written keeps
     * arriving as UNSUSPENDED_WITHOUT_RECORD, and a raise of its request is never charged.
     */
    @Test
    void aJobStartedByHandThatGrowsIsChargedItsNewRequest() {
        scheduler.observe(queued("j", "u", 1000, "10"));
        scheduler.observe(job("j", "u", JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD, 1000, null, "11"));
        assertEquals(1000, cpu("team-a"));
        scheduler.observe(job("j", "u", JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD, 3000, null, "12")); // parallelism raised
        assertEquals(3000, cpu("team-a"), "j now uses 3 cpu");
        scheduler.observe(queued("k", "v", 3000, "13"));
        assertTrue(scheduler.schedule().admissions().isEmpty(), "3 + 3 > 4: k must wait");
    }

    /** Same with STARTED_DESPITE_MARK (a batch Job with only the annotation, whose controller ignores it). */
    @Test
    void aJobRunningDespiteItsMarkThatGrowsIsChargedItsNewRequest() {
        scheduler.observe(job("j", "u", JobObservation.Phase.STARTED_DESPITE_MARK, 1000, null, "10"));
        scheduler.observe(job("j", "u", JobObservation.Phase.STARTED_DESPITE_MARK, 3000, null, "11"));
        assertEquals(3000, cpu("team-a"), "j now uses 3 cpu");
    }

    /**
     * settle(Applied)'s contract: "A later version of the job that carries a suspend mark again is a
     * re-suspension, even if the running state in between was never observed". If that later copy is seen before
     * the patch's answer is processed, it is parked in {@code newest} and never acted on: the suspended job stays
     * charged, and nothing will settle it.
     */
    @Test
    void aResuspensionSeenBeforeThePatchAnswerIsReleasedByTheAnswer() {
        scheduler.observe(queued("j", "u", 3000, "10"));
        Admission a = admitOnly("j");
        // patch applied at rv 11; the job is re-suspended at rv 12 (a replace, without our record), and the
        // informer delivers rv 12 before the writer thread handles the patch's answer
        scheduler.observe(queued("j", "u", 3000, "12"));
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied("11"));
        assertNotEquals(JobState.ADMITTED, scheduler.status(key("j")).orElseThrow().state(),
                "rv 12 > 11 carries the mark again: a re-suspension");
        assertEquals(0, cpu("team-a"), "a suspended job holds no quota");
    }

    /**
     * observe() treats a suspended copy newer than our confirmed patch as a re-suspension; observeUnreadable()
     * does not, and answers "KEPT: our admission is on its way", though the admission was confirmed: the suspended
     * job stays charged with no in-flight state left to settle it.
     */
    @Test
    void anUnreadableResuspensionAfterAConfirmedPatchReleasesTheCharge() {
        scheduler.observe(queued("j", "u", 3000, "10"));
        Admission a = admitOnly("j");
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied("11"));
        Unreadable outcome = scheduler.observeUnreadable(
                unreadable("j", "u", JobObservation.Phase.QUEUED, null, "12"));
        assertEquals(Unreadable.WITHDRAWN, outcome);
        assertEquals(0, cpu("team-a"));
    }

    /**
     * settle(StartedByHand) (the read-back showed the job started by hand) records nothing about that read: no
     * version, no "seen running". A later re-suspension whose running copy the informer skipped is parked as
     * {@code newest}, and the suspended job stays charged until some other change.
     */
    @Test
    void aJobStartedByHandThenSuspendedAgainAfterAnOverrideIsReleased() {
        scheduler.observe(queued("j", "u", 3000, "10"));
        Admission a = admitOnly("j");
        // refused: the read-back at rv 12 shows no mark and no record (started by hand)
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.StartedByHand("12")).orElseThrow();
        // the user puts the mark back (rv 14) before the started-outside record is written; the informer relists
        scheduler.observe(queued("j", "u", 3000, "14"));
        assertNotEquals(JobState.ADMITTED, scheduler.status(key("j")).orElseThrow().state());
        assertEquals(0, cpu("team-a"));
    }

    /**
     * Records are unique per process only (lastAdmittedAt starts at null). A new leader whose clock is not ahead of
     * the old one's record can write the very record already on a re-suspended job; any copy carrying it is then
     * taken for a re-suspension of the new admission, the charge is dropped while the patch lands, and a second
     * job is admitted into the same room.
     */
    @Test
    void aNewLeaderNeverReusesARecordItHasSeenSoCannotOverAdmit() {
        AdmissionRecord old = new AdmissionRecord("team-a", AdmissionRecord.ADMITTED_AT.format(T0));
        Scheduler next = new Scheduler(SchedulerSettings.defaults(), clock); // a restart / leader change
        next.replaceTree(TREE);
        // j was admitted by the old leader at T0 and suspended again: the mark is back, the record stays
        next.observe(job("j", "u", JobObservation.Phase.QUEUED, 3000, old, "20"));
        Admission a = next.schedule().admissions().get(0);
        // a status write before our patch lands (same marks, same record)
        next.observe(job("j", "u", JobObservation.Phase.QUEUED, 3000, old, "21"));
        // k, created before j, waits behind j's charge (3 + 3 > 4)
        next.observe(new JobObservation(key("k"), "v", JobObservation.Phase.QUEUED, Resources.of("cpu", 3000L),
                JobPriority.NONE, T0.minusSeconds(3600), null, true, null, "22"));
        clock.advance(Duration.ofMillis(5));
        List<Admission> more = next.schedule().admissions();
        // our patch applies, and the job runs
        next.settle(a.key(), a.record(), new AdmissionOutcome.Applied("23"));
        next.observe(job("j", "u", JobObservation.Phase.ADMITTED, 3000, a.record(), "23"));
        for (Admission m : more) {
            next.settle(m.key(), m.record(), new AdmissionOutcome.Applied("24"));
        }
        assertTrue(next.usage("team-a").get("cpu") <= 4000, "over-admitted: " + next.usage("team-a")
                + ", admitted " + more + ", j's record " + a.record() + " == old " + old);
    }

    /** Invariant check used after many sequences: every job finished leaves no usage. */
    @Test
    void usageReturnsToNoneAfterUnknownChargesAndPluginSwitches() {
        AdmissionRecord r = new AdmissionRecord("team-a", "2025-12-31T00:00:00.000Z");
        scheduler.observeUnreadable(unreadable("w", "u1", JobObservation.Phase.ADMITTED, r, "1"));
        scheduler.observeUnreadable(unreadable("x", "u2", JobObservation.Phase.STARTED_DESPITE_MARK, null, "2"));
        scheduler.observe(queued("j", "u3", 1000, "3"));
        scheduler.replaceTree(QuotaTree.perNamespace(List.of(
                new QuotaNode("a", null, List.of("a"), null, Resources.of("cpu", 4000L)))));
        Admission none = scheduler.schedule().admissions().stream().findFirst().orElse(null);
        assertEquals(null, none, "a's use is unknown: nothing admitted");
        scheduler.replaceTree(TREE.nodes().stream().map(n -> n.name().equals("root") ? n.held("recount") : n)
                .collect(java.util.stream.Collectors.collectingAndThen(java.util.stream.Collectors.toList(),
                        QuotaTree::new)));
        scheduler.observe(job("w", "u1", JobObservation.Phase.ADMITTED, 2000, r, "4"));
        scheduler.observe(JobObservation.finished(key("w"), "u1"));
        scheduler.observe(JobObservation.finished(key("x"), "u2"));
        scheduler.replaceTree(TREE);
        Admission a = admitOnly("j");
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.TakenOver(new AdmissionRecord("root", "x"), "9"));
        scheduler.observe(JobObservation.finished(key("j"), "u3"));
        for (String g : List.of("root", "team-a", "a")) {
            assertEquals(Resources.NONE, scheduler.usage(g), g);
        }
    }
}
