package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
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
import io.kubequeue.scheduler.model.SchedulingPolicy;

class SchedulerTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final long GI = 1L << 30;

    private MutableClock clock;
    private Scheduler scheduler;

    @BeforeEach
    void setUp() {
        clock = new MutableClock(T0);
        scheduler = new Scheduler(SchedulerSettings.defaults(), clock);
        // root (cpu 8) -> team-a (cpu 4, ns a), team-b (cpu 6, ns b)
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("team-a", "root", List.of("a"), null, Resources.of("cpu", 4000L, "memory", 4 * GI)),
                new QuotaNode("team-b", "root", List.of("b"), null, Resources.of("cpu", 6000L)))));
    }

    private static JobObservation queued(String ns, String name, long millicores, int priority, int createdSecond) {
        return new JobObservation(new JobKey("Job", ns, name), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", millicores), JobPriority.of(priority), T0.plusSeconds(createdSecond), null, true, null);
    }

    private List<String> admittedNames() {
        return scheduler.schedule().admissions().stream().map(a -> a.key().name()).toList();
    }

    @Test
    void admitsWhatFitsAtTheLeafAndKeepsTheRestPending() {
        scheduler.observe(queued("a", "j1", 3000, 0, 1));
        scheduler.observe(queued("a", "j2", 3000, 0, 2));

        assertEquals(List.of("j1"), admittedNames());
        assertEquals(3000, scheduler.usage("team-a").get("cpu"));
        assertEquals(3000, scheduler.usage("root").get("cpu"));
        assertEquals(JobState.BACKOFF, scheduler.status(new JobKey("Job", "a", "j2")).orElseThrow().state());
    }

    /** The metric kube_queue_head_fits: a group is listed while its first pending job fits, and only then. */
    @Test
    void aGroupIsListedWhileItsHeadFitsAndNotOnceItIsAdmitted() {
        scheduler.observe(queued("a", "j1", 3000, 0, 1));
        scheduler.observe(queued("a", "j2", 3000, 0, 2));
        assertEquals(java.util.Set.of("team-a"), scheduler.groupsWhoseHeadFits(), "j1 fits and is not admitted yet");
        assertEquals(List.of("j1"), admittedNames());
        assertEquals(java.util.Set.of(), scheduler.groupsWhoseHeadFits(), "j2, now the head, does not fit");

        scheduler.observe(JobObservation.finished(new JobKey("Job", "a", "j1")));
        assertEquals(java.util.Set.of("team-a"), scheduler.groupsWhoseHeadFits(),
                "j2 fits again; backed off, it waits for its backoff to end");
    }

    @Test
    void anAncestorsMaxLimitsAdmissionEvenWhenTheLeafHasRoom() {
        scheduler.observe(queued("b", "b1", 5000, 0, 1));
        scheduler.observe(queued("a", "a1", 4000, 0, 2));

        // b1 (5) fits b (6) and root (8); a1 (4) fits a (4) but not root: 5 + 4 > 8
        assertEquals(List.of("b1"), admittedNames());
        assertEquals(5000, scheduler.usage("root").get("cpu"));
        assertEquals(0, scheduler.usage("team-a").get("cpu"));
    }

    @Test
    void releaseReturnsQuotaAndTheNextJobIsAdmittedAfterItsBackoff() {
        scheduler.observe(queued("a", "j1", 3000, 0, 1));
        scheduler.observe(queued("a", "j2", 3000, 0, 2));
        assertEquals(List.of("j1"), admittedNames());

        scheduler.observe(JobObservation.finished(new JobKey("Job", "a", "j1")));
        assertEquals(0, scheduler.usage("team-a").get("cpu"));
        assertEquals(0, scheduler.usage("root").get("cpu"));
        assertEquals(List.of(), admittedNames(), "j2 still backs off under the default policy");

        clock.advance(Duration.ofSeconds(1));
        assertEquals(List.of("j2"), admittedNames());
    }

    @Test
    void ordersByPriorityThenCreationThenName() {
        scheduler.observe(queued("a", "late-low", 1000, 0, 5));
        scheduler.observe(queued("a", "early-low", 1000, 0, 1));
        scheduler.observe(queued("a", "late-high", 1000, 10, 9));
        scheduler.observe(queued("a", "b-tie", 1000, 0, 3));
        scheduler.observe(queued("a", "a-tie", 1000, 0, 3));

        // team-a holds 4 cpu: the four first in order are admitted, in that order
        assertEquals(List.of("late-high", "early-low", "a-tie", "b-tie"), admittedNames());
    }

    @Test
    void backoffDoublesFromOneSecondToTwentyAndNoFurther() {
        scheduler.observe(queued("a", "big-running", 4000, 0, 0));
        assertEquals(List.of("big-running"), admittedNames());
        scheduler.observe(queued("a", "waiting", 1000, 0, 1));

        long[] expectedSeconds = {1, 2, 4, 8, 16, 20, 20};
        for (long seconds : expectedSeconds) {
            Instant before = clock.instant();
            assertEquals(List.of(), admittedNames());
            Instant retryAt = scheduler.nextRetry().orElseThrow();
            assertEquals(Duration.ofSeconds(seconds), Duration.between(before, retryAt));
            clock.advance(Duration.ofSeconds(seconds).minusMillis(1));
            assertEquals(List.of(), admittedNames(), "not retried before the backoff has passed");
            assertEquals(retryAt, scheduler.nextRetry().orElseThrow());
            clock.advance(Duration.ofMillis(1));
        }
    }

    @Test
    void anExpiredJobThatStillDoesNotFitCountsAsTriedAndWaitsTwiceAsLong() {
        scheduler.observe(queued("a", "big-running", 4000, 0, 0));
        admittedNames();
        scheduler.observe(queued("a", "waiting", 1000, 0, 1));
        CycleResult first = scheduler.schedule();
        assertEquals(1, first.tried());
        assertEquals(1, first.notFitting());

        clock.advance(Duration.ofSeconds(1));
        CycleResult expired = scheduler.schedule();
        assertEquals(List.of(), expired.admissions());
        assertEquals(1, expired.tried());
        assertEquals(1, expired.notFitting());
        assertEquals(List.of(), expired.unschedulable(), "only a job's first failure is reported");
        JobStatus waiting = scheduler.status(new JobKey("Job", "a", "waiting")).orElseThrow();
        assertEquals(JobState.BACKOFF, waiting.state());
        assertEquals(2, waiting.attempts());
        assertEquals(clock.instant().plusSeconds(2), waiting.retryAt());
        assertEquals(1, scheduler.pending("team-a").size());
    }

    @Test
    void expiredJobsAreTriedInQueueOrderNotInTheOrderTheirBackoffsEnd() {
        scheduler.observe(queued("a", "running", 4000, 0, 0));
        admittedNames();
        scheduler.observe(queued("a", "low-first", 2000, 0, 1));
        admittedNames();
        clock.advance(Duration.ofMillis(500));
        scheduler.observe(queued("a", "high-later", 3000, 5, 2));
        admittedNames();
        scheduler.observe(JobObservation.finished(new JobKey("Job", "a", "running")));

        clock.advance(Duration.ofSeconds(1)); // both backoffs have ended, low-first's half a second earlier
        assertEquals(List.of("high-later"), admittedNames());
        assertEquals(2, scheduler.status(new JobKey("Job", "a", "low-first")).orElseThrow().attempts());
    }

    @Test
    void aJobBehindANonFittingOneMayPassUnderTheDefaultPolicy() {
        scheduler.observe(queued("a", "running", 2000, 0, 0));
        admittedNames();
        scheduler.observe(queued("a", "big", 3000, 5, 1));
        scheduler.observe(queued("a", "small", 1000, 0, 2));
        assertEquals(List.of("small"), admittedNames());
    }

    @Test
    void blockingPolicyAdmitsNothingBehindANonFittingHead() {
        scheduler = new Scheduler(new SchedulerSettings(SchedulingPolicy.BLOCKING_QUEUE, Duration.ofSeconds(1),
                Duration.ofSeconds(20)), clock);
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("team-a", null, List.of("a"), null, Resources.of("cpu", 4000L)),
                new QuotaNode("team-b", null, List.of("b"), null, Resources.of("cpu", 4000L)))));
        scheduler.observe(queued("a", "running", 2000, 0, 0));
        admittedNames();
        scheduler.observe(queued("a", "big", 3000, 5, 1));
        scheduler.observe(queued("a", "small", 1000, 0, 2));
        scheduler.observe(queued("b", "other-group", 1000, 0, 3));
        assertEquals(List.of("other-group"), admittedNames());

        scheduler.observe(JobObservation.finished(new JobKey("Job", "a", "running")));
        assertEquals(List.of("big", "small"), admittedNames());
    }

    @Test
    void aJobInNoGroupIsHeldOnceAndQueuedWhenTheTreeNamesItsNamespace() {
        scheduler.observe(queued("nowhere", "lost", 1000, 0, 1));
        CycleResult first = scheduler.schedule();
        assertEquals(List.of(), first.admissions());
        assertEquals(1, first.holds().size());
        assertEquals(Hold.Reason.NO_QUOTA_GROUP, first.holds().get(0).kind());
        assertTrue(first.holds().get(0).reason().toString().contains("nowhere"));
        assertEquals(List.of(), scheduler.schedule().holds(), "a hold is reported once");

        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("found", null, List.of("nowhere"), null, Resources.of("cpu", 1000L)))));
        assertEquals(List.of("lost"), admittedNames());
    }

    @Test
    void aJobLargerThanAnyMaxOnItsPathIsHeldAndBlocksNobody() {
        scheduler.observe(queued("b", "huge", 7000, 100, 1)); // b max 6
        scheduler.observe(queued("b", "small", 1000, 0, 2));
        CycleResult result = scheduler.schedule();
        assertEquals(List.of("small"), result.admissions().stream().map(a -> a.key().name()).toList());
        assertEquals(Hold.Reason.NEVER_FITS, result.holds().get(0).kind());
        assertEquals("cpu: request 7 exceeds max 6 of quota group team-b", result.holds().get(0).reason().toString());
    }

    @Test
    void recoveredAdmittedJobsAreChargedBeforeAnythingIsAdmitted() {
        AdmissionRecord record = new AdmissionRecord("team-a", "2026-01-01T00:00:00.5Z");
        scheduler.observe(new JobObservation(new JobKey("TFJob", "a", "old"), null, JobObservation.Phase.ADMITTED,
                Resources.of("cpu", 3000L), JobPriority.NONE, T0, null, true, record));
        scheduler.observe(queued("a", "new", 2000, 0, 1));
        assertEquals(List.of(), admittedNames());
        assertEquals(3000, scheduler.usage("team-a").get("cpu"));
    }

    @Test
    void staleQueuedObservationDoesNotUndoAnAdmissionButAResuspensionDoes() {
        JobObservation job = queued("a", "j", 3000, 0, 1);
        scheduler.observe(job);
        Admission admission = scheduler.schedule().admissions().get(0);

        scheduler.observe(job); // the cache has not seen our patch yet
        assertEquals(JobState.ADMITTED, scheduler.status(job.key()).orElseThrow().state());
        assertEquals(3000, scheduler.usage("team-a").get("cpu"));

        scheduler.observe(new JobObservation(job.key(), null, JobObservation.Phase.QUEUED, job.request(), JobPriority.NONE,
                job.createdAt(), null, true, admission.record())); // mark put back after admission
        assertEquals(JobState.ACTIVE, scheduler.status(job.key()).orElseThrow().state());
        assertEquals(0, scheduler.usage("team-a").get("cpu"));
    }

    @Test
    void aJobReCreatedUnderTheSameNameIsANewJobAndTheOldOnesQuotaIsReleased() {
        JobKey key = new JobKey("Job", "a", "same-name");
        scheduler.observe(new JobObservation(key, "uid-1", JobObservation.Phase.QUEUED, Resources.of("cpu", 3000L),
                JobPriority.NONE, T0, null, true, null));
        assertEquals(List.of("same-name"), admittedNames());

        // the delete of uid-1 was never seen on its own: the next event already shows the new object
        scheduler.observe(new JobObservation(key, "uid-2", JobObservation.Phase.QUEUED, Resources.of("cpu", 3000L),
                JobPriority.NONE, T0.plusSeconds(60), null, true, null));
        assertEquals(0, scheduler.usage("team-a").get("cpu"));
        assertEquals(List.of("same-name"), admittedNames());
    }

    @Test
    void anAdmittedJobWhoseRequestGrowsIsChargedItsNewRequest() {
        JobObservation small = queued("a", "grows", 1000, 0, 1);
        scheduler.observe(small);
        Admission admission = scheduler.schedule().admissions().get(0);
        // parallelism raised on the running Job: the same admission record, a bigger request
        scheduler.observe(new JobObservation(small.key(), null, JobObservation.Phase.ADMITTED, Resources.of("cpu", 4000L),
                JobPriority.NONE, small.createdAt(), null, true, admission.record()));
        assertEquals(4000, scheduler.usage("team-a").get("cpu"));
        scheduler.observe(queued("a", "next", 3000, 0, 2));
        assertEquals(List.of(), admittedNames(), "4 of 4 cpu are in use");
    }

    @Test
    void aJobAdmittedIntoAGroupThatWasRenamedIsChargedToItsNamespacesNewGroup() {
        scheduler.observe(queued("a", "running", 3000, 0, 1));
        assertEquals(List.of("running"), admittedNames());
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("renamed", null, List.of("a"), null, Resources.of("cpu", 4000L)))));
        assertEquals(3000, scheduler.usage("renamed").get("cpu"));
        scheduler.observe(queued("a", "next", 3000, 0, 2));
        assertEquals(List.of(), admittedNames(), "3 + 3 > 4 in the renamed group");
    }

    @Test
    void recoveryIntoATreeRenamedWhileDownChargesTheNamespacesGroup() {
        scheduler.observe(new JobObservation(new JobKey("Job", "a", "old"), null, JobObservation.Phase.ADMITTED,
                Resources.of("cpu", 3000L), JobPriority.NONE, T0, null, true, new AdmissionRecord("gone-group", "2026-01-01T00:00:00Z")));
        assertEquals(3000, scheduler.usage("team-a").get("cpu"));
    }

    @Test
    void usageNearTheLimitsOfLongDoesNotWrapAround() {
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("huge", null, List.of("a"), null, Resources.of("memory", Long.MAX_VALUE)))));
        JobObservation big = new JobObservation(new JobKey("Job", "a", "big"), null, JobObservation.Phase.QUEUED,
                Resources.of("memory", Long.MAX_VALUE - 10), JobPriority.NONE, T0, null, true, null);
        JobObservation more = new JobObservation(new JobKey("Job", "a", "more"), null, JobObservation.Phase.QUEUED,
                Resources.of("memory", 100L), JobPriority.NONE, T0.plusSeconds(1), null, true, null);
        scheduler.observe(big);
        scheduler.observe(more);
        assertEquals(List.of("big"), admittedNames());
    }

    @Test
    void withNoQuotaGroupsAtAllTheHoldSaysSo() {
        scheduler.replaceTree(QuotaTree.EMPTY);
        scheduler.observe(queued("a", "j", 1000, 0, 1));
        assertEquals("no quota groups are in force yet (quota objects unreadable, or no valid ElasticQuotaTree)",
                scheduler.schedule().holds().get(0).reason().toString());
    }

    @Test
    void aRefusedAdmissionIsUnchargedAndRetried() {
        JobObservation job = queued("a", "j", 3000, 0, 1);
        scheduler.observe(job);
        Admission admission = scheduler.schedule().admissions().get(0);
        scheduler.settle(job.key(), admission.record(), AdmissionOutcome.REFUSED);
        assertEquals(0, scheduler.usage("team-a").get("cpu"));
        assertEquals(JobState.BACKOFF, scheduler.status(job.key()).orElseThrow().state());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(List.of("j"), admittedNames());
    }

    @Test
    void aJobUnsuspendedByHandWhileItsAdmissionWasRefusedIsChargedWhenSeenRunning() {
        JobObservation job = queued("a", "by-hand", 3000, 0, 1);
        scheduler.observe(job);
        Admission admission = scheduler.schedule().admissions().get(0);
        scheduler.settle(job.key(), admission.record(), AdmissionOutcome.REFUSED); // the test op failed: the mark was gone
        scheduler.observe(new JobObservation(job.key(), null, JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD,
                job.request(), JobPriority.NONE, job.createdAt(), null, true, null)); // read back: running without our record
        assertEquals(JobState.ADMITTED, scheduler.status(job.key()).orElseThrow().state());
        assertEquals(3000, scheduler.usage("team-a").get("cpu"));
        scheduler.observe(queued("a", "next", 2000, 0, 2));
        assertEquals(List.of(), admittedNames());
    }

    @Test
    void maxJobsCapsTheNumberOfAdmittedJobs() {
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("capped", null, List.of("a"), null, Resources.of(Resources.MAX_JOBS, 2L)))));
        for (int i = 0; i < 3; i++) {
            scheduler.observe(queued("a", "j" + i, 100, 0, i));
        }
        assertEquals(List.of("j0", "j1"), admittedNames());
    }

    @Test
    void invalidTreesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new QuotaTree(List.of(
                new QuotaNode("x", null, List.of("ns"), null, null),
                new QuotaNode("y", null, List.of("ns"), null, null))));
        assertThrows(IllegalArgumentException.class, () -> new QuotaTree(List.of(
                new QuotaNode("x", null, List.of(), null, null),
                new QuotaNode("x", null, List.of(), null, null))));
        assertThrows(IllegalArgumentException.class, () -> new QuotaTree(List.of(
                new QuotaNode("x", "missing", List.of(), null, null))));
    }
}
