package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.Unreadable;

/**
 * Second adversarial round against the scheduler core: each test is one event sequence a real cluster can
 * produce, and each failed before its fix (the comments say what went wrong then; docs/behaviour.md §1–§4).
 */
class AdversarialRoundTwoTest extends InFlightScenario {

    /**
     * §2: a suspended job whose request cannot be read "stays pending" (the original admitted such workflows at
     * zero cost; we do not). The fixed settle(REFUSED) path withdraws a job whose newest copy is unreadable, but
     * settle(Applied)'s re-suspension path applies that copy as if readable: the job queues with request NONE
     * and is admitted for free.
     * Real sequence: our patch applies (rv 11); the user replaces the job (suspend back, annotations gone, broken
     * min-resources) at rv 12; the informer delivers rv 12 before the writer handles the patch answer.
     */
    @Test
    void anUnreadableResuspensionSeenBeforeThePatchAnswerIsWithdrawnNotQueuedAtZeroCost() {
        scheduler.observe(queued("j", "u", 3000, "10"));
        Admission a = admitOnly("j");
        assertEquals(Unreadable.KEPT, scheduler.observeUnreadable(
                unreadable("j", "u", JobObservation.Phase.QUEUED, null, "12")));
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied("11"));
        assertEquals(0, cpu("team-a"), "re-suspended: no charge");
        clock.advance(Duration.ofMinutes(1));
        List<Admission> again = scheduler.schedule().admissions();
        assertTrue(again.isEmpty(), "a suspended job whose request cannot be read must not be admitted, got " + again);
    }

    /**
     * settle(StartedByHand)'s contract: "a later suspended copy is a re-suspension". When that copy (rv 14) reaches
     * the scheduler before the read-back's answer (rv 12) is handled, it is parked in {@code newest} and the
     * override never looks at it: the suspended job stays charged as started outside (the same race the previous
     * round fixed for settle(Applied)).
     */
    @Test
    void aResuspensionSeenBeforeTheOverrideAnswerIsReleased() {
        scheduler.observe(queued("j", "u", 3000, "10"));
        Admission a = admitOnly("j");
        // the user unsuspended j by hand (rv 11, skipped by the coalescing reconciler), our patch is refused, the
        // read-back shows rv 12 running; meanwhile the user puts the mark back (rv 14), delivered first
        scheduler.observe(queued("j", "u", 3000, "14"));
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.StartedByHand("12"));
        assertNotEquals(JobState.ADMITTED, scheduler.status(key("j")).orElseThrow().state(),
                "rv 14 > 12 carries the mark again: a re-suspension");
        assertEquals(0, cpu("team-a"));
    }

    /** The same race for settle(TakenOver): the copy newer than the version read is dropped by the new charge. */
    @Test
    void aResuspensionSeenBeforeTheTakeOverAnswerIsReleased() {
        scheduler.observe(queued("j", "u", 3000, "10"));
        Admission a = admitOnly("j");
        AdmissionRecord other = new AdmissionRecord("team-a", "2026-01-01T00:00:00.500Z");
        // another replica admitted j (rv 11); the read-back is at rv 12; the job is re-suspended at rv 14 by a
        // replace that drops the record, delivered before the read's answer is handled
        scheduler.observe(queued("j", "u", 3000, "14"));
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.TakenOver(other, "12"));
        assertNotEquals(JobState.ADMITTED, scheduler.status(key("j")).orElseThrow().state(),
                "rv 14 > 12 carries the mark again: a re-suspension");
        assertEquals(0, cpu("team-a"));
    }

    /**
     * noteRecord moves lastAdmittedAt to any parseable record time. A record at the very end of the
     * representable range (annotation written by hand on any job, by any tenant) makes the next admission's
     * time unformattable: schedule() throws in admit(), after the job was taken out of its queue, so the job is
     * lost (in no queue, not admitted) and every later cycle throws too: nothing is admitted cluster-wide.
     */
    @Test
    void aRecordAtTheEndOfTimeNeitherBreaksSchedulingNorLosesTheJob() {
        scheduler.observe(job("x", "ux", JobObservation.Phase.QUEUED, 1000,
                new AdmissionRecord("team-a", "+999999999-12-31T23:59:59.999Z"), "1"));
        scheduler.observe(queued("j", "u", 1000, "2"));
        RuntimeException thrown = null;
        try {
            scheduler.schedule();
        } catch (RuntimeException e) {
            thrown = e;
        }
        for (JobStatus s : scheduler.jobs()) {
            assertTrue(s.state() != null, s.key() + " is in no queue and not admitted: lost (cycle threw " + thrown + ")");
        }
        assertDoesNotThrow(() -> scheduler.schedule(), "one tenant's annotation must not stop every admission");
    }

    /**
     * JobStatus.group is "the group it queues in (pending) ... null if none". A queued job whose namespace leaves
     * the tree is held NO_QUOTA_GROUP but keeps reporting its old group: status() disagrees with groups() and
     * pending() (which do not list it there), and JobFeed emits "queued in quota group team-a" for a job that has
     * no group.
     */
    @Test
    void aJobHeldForNoQuotaGroupReportsNoGroup() {
        scheduler.observe(queued("j", "u", 1000, "1"));
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("team-b", "root", List.of("b"), null, Resources.of("cpu", 4000L)))));
        JobStatus s = scheduler.status(key("j")).orElseThrow();
        assertEquals(JobState.HELD, s.state());
        assertEquals(Hold.Reason.NO_QUOTA_GROUP, s.hold().kind());
        assertEquals(null, s.group(), "held for having no quota group, yet reports group " + s.group());
    }

    /**
     * §3: a non-preemptible job must keep non-preemptible used + request ≤ min; §2: a running job with an
     * unknown request holds "its group and every group above it that sets a limit". A tree that sets only
     * min (valid: ElasticQuotaTreeSource checks min ≤ max only where both are set) is not held by a running
     * non-preemptible job of unknown use, so a second non-preemptible job is admitted into a min that may
     * already be full.
     */
    @Test
    void anUnknownNonPreemptibleChargeHoldsAGroupThatSetsOnlyMin() {
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("team-a", null, List.of("a"), Resources.of("cpu", 4000L), null))));
        JobObservation running = new JobObservation(key("w"), "uw", JobObservation.Phase.STARTED_DESPITE_MARK,
                Resources.NONE, JobPriority.NONE, T0, null, false, null, "1");
        assertEquals(Unreadable.HOLDS_GROUP, scheduler.observeUnreadable(running));
        scheduler.observe(new JobObservation(key("k"), "uk", JobObservation.Phase.QUEUED, Resources.of("cpu", 4000L),
                JobPriority.NONE, T0, null, false, null, "2"));
        List<Admission> admitted = scheduler.schedule().admissions();
        assertTrue(admitted.isEmpty(), "w's guaranteed use is unknown: k (4 of min 4) must wait, got " + admitted);
    }

    /**
     * §2: "A suspended job left out of the queue for an unreadable request is remembered: started by hand, it is
     * charged". The memory is keyed by name only when a FINISHED arrives: a late delete of an older namesake
     * (uid u1) wipes the memory of the current job (u2), which is then started by hand uncharged. observe()
     * guards its entry against exactly this ("an older job of the same name ended; the one we hold is another").
     */
    @Test
    void aLateDeleteOfAnOlderNamesakeDoesNotForgetAWithdrawnJob() {
        scheduler.observe(queued("j", "u2", 3000, "20"));
        scheduler.observeUnreadable(unreadable("j", "u2", JobObservation.Phase.QUEUED, null, "21"));
        scheduler.observe(JobObservation.finished(key("j"), "u1")); // the old j's delete hook runs late
        scheduler.observe(job("j", "u2", JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD, 3000, null, "22"));
        assertEquals(3000, cpu("team-a"), "u2 was queued here and runs: its 3 cpu must be charged");
    }
}
