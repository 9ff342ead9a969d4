package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

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
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * Issue 26 in the core: an evicted job keeps its charge until its pods are gone (item 5), and the pod-ran mark keeps
 * an admission from timing out after a restart, asked for once per admission and only where a timeout applies
 * (item 6). docs/policies.md, "When a victim's room is free" and "Admission timeout".
 */
class VictimDrainTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final JobKey JOB = new JobKey("Job", "a", "train");
    private static final JobKey OTHER = new JobKey("Job", "a", "next");

    private final MutableClock clock = new MutableClock(T0);
    private final Set<JobKey> podsLeft = new HashSet<>();
    private final List<Admission> marks = new ArrayList<>();
    private Scheduler scheduler;
    private int version = 1;

    private Scheduler start(Duration timeout) {
        Scheduler s = new Scheduler(SchedulerSettings.defaults().withAdmissionTimeout(timeout), clock);
        s.replaceTree(new QuotaTree(List.of(new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 4000L)),
                new QuotaNode("team-a", "root", List.of("a"), null, Resources.of("cpu", 4000L)))));
        s.watchPods(podsLeft::contains);
        s.writePodRanMarksTo(marks::add);
        s.podsListed();
        return s;
    }

    private JobObservation job(JobKey key, JobObservation.Phase phase, AdmissionRecord record, EvictionMarks evictions,
                               JobObservation.Pods pods) {
        return new JobObservation(key, "uid-" + key.name(), phase, Resources.of("cpu", 4000L), JobPriority.of(0), T0,
                null, true, record, Integer.toString(version++), true, evictions, pods, null);
    }

    /** Submits and admits the job (patch applied, seen running); returns its admission. */
    private Admission admit(JobKey key) {
        scheduler.observe(job(key, JobObservation.Phase.QUEUED, null, EvictionMarks.NONE, JobObservation.Pods.NONE));
        Admission a = scheduler.schedule().admissions().get(0);
        scheduler.settle(key, a.record(), new AdmissionOutcome.Applied(Integer.toString(version)));
        scheduler.observe(job(key, JobObservation.Phase.ADMITTED, a.record(), EvictionMarks.NONE,
                JobObservation.Pods.NONE));
        return a;
    }

    /** Times the admission out and has the eviction applied; returns the eviction. */
    private Eviction timeOut() {
        clock.advance(Duration.ofMinutes(10));
        Eviction e = scheduler.schedule().evictions().get(0);
        scheduler.settleEviction(JOB, e.record(), new EvictionOutcome.Applied(Integer.toString(version++)));
        return e;
    }

    @Test
    void aTimedOutJobSeenSuspendedKeepsItsChargeWhileItsPodOrItsStatusSaysSomethingIsLeft() {
        scheduler = start(Duration.ofMinutes(10));
        Admission a = admit(JOB);
        scheduler.observe(job(OTHER, JobObservation.Phase.QUEUED, null, EvictionMarks.NONE, JobObservation.Pods.NONE));
        Eviction e = timeOut();
        podsLeft.add(JOB);

        scheduler.observe(job(JOB, JobObservation.Phase.QUEUED, a.record(), e.history(),
                new JobObservation.Pods(true, false)));
        assertEquals(4000, scheduler.usage("team-a").get("cpu"), "its pod terminates: its room stays taken");
        assertEquals(List.of(), scheduler.schedule().admissions(), "the next job waits");

        podsLeft.remove(JOB);
        assertFalse(scheduler.podsChanged(JOB), "the Job's status still counts a pod terminating");
        scheduler.observe(job(JOB, JobObservation.Phase.QUEUED, a.record(), e.history(), JobObservation.Pods.NONE));
        assertEquals(0, scheduler.usage("team-a").get("cpu"), "nothing left of it: released");
        assertEquals(JobState.BACKOFF, scheduler.status(JOB).orElseThrow().state(), "it backs off, as before");
        clock.advance(Duration.ofSeconds(2)); // the next job's own backoff (it did not fit while the room was taken)
        assertEquals(List.of(OTHER), scheduler.schedule().admissions().stream().map(Admission::key).toList());
    }

    @Test
    void thePodWatchAloneReleasesAVictimWhoseKindHasNoStatusToTell() {
        scheduler = start(Duration.ofMinutes(10));
        Admission a = admit(JOB);
        Eviction e = timeOut();
        podsLeft.add(JOB);
        scheduler.observe(job(JOB, JobObservation.Phase.QUEUED, a.record(), e.history(), JobObservation.Pods.NONE));
        assertEquals(4000, scheduler.usage("team-a").get("cpu"));
        assertFalse(scheduler.podsChanged(JOB), "a pod is still left");

        podsLeft.remove(JOB);
        assertTrue(scheduler.podsChanged(JOB));
        assertEquals(0, scheduler.usage("team-a").get("cpu"));
    }

    @Test
    void aJobSuspendedByItsOwnerIsReleasedAtOnceAsBefore() {
        scheduler = start(null);
        Admission a = admit(JOB);
        podsLeft.add(JOB);
        scheduler.observe(job(JOB, JobObservation.Phase.QUEUED, a.record(), EvictionMarks.NONE,
                new JobObservation.Pods(true, false)));
        assertEquals(0, scheduler.usage("team-a").get("cpu"), "not kube-queue's eviction: the rule is for victims");
    }

    @Test
    void afterARestartASuspendedVictimWhosePodsAreLeftIsChargedUntilTheyAreGone() {
        scheduler = start(Duration.ofMinutes(10));
        AdmissionRecord record = new AdmissionRecord("team-a", "2025-12-31T23:50:00.000Z");
        EvictionMarks carried = new EvictionMarks(Eviction.Reason.TIMEOUT, null, List.of(),
                List.of(T0.minusSeconds(30)));
        podsLeft.add(JOB);
        scheduler.observe(job(JOB, JobObservation.Phase.QUEUED, record, carried, JobObservation.Pods.NONE));
        scheduler.observe(job(OTHER, JobObservation.Phase.QUEUED, null, EvictionMarks.NONE, JobObservation.Pods.NONE));
        assertEquals(JobState.ADMITTED, scheduler.status(JOB).orElseThrow().state());
        assertEquals(4000, scheduler.usage("team-a").get("cpu"), "its pod still runs: charged as before the restart");
        CycleResult cycle = scheduler.schedule();
        assertEquals(List.of(), cycle.admissions());
        assertEquals(List.of(), cycle.evictions(), "its admission is 10 minutes old, yet not timed out again");

        podsLeft.remove(JOB);
        assertTrue(scheduler.podsChanged(JOB));
        assertEquals(JobState.BACKOFF, scheduler.status(JOB).orElseThrow().state(), "its timeout's backoff");
        clock.advance(Duration.ofSeconds(2));
        assertEquals(List.of(OTHER), scheduler.schedule().admissions().stream().map(Admission::key).toList());
    }

    @Test
    void thePodRanMarkIsAskedForOncePerAdmissionAndOnlyWhereATimeoutApplies() {
        scheduler = start(null);
        admit(JOB);
        scheduler.podRan(JOB);
        assertEquals(List.of(), marks, "no timeout: nothing to keep across a restart");

        scheduler = start(Duration.ofMinutes(10));
        Admission a = admit(JOB);
        scheduler.podRan(JOB);
        scheduler.podRan(JOB);
        assertEquals(List.of(a.record()), marks.stream().map(Admission::record).toList(), "once");
    }

    @Test
    void aJobThatCarriesTheMarkForItsRecordNeverTimesOutAfterARestart() {
        scheduler = start(Duration.ofMinutes(10));
        AdmissionRecord record = new AdmissionRecord("team-a", "2025-12-31T23:00:00.000Z");
        scheduler.observe(job(JOB, JobObservation.Phase.ADMITTED, record, EvictionMarks.NONE,
                new JobObservation.Pods(false, true)));
        scheduler.observe(job(OTHER, JobObservation.Phase.ADMITTED, record, EvictionMarks.NONE,
                JobObservation.Pods.NONE));
        List<JobKey> evicted = scheduler.schedule().evictions().stream().map(Eviction::key).toList();
        assertEquals(List.of(OTHER), evicted, "only the job whose pod is not known to have run times out");
        scheduler.podRan(JOB);
        assertEquals(List.of(), marks, "it carries the mark already");
    }
}
