package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Observed;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * A seam between the signed records and the started-outside cap (issue 25, review). A job kube-queue admitted and
 * that was then suspended again (by its user, or by kube-queue's own eviction, which leaves the record on the job)
 * still carries kube-queue's signed record: it is trusted, but it is spent, since the job has queued again since.
 * Its tenant then raises its request and removes the mark by hand. That start is not kube-queue's admission: the job
 * must be charged as started outside (its group full, the groups above counting it only up to the group's max), as
 * docs/security.md's contract promises for "a mark removed by hand, however large". It was charged as kube-queue's
 * admission under the spent record instead: in full at root, so one team's job stopped every other team.
 */
class ResumedWithSpentRecordTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final JobKey HUGE = new JobKey("Job", "a", "huge");

    MutableClock clock;
    Scheduler scheduler;

    @BeforeEach
    void start() {
        clock = new MutableClock(T0);
        scheduler = new Scheduler(SchedulerSettings.defaults(), clock);
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("team-a", "root", List.of("a"), null, Resources.of("cpu", 4000L)),
                new QuotaNode("team-b", "root", List.of("b"), null, Resources.of("cpu", 4000L)))));
    }

    private Observed observe(JobKey key, JobObservation.Phase phase, long cpu, AdmissionRecord record, String version) {
        return scheduler.observe(new JobObservation(key, "u-" + key.name(), phase, Resources.of("cpu", cpu),
                JobPriority.NONE, T0, null, true, record, version));
    }

    private List<String> admitted() {
        return scheduler.schedule().admissions().stream().map(a -> a.key().name()).sorted().toList();
    }

    /** Admits team-a's 1-cpu job, sees it run, and sees its user suspend it again: the record stays on it. */
    private AdmissionRecord admittedThenSuspendedAgain() {
        observe(HUGE, JobObservation.Phase.QUEUED, 1000, null, "1");
        CycleResult cycle = scheduler.schedule();
        assertEquals(1, cycle.admissions().size());
        AdmissionRecord record = cycle.admissions().get(0).record();
        observe(HUGE, JobObservation.Phase.ADMITTED, 1000, record, "2"); // it runs
        assertEquals(Observed.Change.REQUEUED, observe(HUGE, JobObservation.Phase.QUEUED, 1000, record, "3").change(),
                "suspended again by its user: its room goes back, it queues again");
        return record;
    }

    @Test
    void aJobResumedByHandUnderItsSpentRecordIsChargedAsStartedOutside() {
        AdmissionRecord spent = admittedThenSuspendedAgain();
        // its user asks for 100 cpu and removes the mark: kube-queue's signed record is still on it, unchanged
        Observed resumed = observe(HUGE, JobObservation.Phase.ADMITTED, 100_000, spent, "4");

        assertEquals(Observed.Change.CHARGED_STARTED_OUTSIDE, resumed.change(),
                "kube-queue did not admit this start: it is charged as started outside, and its record written");
        assertTrue(scheduler.status(HUGE).orElseThrow().record().startedOutside());
        observe(new JobKey("Job", "b", "b-job"), JobObservation.Phase.QUEUED, 4000, null, "1");
        clock.advance(Duration.ofMinutes(1));
        assertEquals(List.of("b-job"), admitted(), "root counts team-a at its max 4 and has 4 left for team-b");
    }

    @Test
    void aJobResumedByHandAfterKubeQueueEvictedItIsChargedAsStartedOutside() {
        // an eviction (reclaim, admission timeout) suspends the job and leaves its record on it, as the informer
        // then shows it: the same copy as a suspension by its user, for the scheduler
        AdmissionRecord spent = admittedThenSuspendedAgain();
        observe(HUGE, JobObservation.Phase.ADMITTED, 1000, spent, "4"); // resumed by hand, same request

        assertTrue(scheduler.status(HUGE).orElseThrow().record().startedOutside(),
                "not admitted by kube-queue: never timed out or reclaimed as its admission, and capped above");
    }

    @Test
    void anotherReplicasNewAdmissionOfAQueuedJobIsStillCharged() {
        // a follower: it saw the job queued with its old record, then running under the leader's new one
        AdmissionRecord spent = admittedThenSuspendedAgain();
        AdmissionRecord leaders = new AdmissionRecord("team-a", "2026-01-01T00:05:00.000Z");
        Observed charged = observe(HUGE, JobObservation.Phase.ADMITTED, 1000, leaders, "4");

        assertEquals(Observed.Change.CHARGED, charged.change());
        assertEquals(leaders, scheduler.status(HUGE).orElseThrow().record());
        assertTrue(!spent.equals(leaders));
    }

    @Test
    void aReadBackThatFindsTheSpentRecordSettlesTheAdmissionAsStartedByHand() {
        // the tenant removes the mark while kube-queue's new admission is on its way: the patch is refused (its test
        // op finds no mark) and the read-back finds kube-queue's old record, which verifies: not another replica's
        // admission, but the spent record of a job started by hand
        AdmissionRecord spent = admittedThenSuspendedAgain();
        clock.advance(Duration.ofMinutes(1));
        CycleResult cycle = scheduler.schedule();
        assertEquals(1, cycle.admissions().size());
        AdmissionRecord ours = cycle.admissions().get(0).record();
        java.util.Optional<AdmissionRecord> toWrite = scheduler.settle(HUGE, ours,
                new AdmissionOutcome.TakenOver(spent, "4"));

        assertTrue(toWrite.isPresent() && toWrite.get().startedOutside(), "the started-outside record to write: "
                + toWrite);
        assertTrue(scheduler.status(HUGE).orElseThrow().record().startedOutside());
        observe(HUGE, JobObservation.Phase.ADMITTED, 1000, spent, "4"); // the running copy follows
        assertTrue(scheduler.status(HUGE).orElseThrow().record().startedOutside());
    }

    @Test
    void kubeQueuesOwnAdmissionIsNeverSpentEvenIfAnEarlierRecordIsDatedAfterIt() {
        // a record written by a replica whose clock ran hours ahead (AdmissionClock does not move past it)
        observe(HUGE, JobObservation.Phase.QUEUED, 1000, new AdmissionRecord("team-a", "2026-01-01T05:00:00.000Z"),
                "1");
        CycleResult cycle = scheduler.schedule();
        AdmissionRecord ours = cycle.admissions().get(0).record();
        scheduler.settle(HUGE, ours, new AdmissionOutcome.Applied("2"));
        assertEquals(Observed.Change.UPDATED, observe(HUGE, JobObservation.Phase.ADMITTED, 1000, ours, "2").change());
        assertEquals(ours, scheduler.status(HUGE).orElseThrow().record());
    }

    @Test
    void aJobResumedByHandUnderTheRecordOfAnEarlierAdmissionIsChargedAsStartedOutside() {
        // admitted twice: the user keeps the first admission's signed set and writes it back as they start the job
        AdmissionRecord first = admittedThenSuspendedAgain();
        clock.advance(Duration.ofMinutes(1));
        CycleResult again = scheduler.schedule();
        assertEquals(1, again.admissions().size());
        AdmissionRecord second = again.admissions().get(0).record();
        observe(HUGE, JobObservation.Phase.ADMITTED, 1000, second, "5");
        observe(HUGE, JobObservation.Phase.QUEUED, 1000, second, "6"); // suspended again, carrying the second
        Observed resumed = observe(HUGE, JobObservation.Phase.ADMITTED, 100_000, first, "7");

        assertEquals(Observed.Change.CHARGED_STARTED_OUTSIDE, resumed.change());
        observe(new JobKey("Job", "b", "b-job"), JobObservation.Phase.QUEUED, 4000, null, "1");
        clock.advance(Duration.ofMinutes(1));
        assertEquals(List.of("b-job"), admitted());
    }

    @Test
    void aJobSuspendedWithoutItsRecordAndResumedWithItWrittenBackIsChargedAsStartedOutside() {
        // suspended again with its annotations wiped (kubectl replace of the original manifest), the signed set kept
        // aside and written back as the mark is removed
        observe(HUGE, JobObservation.Phase.QUEUED, 1000, null, "1");
        AdmissionRecord record = scheduler.schedule().admissions().get(0).record();
        observe(HUGE, JobObservation.Phase.ADMITTED, 1000, record, "2");
        assertEquals(Observed.Change.REQUEUED, observe(HUGE, JobObservation.Phase.QUEUED, 100_000, null, "3").change());
        Observed resumed = observe(HUGE, JobObservation.Phase.ADMITTED, 100_000, record, "4");

        assertEquals(Observed.Change.CHARGED_STARTED_OUTSIDE, resumed.change());
    }

    @Test
    void anotherReplicasAdmissionAfterARecordDatedHoursAheadIsNotSpent() {
        // a follower: the job queued carrying a record a replica wrote with its clock hours ahead, then the leader
        // (clock right) admits it: its record is dated before that one, and is no less the leader's admission
        observe(HUGE, JobObservation.Phase.QUEUED, 1000, new AdmissionRecord("team-a", "2026-01-01T05:00:00.000Z"),
                "1");
        AdmissionRecord leaders = new AdmissionRecord("team-a", "2026-01-01T00:00:00.000Z");
        assertEquals(Observed.Change.CHARGED, observe(HUGE, JobObservation.Phase.ADMITTED, 1000, leaders, "2").change());
        assertEquals(leaders, scheduler.status(HUGE).orElseThrow().record());
    }
}
