package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.eviction.Evictions;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
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

/** The admission timeout in the core (issue 16; docs/policies.md, "Admission timeout"). */
class AdmissionTimeoutTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final JobKey JOB = new JobKey("Job", "a", "train");

    private final MutableClock clock = new MutableClock(T0);
    private Scheduler scheduler;
    private int version = 1;

    private Scheduler start(Duration global, Duration teamTimeout, Duration rootTimeout) {
        Scheduler s = new Scheduler(SchedulerSettings.defaults().withAdmissionTimeout(global), clock);
        s.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 4000L)).withAdmissionTimeout(rootTimeout),
                new QuotaNode("team-a", "root", List.of("a"), null, Resources.of("cpu", 4000L))
                        .withAdmissionTimeout(teamTimeout))));
        return s;
    }

    private JobObservation job(JobObservation.Phase phase, AdmissionRecord record, boolean stoppable,
                               EvictionMarks marks) {
        return new JobObservation(JOB, "uid-1", phase, Resources.of("cpu", 2000L), JobPriority.of(0), T0, null, true,
                record, Integer.toString(version++), stoppable, marks);
    }

    /** Submits and admits the job (patch applied, seen running); returns its admission. */
    private Admission admit(boolean stoppable) {
        scheduler.observe(job(JobObservation.Phase.QUEUED, null, stoppable, EvictionMarks.NONE));
        Admission a = scheduler.schedule().admissions().get(0);
        scheduler.settle(JOB, a.record(), new AdmissionOutcome.Applied(Integer.toString(version)));
        scheduler.observe(job(JobObservation.Phase.ADMITTED, a.record(), stoppable, EvictionMarks.NONE));
        return a;
    }

    @Test
    void anAdmittedJobWithoutARunningPodIsEvictedWhenTheTimeoutPassesAndReleasedOnceSeenSuspended() {
        scheduler = start(Duration.ofMinutes(10), null, null);
        scheduler.podsListed();
        Admission a = admit(true);
        assertEquals(Optional.of(T0.plus(Duration.ofMinutes(10))), scheduler.nextRetry(), "the loop wakes at the deadline");

        clock.advance(Duration.ofMinutes(9));
        assertEquals(List.of(), scheduler.schedule().evictions());
        clock.advance(Duration.ofMinutes(1));
        List<Eviction> due = scheduler.schedule().evictions();

        assertEquals(1, due.size());
        Eviction e = due.get(0);
        assertEquals(Eviction.Reason.TIMEOUT, e.reason());
        assertEquals(a.record(), e.record());
        assertNull(e.preemptor());
        assertEquals(List.of(clock.instant()), e.history().timedOutAt());
        assertEquals(2000, scheduler.usage("team-a").get("cpu"), "charged until seen suspended");

        scheduler.settleEviction(JOB, e.record(), new EvictionOutcome.Applied("50"));
        assertEquals(List.of(), scheduler.schedule().evictions(), "decided once");
        scheduler.observe(job(JobObservation.Phase.QUEUED, a.record(), true, e.history()));

        assertEquals(0, scheduler.usage("team-a").get("cpu"), "its quota is released");
        JobStatus requeued = scheduler.status(JOB).orElseThrow();
        assertEquals(JobState.BACKOFF, requeued.state());
        assertEquals(clock.instant().plus(Evictions.TIMEOUT_BACKOFF), requeued.retryAt());
        assertEquals(List.of(), scheduler.schedule().admissions(), "not admitted again during its backoff");
        clock.advance(Evictions.TIMEOUT_BACKOFF);
        assertEquals(1, scheduler.schedule().admissions().size());
    }

    @Test
    void aPodThatRanDisarmsTheTimeout() {
        scheduler = start(Duration.ofMinutes(10), null, null);
        scheduler.podsListed();
        admit(true);
        scheduler.podRan(JOB);
        clock.advance(Duration.ofHours(1));
        assertEquals(List.of(), scheduler.schedule().evictions());
        assertEquals(Optional.empty(), scheduler.nextRetry());
    }

    @Test
    void noTimeoutIsDecidedBeforeThePodsAreListedNorForAJobThatSuspendingDoesNotStop() {
        scheduler = start(Duration.ofMinutes(10), null, null);
        admit(true);
        clock.advance(Duration.ofMinutes(11));
        assertEquals(List.of(), scheduler.schedule().evictions(), "pods not listed yet: a pod may run unseen");
        scheduler.podsListed();
        assertEquals(1, scheduler.schedule().evictions().size());

        scheduler = start(Duration.ofMinutes(10), null, null);
        scheduler.podsListed();
        admit(false);
        clock.advance(Duration.ofMinutes(11));
        assertEquals(List.of(), scheduler.schedule().evictions(), "a Workflow, say: suspending it stops nothing");
    }

    @Test
    void aGroupsOwnTimeoutWinsItsAncestorsIsInheritedAndZeroSwitchesItOff() {
        scheduler = start(Duration.ofMinutes(10), Duration.ofMinutes(2), null);
        scheduler.podsListed();
        admit(true);
        clock.advance(Duration.ofMinutes(2));
        assertEquals(1, scheduler.schedule().evictions().size(), "team-a's own 2 minutes");

        scheduler = start(null, null, Duration.ofMinutes(3));
        scheduler.podsListed();
        admit(true);
        clock.advance(Duration.ofMinutes(3));
        assertEquals(1, scheduler.schedule().evictions().size(), "the root's 3 minutes, inherited, without a global one");

        scheduler = start(Duration.ofMinutes(10), Duration.ZERO, Duration.ofMinutes(3));
        scheduler.podsListed();
        admit(true);
        clock.advance(Duration.ofHours(2));
        assertEquals(List.of(), scheduler.schedule().evictions(), "zero: off for team-a, whatever is above");
    }

    @Test
    void aRefusedTimeoutEvictionLeavesTheJobChargedAndIsNotRepeatedForThatAdmission() {
        scheduler = start(Duration.ofMinutes(10), null, null);
        scheduler.podsListed();
        Admission a = admit(true);
        clock.advance(Duration.ofMinutes(10));
        Eviction e = scheduler.schedule().evictions().get(0);
        scheduler.settleEviction(JOB, e.record(), EvictionOutcome.REFUSED);
        clock.advance(Duration.ofMinutes(30));
        assertEquals(List.of(), scheduler.schedule().evictions());
        assertEquals(a.record(), scheduler.status(JOB).orElseThrow().record());
    }

    @Test
    void afterARestartATimedOutJobKeepsItsBackoffFromTheMarksItCarries() {
        scheduler = start(Duration.ofMinutes(10), null, null);
        Instant timedOut = T0.minusSeconds(20);
        EvictionMarks marks = new EvictionMarks(Eviction.Reason.TIMEOUT, null, List.of(), List.of(timedOut));
        scheduler.observe(job(JobObservation.Phase.QUEUED, new AdmissionRecord("team-a", "2025-12-31T23:49:00.000Z"),
                true, marks));
        JobStatus status = scheduler.status(JOB).orElseThrow();
        assertEquals(JobState.BACKOFF, status.state());
        assertEquals(timedOut.plus(Evictions.TIMEOUT_BACKOFF), status.retryAt());
        assertTrue(scheduler.schedule().admissions().isEmpty());
    }

    @Test
    void theBackoffDoublesWithEachTimeoutInTheHourUpToItsCap() {
        assertEquals(Duration.ofMinutes(1), Evictions.timeoutBackoff(1));
        assertEquals(Duration.ofMinutes(2), Evictions.timeoutBackoff(2));
        assertEquals(Duration.ofMinutes(16), Evictions.timeoutBackoff(5));
        assertEquals(Evictions.TIMEOUT_BACKOFF_MAX, Evictions.timeoutBackoff(9));
    }
}
