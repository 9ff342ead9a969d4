package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.PriorityClasses;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;
import io.kubequeue.scheduler.model.Unreadable;

/** The three policies, priority classes, min for non-preemptible jobs, usage outside kube-queue, and cost. */
class PoliciesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final MutableClock clock = new MutableClock(T0);

    private Scheduler scheduler(SchedulingPolicy policy, QuotaNode... nodes) {
        Scheduler s = new Scheduler(new SchedulerSettings(policy, Duration.ofSeconds(1), Duration.ofSeconds(20)), clock);
        s.replaceTree(new QuotaTree(List.of(nodes)));
        return s;
    }

    private static QuotaNode node(String name, String parent, String namespace, long maxCpu) {
        return new QuotaNode(name, parent, namespace == null ? List.of() : List.of(namespace), null,
                Resources.of("cpu", maxCpu));
    }

    private static JobObservation job(String ns, String name, long millicores, JobPriority priority, int createdSecond,
                                      boolean preemptible) {
        return new JobObservation(new JobKey("Job", ns, name), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", millicores), priority, T0.plusSeconds(createdSecond), null, preemptible, null);
    }

    private static JobObservation job(String ns, String name, long millicores, int createdSecond) {
        return job(ns, name, millicores, JobPriority.NONE, createdSecond, true);
    }

    private static List<String> names(CycleResult result) {
        return result.admissions().stream().map(a -> a.key().name()).toList();
    }

    private static JobKey key(String ns, String name) {
        return new JobKey("Job", ns, name);
    }

    // ---- min for non-preemptible jobs ------------------------------------------------------------------

    @Test
    void nonPreemptibleJobsMustFitInMinWhilePreemptibleOnesOnlyInMax() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, new QuotaNode("team", null, List.of("a"),
                Resources.of("cpu", 2000L), Resources.of("cpu", 6000L)));
        s.observe(job("a", "guaranteed-1", 2000, JobPriority.NONE, 1, false));
        s.observe(job("a", "guaranteed-2", 1000, JobPriority.NONE, 2, false));
        s.observe(job("a", "preemptible", 3000, JobPriority.NONE, 3, true));

        assertEquals(List.of("guaranteed-1", "preemptible"), names(s.schedule()));
        assertEquals(2000, s.guaranteedUsage("team").get("cpu"));
        assertEquals(5000, s.usage("team").get("cpu"));
        assertEquals(JobState.BACKOFF, s.status(key("a", "guaranteed-2")).orElseThrow().state(),
                "max has room for 1 more cpu, min has none");
    }

    @Test
    void anAncestorsMinLimitsNonPreemptibleJobsOfAllItsChildren() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT,
                new QuotaNode("root", null, List.of(), Resources.of("cpu", 3000L), Resources.of("cpu", 10000L)),
                new QuotaNode("a", "root", List.of("a"), Resources.of("cpu", 2000L), Resources.of("cpu", 5000L)),
                new QuotaNode("b", "root", List.of("b"), Resources.of("cpu", 2000L), Resources.of("cpu", 5000L)));
        s.observe(job("a", "a1", 2000, JobPriority.NONE, 1, false));
        s.observe(job("b", "b1", 2000, JobPriority.NONE, 2, false));
        assertEquals(List.of("a1"), names(s.schedule()), "root's min 3 cpu: 2 + 2 does not fit");
    }

    @Test
    void aNonPreemptibleJobLargerThanMinIsHeldSayingSo() {
        Scheduler s = scheduler(SchedulingPolicy.BLOCKING_QUEUE, new QuotaNode("team", null, List.of("a"),
                Resources.of("cpu", 1000L), Resources.of("cpu", 8000L)));
        s.observe(job("a", "too-big-for-min", 2000, JobPriority.NONE, 1, false));
        s.observe(job("a", "behind", 1000, JobPriority.NONE, 2, true));
        CycleResult result = s.schedule();
        assertEquals(List.of("behind"), names(result), "a job that can never fit blocks nobody, even when blocking");
        assertEquals(1, result.holds().size());
        assertTrue(result.holds().get(0).reason().toString().contains("exceeds min 1 of quota group team"),
                result.holds().get(0).reason().toString());
    }

    // ---- priority classes ------------------------------------------------------------------------------

    @Test
    void aPriorityClassCreatedAfterItsJobsReordersTheQueue() {
        Scheduler s = scheduler(SchedulingPolicy.BLOCKING_QUEUE, node("team", null, "a", 1000));
        s.observe(job("a", "running", 1000, 0));
        assertEquals(List.of("running"), names(s.schedule()));
        s.observe(job("a", "early-default", 1000, JobPriority.NONE, 1, true));
        s.observe(job("a", "late-urgent", 1000, JobPriority.ofClass("urgent"), 2, true));
        assertEquals(List.of(), names(s.schedule()));
        assertEquals(0, s.status(key("a", "late-urgent")).orElseThrow().priority(), "class does not exist yet");

        s.replacePriorityClasses(new PriorityClasses(Map.of("urgent", 1000), null));
        assertEquals(1000, s.status(key("a", "late-urgent")).orElseThrow().priority());
        s.observe(JobObservation.finished(key("a", "running")));
        assertEquals(List.of("late-urgent"), names(s.schedule()));
    }

    @Test
    void priorityIsTheClassValueElseTheExplicitValueElseTheGlobalDefaultElseZero() {
        PriorityClasses classes = new PriorityClasses(Map.of("high", 100, "everyday", 7), "everyday");
        assertEquals(100, classes.resolve(new JobPriority("high", 5)));
        assertEquals(5, classes.resolve(new JobPriority("missing", 5)));
        assertEquals(7, classes.resolve(JobPriority.NONE));
        assertEquals(7, classes.resolve(JobPriority.ofClass("missing")));
        assertEquals(0, PriorityClasses.NONE.resolve(JobPriority.NONE));
    }

    @Test
    void aChangedClassValueMovesBackedOffJobsToo() {
        Scheduler s = scheduler(SchedulingPolicy.RETRY_ON_RELEASE, node("team", null, "a", 2000));
        s.replacePriorityClasses(new PriorityClasses(Map.of("low", 1, "high", 10), null));
        s.observe(job("a", "running", 2000, 0));
        s.schedule();
        s.observe(job("a", "x", 2000, JobPriority.ofClass("high"), 1, true));
        s.observe(job("a", "y", 2000, JobPriority.ofClass("low"), 2, true));
        s.schedule(); // both back off
        s.replacePriorityClasses(new PriorityClasses(Map.of("low", 50, "high", 10), null));
        s.observe(JobObservation.finished(key("a", "running")));
        assertEquals(List.of("y"), names(s.schedule()));
    }

    // ---- the three policies on a release ---------------------------------------------------------------

    /** team (4 cpu) runs 3; big (3, high priority) and small (1) wait; the 3 finishes. */
    private Scheduler afterRelease(SchedulingPolicy policy) {
        Scheduler s = scheduler(policy, node("team", null, "a", 4000));
        s.observe(job("a", "running", 3000, 0));
        s.schedule();
        s.observe(job("a", "big", 3000, JobPriority.of(10), 1, true));
        assertEquals(List.of(), names(s.schedule()));
        s.observe(job("a", "small", 1000, JobPriority.of(0), 2, true));
        s.observe(JobObservation.finished(key("a", "running")));
        return s;
    }

    @Test
    void defaultPolicyLetsTheSmallJobPassWhileTheBigOneBacksOff() {
        Scheduler s = afterRelease(SchedulingPolicy.DEFAULT);
        assertEquals(List.of("small"), names(s.schedule()), "big still waits out its backoff");
        clock.advance(Duration.ofSeconds(1));
        assertEquals(List.of("big"), names(s.schedule()));
    }

    @Test
    void retryOnReleaseTriesTheHighestPriorityFirstAtOnce() {
        Scheduler s = afterRelease(SchedulingPolicy.RETRY_ON_RELEASE);
        assertEquals(List.of("big", "small"), names(s.schedule()));
    }

    @Test
    void blockingQueueRetriesItsHeadOnTheRelease() {
        Scheduler s = afterRelease(SchedulingPolicy.BLOCKING_QUEUE);
        assertEquals(List.of("big", "small"), names(s.schedule()));
    }

    /** Shrunk from a property-test failure: the release's mark was lost when the class change rebuilt the queue. */
    @Test
    void aReleaseIsStillRetriedWhenAPriorityClassChangesBeforeTheNextCycle() {
        Scheduler s = scheduler(SchedulingPolicy.RETRY_ON_RELEASE, node("team", null, "a", 2000));
        s.observe(job("a", "running", 2000, 0));
        s.schedule();
        s.observe(job("a", "waiting", 2000, JobPriority.ofClass("low"), 1, true));
        assertEquals(List.of(), names(s.schedule()));
        s.observe(JobObservation.finished(key("a", "running")));
        s.replacePriorityClasses(new PriorityClasses(Map.of("low", 5), null));
        assertEquals(List.of("waiting"), names(s.schedule()));
    }

    @Test
    void retryOnReleaseLeavesOtherTreesBackedOff() {
        Scheduler s = scheduler(SchedulingPolicy.RETRY_ON_RELEASE, node("x", null, "x", 1000), node("y", null, "y", 1000));
        s.observe(job("x", "x-running", 1000, 0));
        s.observe(job("y", "y-running", 1000, 0));
        s.schedule();
        s.observe(job("x", "x-waiting", 1000, 1));
        s.observe(job("y", "y-waiting", 1000, 1));
        s.schedule();
        s.observe(JobObservation.finished(key("x", "x-running")));
        CycleResult cycle = s.schedule();
        assertEquals(List.of("x-waiting"), names(cycle));
        assertEquals(1, cycle.tried(), "tree y had no release: y-waiting is not tried");
        assertEquals(JobState.BACKOFF, s.status(key("y", "y-waiting")).orElseThrow().state());
    }

    @Test
    void underTheBlockingQueueARefusedAdmissionStillBlocksItsGroup() {
        Scheduler s = scheduler(SchedulingPolicy.BLOCKING_QUEUE, node("team", null, "a", 4000));
        s.observe(job("a", "first", 3000, 1));
        Admission first = s.schedule().admissions().get(0);
        s.settle(first.key(), first.record(), AdmissionOutcome.REFUSED);
        s.observe(job("a", "second", 1000, 2));
        assertEquals(List.of(), names(s.schedule()), "second is behind first, which backs off after the refusal");
        clock.advance(Duration.ofSeconds(1));
        assertEquals(List.of("first", "second"), names(s.schedule()));
    }

    @Test
    void theLowestPossiblePriorityGoesLast() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 1000));
        s.observe(job("a", "lowest", 1000, JobPriority.of(Integer.MIN_VALUE), 1, true));
        s.observe(job("a", "normal", 1000, JobPriority.of(0), 2, true));
        assertEquals(List.of("normal"), names(s.schedule()));
    }

    // ---- suspended again -------------------------------------------------------------------------------

    @Test
    void aJobStartedByHandAndSuspendedAgainByHandIsReleasedAndQueued() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 4000));
        s.observe(job("a", "j", 3000, 1));
        s.observe(new JobObservation(key("a", "j"), null, JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD,
                Resources.of("cpu", 3000L), JobPriority.NONE, T0.plusSeconds(1), null, true, null));
        assertEquals(JobState.ADMITTED, s.status(key("a", "j")).orElseThrow().state());
        s.observe(job("a", "j", 3000, 1)); // suspended again, and it never had a record
        assertEquals(JobState.ACTIVE, s.status(key("a", "j")).orElseThrow().state());
        assertEquals(Resources.NONE, s.usage("team"));
    }

    @Test
    void anAdmittedJobSeenRunningThenSuspendedWithoutItsRecordIsReleasedAndQueued() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 4000));
        s.observe(job("a", "j", 3000, 1));
        Admission admission = s.schedule().admissions().get(0);
        JobObservation running = new JobObservation(key("a", "j"), null, JobObservation.Phase.ADMITTED,
                Resources.of("cpu", 3000L), JobPriority.NONE, T0.plusSeconds(1), null, true, admission.record());
        s.observe(job("a", "j", 3000, 1)); // the informer's stale copy, from before the patch: ignored
        assertEquals(JobState.ADMITTED, s.status(key("a", "j")).orElseThrow().state());
        s.observe(running); // the patch seen
        s.observe(job("a", "j", 3000, 1)); // kubectl replace of the original manifest: mark back, record gone
        assertEquals(JobState.ACTIVE, s.status(key("a", "j")).orElseThrow().state());
        assertEquals(Resources.NONE, s.usage("team"));
    }

    // ---- refused admissions, and a job started by hand meanwhile (second review) -----------------------

    @Test
    void aRefusedAdmissionWaitsOutItsBackoffUnderRetryOnRelease() {
        Scheduler s = scheduler(SchedulingPolicy.RETRY_ON_RELEASE, node("team", null, "a", 4000));
        s.observe(job("a", "running", 2000, 0));
        s.schedule();
        s.observe(job("a", "big", 4000, 1)); // backs off
        s.observe(job("a", "small", 1000, 2));
        Admission small = s.schedule().admissions().get(0);
        s.settle(small.key(), small.record(), AdmissionOutcome.REFUSED); // e.g. a 422 from a validating policy
        assertEquals(List.of(), names(s.schedule()), "no retry at the same instant");
        s.observe(JobObservation.finished(key("a", "running"))); // even a release does not retry it early
        assertEquals(List.of("big"), names(s.schedule()));
        s.observe(JobObservation.finished(key("a", "big")));
        clock.advance(Duration.ofSeconds(1));
        assertEquals(List.of("small"), names(s.schedule()));
    }

    @Test
    void theRoomARefusedAdmissionFreesIsAReleaseForTheOthers() {
        Scheduler s = scheduler(SchedulingPolicy.RETRY_ON_RELEASE, node("team", null, "a", 1000));
        s.observe(job("a", "first", 1000, 1));
        s.observe(job("a", "second", 1000, 2));
        CycleResult cycle = s.schedule(); // first admitted, second backs off
        assertEquals(List.of("first"), names(cycle));
        s.settle(cycle.admissions().get(0).key(), cycle.admissions().get(0).record(), AdmissionOutcome.REFUSED);
        assertEquals(List.of("second"), names(s.schedule()));
    }

    @Test
    void aJobStartedByHandWhileItsAdmissionIsInFlightStaysChargedWhenTheAdmissionIsRefused() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 4000));
        s.observe(job("a", "j", 4000, 0));
        Admission admission = s.schedule().admissions().get(0);
        s.observe(new JobObservation(key("a", "j"), null, JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD,
                Resources.of("cpu", 4000L), JobPriority.NONE, T0, null, true, null)); // kubectl patch, meanwhile
        s.settle(admission.key(), admission.record(), AdmissionOutcome.REFUSED); // our patch finds no mark left
        s.observe(job("a", "k", 4000, 1));
        assertEquals(List.of(), names(s.schedule()), "j runs: k must wait");
        assertEquals(AdmissionRecord.STARTED_OUTSIDE, s.status(key("a", "j")).orElseThrow().record().admittedAt());
    }

    @Test
    void aReSuspensionNewerThanOurConfirmedAdmissionIsSeenEvenIfTheRunningStateWasNot() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 4000));
        s.observe(job("a", "j", 4000, 0).withResourceVersion("10"));
        Admission admission = s.schedule().admissions().get(0);
        s.observe(job("a", "j", 4000, 0).withResourceVersion("10")); // a reconcile of the copy before the patch
        assertEquals(JobState.ADMITTED, s.status(key("a", "j")).orElseThrow().state());
        s.settle(admission.key(), admission.record(), new AdmissionOutcome.Applied("11")); // the patch's answer
        s.observe(job("a", "j", 4000, 0).withResourceVersion("10")); // still that old copy: ignored
        assertEquals(JobState.ADMITTED, s.status(key("a", "j")).orElseThrow().state());
        s.observe(job("a", "j", 4000, 0).withResourceVersion("12")); // kubectl replace: suspended, record gone
        assertEquals(JobState.ACTIVE, s.status(key("a", "j")).orElseThrow().state());
        assertEquals(Resources.NONE, s.usage("team"));
    }

    // ---- races between threads (third review) ----------------------------------------------------------

    @Test
    void aJobSeenDeletedIsNotBroughtBackByAReconcileStillHoldingItsOldCopy() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 4000));
        JobObservation queued = new JobObservation(key("a", "j"), "uid-1", JobObservation.Phase.QUEUED,
                Resources.of("cpu", 1000L), JobPriority.NONE, T0, null, true, null);
        s.observe(queued);
        s.observe(JobObservation.finished(key("a", "j"), "uid-1")); // the informer's delete
        s.observe(queued); // a reconcile that read the job before it was deleted
        assertTrue(s.status(key("a", "j")).isEmpty());
        s.observe(new JobObservation(key("a", "j"), "uid-2", JobObservation.Phase.QUEUED, Resources.of("cpu", 1000L),
                JobPriority.NONE, T0, null, true, null)); // re-created: another uid
        assertEquals(JobState.ACTIVE, s.status(key("a", "j")).orElseThrow().state());
    }

    @Test
    void aJobFoundGoneByItsAdmissionIsForgottenButNotANamesakeAdmittedSince() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 4000));
        s.observe(job("a", "j", 1000, 1));
        Admission first = s.schedule().admissions().get(0);
        s.settle(first.key(), first.record(), AdmissionOutcome.GONE);
        assertTrue(s.status(key("a", "j")).isEmpty());
        assertEquals(Resources.NONE, s.usage("team"));
        s.observe(job("a", "j", 1000, 2)); // created again
        clock.advance(Duration.ofMillis(5));
        Admission second = s.schedule().admissions().get(0);
        s.settle(first.key(), first.record(), AdmissionOutcome.GONE); // a late answer about the first one
        assertEquals(second.record(), s.status(key("a", "j")).orElseThrow().record());
    }

    @Test
    void withdrawingAJobThatBecameUnreadableNeverUnchargesAnAdmission() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 4000));
        s.observe(job("a", "j", 1000, 1));
        s.observe(job("a", "k", 1000, 2));
        s.schedule(); // j and k admitted; a reconcile thread now finds j's new version unreadable
        assertEquals(Unreadable.KEPT, s.observeUnreadable(job("a", "j", 1000, 1)));
        assertEquals(JobState.ADMITTED, s.status(key("a", "j")).orElseThrow().state());
        s.observe(job("a", "pending", 4000, 3));
        s.schedule();
        assertEquals(Unreadable.WITHDRAWN, s.observeUnreadable(job("a", "pending", 4000, 3)));
        assertTrue(s.status(key("a", "pending")).isEmpty());
    }

    @Test
    void anAdmissionOverriddenByAHandStartKeepsItsChargeAsStartedOutside() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 4000));
        s.observe(job("a", "j", 4000, 0));
        Admission admission = s.schedule().admissions().get(0);
        AdmissionRecord kept = s.settle(admission.key(), admission.record(), new AdmissionOutcome.StartedByHand(null)).orElseThrow();
        assertTrue(kept.startedOutside());
        s.settle(admission.key(), admission.record(), AdmissionOutcome.REFUSED); // a late refusal of the same admission: ignored
        assertEquals(4000, s.usage("team").get("cpu"));
    }

    @Test
    void everyUnchargeMakesARecountStartedBeforeItStale() {
        Scheduler s = new Scheduler(new SchedulerSettings(SchedulingPolicy.DEFAULT, Duration.ofSeconds(1),
                Duration.ofSeconds(20)), clock);
        s.trackExternalUsage(group -> { });
        s.replaceTree(QuotaTree.perNamespace(List.of(node("a", null, "a", 4000))));
        s.observe(job("a", "j", 1000, 1));
        Admission admission = s.schedule().admissions().get(0);
        long ticket = s.externalRecountTicket("a");
        s.settle(admission.key(), admission.record(), AdmissionOutcome.REFUSED);
        s.setExternalUsage("a", Resources.of("cpu", 500L), ticket); // read j as admitted: stale
        assertEquals(Resources.NONE, s.externalUsage("a"));
    }

    // ---- usage outside kube-queue ----------------------------------------------------------------------

    @Test
    void usageOutsideKubeQueueCountsAtItsGroupAndItsDropIsARelease() {
        Scheduler s = new Scheduler(new SchedulerSettings(SchedulingPolicy.RETRY_ON_RELEASE, Duration.ofSeconds(1),
                Duration.ofSeconds(20)), clock);
        s.replaceTree(QuotaTree.perNamespace(List.of(node("a", null, "a", 4000))));
        s.setExternalUsage("a", Resources.of("cpu", 2000L));
        s.observe(job("a", "j", 3000, 1));
        assertEquals(List.of(), names(s.schedule()), "2 used by pods kube-queue did not admit + 3 > 4");
        s.setExternalUsage("a", Resources.of("cpu", 1000L));
        assertEquals(List.of("j"), names(s.schedule()), "the drop retried j at once");
        assertEquals(3000, s.usage("a").get("cpu"), "usage counts kube-queue's admissions only");
    }

    @Test
    void whenOutsideUsageIsTrackedAReleasedJobStaysCountedUntilItsGroupIsRecounted() {
        Scheduler s = new Scheduler(new SchedulerSettings(SchedulingPolicy.DEFAULT, Duration.ofSeconds(1),
                Duration.ofSeconds(20)), clock);
        List<String> recounts = new java.util.ArrayList<>();
        s.trackExternalUsage(recounts::add);
        s.replaceTree(QuotaTree.perNamespace(List.of(node("a", null, "a", 4000))));
        s.observe(job("a", "first", 3000, 1));
        s.schedule();
        s.observe(JobObservation.finished(key("a", "first")));
        assertEquals(List.of("a"), recounts);
        assertEquals(3000, s.externalUsage("a").get("cpu"), "its pods may still run");
        s.observe(job("a", "second", 2000, 2));
        assertEquals(List.of(), names(s.schedule()));
        s.setExternalUsage("a", Resources.NONE); // the recount: its pods are gone
        clock.advance(Duration.ofSeconds(1));
        assertEquals(List.of("second"), names(s.schedule()));
    }

    // ---- what one cycle costs (issue 4, item 6) --------------------------------------------------------

    @Test
    void behindFiveThousandJobsThatDoNotFitTheOneThatFitsIsAdmittedInTheSameCycle() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 10000));
        for (int i = 0; i < 5000; i++) {
            s.observe(job("a", "big-" + i, 20000 - i, JobPriority.of(1), i, true)); // never fit: held
        }
        for (int i = 0; i < 5000; i++) {
            s.observe(job("a", "wide-" + i, 6000, JobPriority.of(1), 5000 + i, true));
        }
        s.observe(job("a", "running", 5000, JobPriority.of(2), 0, true));
        assertEquals(List.of("running"), names(s.schedule()));
        s.observe(job("a", "fits", 1000, JobPriority.of(0), 20000, true));

        CycleResult cycle = s.schedule();
        assertEquals(List.of("fits"), names(cycle));
        assertEquals(1, cycle.tried(), "the 5,000 that do not fit back off, and are not tried again");
        CycleResult idle = s.schedule();
        assertEquals(0, idle.tried(), "held and backed-off jobs cost a cycle nothing");
    }

    @Test
    void aFittingJobBehindFiveThousandInTheSameGroupIsReachedInOneCycle() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT, node("team", null, "a", 1500));
        s.observe(job("a", "running", 1000, 0));
        s.schedule(); // 500 millicores left
        for (int i = 0; i < 5000; i++) {
            s.observe(job("a", "wide-" + i, 1000, 1 + i));
        }
        s.observe(job("a", "fits", 500, 9999));
        CycleResult cycle = s.schedule();
        assertEquals(List.of("fits"), names(cycle));
        assertEquals(5001, cycle.tried());
    }

    @Test
    void aReleaseRetriesJobsOfDifferentShapesInQueueOrder() {
        Scheduler s = scheduler(SchedulingPolicy.RETRY_ON_RELEASE, node("team", null, "a", 3000));
        s.observe(job("a", "running", 3000, 0));
        s.schedule();
        s.observe(job("a", "big-early", 2000, JobPriority.of(1), 1, true));
        s.observe(job("a", "small-urgent", 1000, JobPriority.of(5), 2, true));
        s.observe(job("a", "small-late", 1000, JobPriority.of(1), 3, true));
        s.observe(job("a", "big-late", 2000, JobPriority.of(1), 4, true));
        s.schedule(); // all four back off
        s.observe(JobObservation.finished(key("a", "running")));

        assertEquals(List.of("small-urgent", "big-early"), names(s.schedule()),
                "priority first, then age, across shapes; 3000 used, so small-late and big-late wait");
    }

    @Test
    void aReleaseRetriesEveryBackedOffJobOfItsTreeOnceAndLeavesTheOnesThatStillDoNotFitInBackoff() {
        Scheduler s = scheduler(SchedulingPolicy.RETRY_ON_RELEASE, node("team", null, "a", 2000));
        s.observe(job("a", "running", 2000, 0));
        s.schedule();
        for (int i = 0; i < 5000; i++) {
            s.observe(job("a", "wide-" + i, 2000, 1 + i));
        }
        s.observe(job("a", "small", 1000, 9999));
        assertEquals(5001, s.schedule().tried());
        s.observe(JobObservation.finished(key("a", "running")));
        CycleResult cycle = s.schedule();
        assertEquals(List.of("wide-0"), names(cycle), "the earliest that fits: small (created last) waits");
        assertEquals(3, cycle.tried(), "wide-0 admitted, wide-1 does not fit and ends the walk of its shape (the"
                + " 4,998 wide jobs behind it cannot fit either), small does not fit: a release costs per shape, not per job");
        assertEquals(JobState.BACKOFF, s.status(key("a", "wide-1")).orElseThrow().state());
        assertEquals(0, s.schedule().tried(), "until the next release or backoff expiry nothing is tried");
    }

    @Test
    void underTheBlockingQueueFiveThousandJobsBehindABlockedHeadCostOneTry() {
        Scheduler s = scheduler(SchedulingPolicy.BLOCKING_QUEUE, node("a", null, "a", 1000), node("b", null, "b", 1000));
        s.observe(job("a", "running", 1000, 0));
        s.schedule();
        for (int i = 0; i < 5000; i++) {
            s.observe(job("a", "waiting-" + i, 1000, 1 + i));
        }
        s.observe(job("b", "fits", 1000, 9999));
        CycleResult cycle = s.schedule();
        assertEquals(List.of("fits"), names(cycle));
        assertEquals(2, cycle.tried(), "group a's head, then group b's");
    }
}
