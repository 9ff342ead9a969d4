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
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * Defects a review of the reclaim and timeout core found (issue 16), each written as the test that showed it first:
 * the per-hour limit across a restart, a refused timeout repeated under the same admission, the timeout backoff
 * skipped by a release, and a victim started again after its suspension holding its preemptor.
 */
class EvictionRegressionTest {

    private static final Instant T0 = EvictionScenario.T0;
    private final EvictionScenario it = new EvictionScenario();
    private final MutableClock clock = it.clock;
    private final Map<JobKey, JobObservation> cluster = it.cluster;
    private Scheduler scheduler;

    private static QuotaTree tree() {
        return EvictionScenario.twoTeams();
    }

    private Scheduler newScheduler(SchedulerSettings settings) {
        return scheduler = it.start(settings, tree());
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

    private void finish(String ns, String name) {
        it.finish(ns, name);
    }

    /** The per-hour limit holds across a restart while the victim runs again: the history it carries counts. */
    @Test
    void maxPerHourSurvivesARestartWhileTheVictimRunsAgain() {
        SchedulerSettings settings = SchedulerSettings.defaults().withReclaim(1);
        scheduler = newScheduler(settings);
        submit("b", "b1", 2000, 5, true);
        submit("b", "b2", 2000, 1, true);
        cycle();
        submit("a", "a1", 2000, 0, true);
        Eviction first = cycle().evictions().get(0);
        assertEquals("b2", first.key().name());
        applyAndSee(first);
        cycle(); // a1 admitted
        finish("a", "a1");
        clock.advance(Duration.ofSeconds(30));
        cycle(); // b2 admitted again, carrying kube-queue/reclaimed-at=[T0]
        assertEquals(JobState.ADMITTED, scheduler.status(first.key()).orElseThrow().state());
        assertEquals(1, cluster.get(first.key()).evictions().reclaimedAt().size());

        newScheduler(settings); // restart / failover
        cluster.values().forEach(scheduler::observe);
        submit("a", "a2", 2000, 0, true);
        List<Eviction> second = cycle().evictions();
        assertEquals(1, second.size());
        assertTrue(!second.get(0).key().equals(first.key()),
                "b2 was a victim once this hour (its annotation says so) but is chosen again after a restart; history written: "
                        + second.get(0).history().reclaimedAt());
    }

    private JobObservation timeoutJob(JobObservation.Phase phase, AdmissionRecord record, long cpu) {
        return new JobObservation(new JobKey("Job", "a", "t"), "uid-t", phase, Resources.of("cpu", cpu),
                JobPriority.of(0), T0, null, true, record, it.nextVersion(), true, EvictionMarks.NONE);
    }

    /** Job "t" admitted, timed out after 10 minutes, and its eviction refused; returns its admission. */
    private Admission timedOutAndRefused() {
        scheduler = newScheduler(SchedulerSettings.defaults().withAdmissionTimeout(Duration.ofMinutes(10)));
        scheduler.podsListed();
        scheduler.observe(timeoutJob(JobObservation.Phase.QUEUED, null, 1000));
        Admission a = scheduler.schedule().admissions().get(0);
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied(it.nextVersion()));
        scheduler.observe(timeoutJob(JobObservation.Phase.ADMITTED, a.record(), 1000));
        clock.advance(Duration.ofMinutes(11));
        Eviction e = scheduler.schedule().evictions().get(0);
        scheduler.settleEviction(e.key(), e.record(), EvictionOutcome.REFUSED);
        return a;
    }

    /** A refused timeout eviction is not decided again under the same admission after a tree change. */
    @Test
    void aRefusedTimeoutIsNotTimedOutAgainUnderTheSameAdmissionAfterATreeChange() {
        timedOutAndRefused();
        assertEquals(List.of(), scheduler.schedule().evictions());

        scheduler.replaceTree(tree()); // e.g. any edit of the ElasticQuotaTree
        assertEquals(List.of(), scheduler.schedule().evictions(), "timed out again under the same admission");
    }

    /** Nor when the running job's request changes (its charge is taken off and put back). */
    @Test
    void aRefusedTimeoutIsNotTimedOutAgainWhenTheRunningJobsRequestChanges() {
        Admission a = timedOutAndRefused();
        scheduler.observe(timeoutJob(JobObservation.Phase.ADMITTED, a.record(), 1500)); // e.g. parallelism raised
        assertEquals(List.of(), scheduler.schedule().evictions(), "timed out again under the same admission");
    }

    /** Under retry on release, a release does not cut a timed-out job's backoff short. */
    @Test
    void aTimedOutJobWaitsItsBackoffUnderRetryOnRelease() {
        SchedulerSettings settings = new SchedulerSettings(SchedulingPolicy.RETRY_ON_RELEASE, Duration.ofSeconds(1),
                Duration.ofSeconds(20), SchedulerSettings.Reclaim.OFF, Duration.ofMinutes(10));
        scheduler = newScheduler(settings);
        scheduler.podsListed();
        submit("a", "t", 2000, 0, true);
        submit("a", "big", 3000, 0, true); // does not fit while t runs: backs off in t's group
        CycleResult c1 = cycle();
        assertEquals(1, c1.admissions().size());
        assertEquals(JobState.BACKOFF, scheduler.status(new JobKey("Job", "a", "big")).orElseThrow().state());
        clock.advance(Duration.ofMinutes(10));
        Eviction e = scheduler.schedule().evictions().get(0);
        assertEquals("t", e.key().name());
        applyAndSee(e);
        assertEquals(JobState.BACKOFF, scheduler.status(e.key()).orElseThrow().state());
        CycleResult next = cycle();
        assertTrue(next.admissions().stream().noneMatch(x -> x.key().equals(e.key())),
                "t timed out a moment ago and must back off 1 min, but is re-admitted at once: " + next.admissions());
    }

    /**
     * A victim suspended, then started again before the informer ever showed it suspended (a GitOps tool putting the
     * manifest back): the eviction is over and that reclaim is given up, instead of holding the preemptor with its
     * room reserved for good; the preemptor tries again at once, with the other borrower (the one started again is not
     * a victim again under that admission: no tug of war with whoever restarts it).
     */
    @Test
    void aVictimStartedAgainAfterItsSuspensionGivesTheReclaimUp() {
        scheduler = newScheduler(SchedulerSettings.defaults().withReclaim(3));
        submit("b", "b1", 2000, 0, true);
        submit("b", "b2", 2000, 0, true);
        cycle();
        submit("a", "a1", 2000, 0, true);
        Eviction e = cycle().evictions().get(0);
        scheduler.settleEviction(e.key(), e.record(), new EvictionOutcome.Applied(it.nextVersion()));
        JobObservation o = cluster.get(e.key());
        JobObservation runningAgain = new JobObservation(o.key(), o.uid(), JobObservation.Phase.ADMITTED, o.request(),
                o.priority(), o.createdAt(), null, o.preemptible(), o.record(), it.nextVersion(),
                o.stoppable(), o.evictions());
        scheduler.observe(runningAgain);
        CycleResult next = scheduler.schedule();
        assertEquals(JobState.ADMITTED, scheduler.status(e.key()).orElseThrow().state());
        assertEquals(1, next.evictions().size(), "a new reclaim: " + next.evictions());
        assertTrue(!next.evictions().get(0).key().equals(e.key()), "not the job started again");
        assertEquals(List.of(new CycleResult.Reclaim(new JobKey("Job", "a", "a1"), "team-a",
                List.of(next.evictions().get(0).key()), List.of(next.evictions().get(0).record().group()),
                new java.util.TreeSet<>(List.of("cpu")))),
                next.reclaims());
    }
}
