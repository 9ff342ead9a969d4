package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * Issue 27, memory per pending job: values every job has and most jobs have alike are shared, not held per job:
 * priorities, the "no eviction marks" value, and the job's key (one instance per job, not one per read). Each is
 * immutable; these tests check that sharing never mixes two jobs' values up.
 */
class SharedValuesTest {

    private final EvictionScenario it = new EvictionScenario();

    @Test
    void equalPrioritiesAreOneInstanceAndAnEditedPriorityStillReordersTheQueue() {
        assertSame(observation("a1", 5).priority(), observation("a2", 5).priority(), "equal priorities: one instance");
        assertSame(observation("x", "high").priority(), observation("y", "high").priority(), "equal classes too");
        assertSame(JobPriority.NONE, observation("z", (String) null).priority(), "neither class nor value: NONE");
        assertNotEquals(observation("p", 5).priority(), observation("q", 6).priority());
        assertEquals(Integer.valueOf(6), observation("q", 6).priority().value());

        // one job's edit changes its own priority, not the others' that shared the value
        it.start(SchedulerSettings.defaults(), EvictionScenario.twoTeams());
        it.submit("a", "j1", 3000, 5, true);
        it.submit("a", "j2", 3000, 5, true);
        it.submit("a", "j3", 3000, 5, true);
        JobObservation j3 = it.cluster.get(new JobKey("Job", "a", "j3"));
        it.scheduler.observe(new JobObservation(j3.key(), j3.uid(), j3.phase(), j3.request(), JobPriority.of(9),
                j3.createdAt(), null, true, null, it.nextVersion(), true, EvictionMarks.NONE));
        assertEquals(List.of("j3"), it.cycle().admissions().stream().map(x -> x.key().name()).toList());
        assertEquals(5, it.scheduler.status(new JobKey("Job", "a", "j1")).orElseThrow().priority());
        assertEquals(5, it.scheduler.status(new JobKey("Job", "a", "j2")).orElseThrow().priority());
    }

    @Test
    void aJobQueuedAgainWithoutEvictionsHoldsTheSharedNoneAndAnEvictedJobsMarksStayItsOwn() {
        it.start(SchedulerSettings.defaults().withReclaim(3), EvictionScenario.twoTeams());
        it.submit("b", "b1", 2000, 5, true);
        it.submit("b", "b2", 2000, 1, true);
        assertEquals(2, it.cycle().admissions().size());
        JobKey b1 = new JobKey("Job", "b", "b1");
        JobKey b2 = new JobKey("Job", "b", "b2");

        it.submit("a", "a1", 2000, 0, true);
        Eviction e = it.cycle().evictions().get(0);
        assertEquals(b2, e.key());
        it.applyAndSee(e);

        assertEquals(1, it.scheduler.heldMarks(b2).reclaimedAt().size(), "the victim's own history");
        assertSame(EvictionMarks.NONE, it.scheduler.heldMarks(b1), "a job never evicted: the shared NONE");
        assertSame(EvictionMarks.NONE, it.scheduler.heldMarks(new JobKey("Job", "a", "a1")));

        // b1 is suspended again by hand, carrying no marks: queued again, it holds NONE, not a copy of its own
        JobObservation running = it.cluster.get(b1);
        JobObservation suspended = it.copy(running, JobObservation.Phase.QUEUED, running.record(), EvictionMarks.NONE);
        it.cluster.put(b1, suspended);
        it.scheduler.observe(suspended);
        assertEquals(JobState.ACTIVE, it.state("b", "b1"));
        assertSame(EvictionMarks.NONE, it.scheduler.heldMarks(b1));
        assertNotSame(EvictionMarks.NONE, it.scheduler.heldMarks(b2));
        assertEquals(1, it.scheduler.heldMarks(b2).reclaimedAt().size());
    }

    @Test
    void theCoreKeepsTheFirstKeyInstanceOfAJobNotEachReadsCopy() {
        it.start(SchedulerSettings.defaults(), EvictionScenario.twoTeams());
        JobObservation first = it.submit("a", "j1", 3000, 0, true);
        JobKey copyOfKey = new JobKey("Job", "a", "j1");
        assertNotSame(first.key(), copyOfKey);
        it.scheduler.observe(new JobObservation(copyOfKey, first.uid(), first.phase(), first.request(),
                JobPriority.of(0), first.createdAt(), null, true, null, it.nextVersion(), true, EvictionMarks.NONE));
        JobObservation held = it.scheduler.heldObservation(copyOfKey);
        assertNotEquals(first.resourceVersion(), held.resourceVersion(), "the newer read is held");
        assertSame(first.key(), held.key(), "under the first key instance");
    }

    @Test
    void jobsCreatedInTheSameSecondShareOneCreationInstantAndOthersKeepTheirOwn() {
        java.time.Instant at = java.time.Instant.parse("2026-03-04T05:06:07Z");
        JobObservation first = created("c1", java.time.Instant.parse("2026-03-04T05:06:07Z"));
        JobObservation second = created("c2", java.time.Instant.parse("2026-03-04T05:06:07Z"));
        assertSame(first.createdAt(), second.createdAt(), "created in the same second: one instance");
        JobObservation later = created("c3", at.plusSeconds(1));
        assertEquals(at.plusSeconds(1), later.createdAt());
        JobObservation sameSlot = created("c4", at.plusSeconds(1024)); // the same slot: the value is its own
        assertEquals(at.plusSeconds(1024), sameSlot.createdAt());
        assertEquals(at, created("c5", java.time.Instant.parse("2026-03-04T05:06:07Z")).createdAt());
        assertEquals(at.plusNanos(5), created("c6", at.plusNanos(5)).createdAt(), "never a neighbour's value");
    }

    private static JobObservation created(String name, java.time.Instant at) {
        return new JobObservation(new JobKey("Job", "a", name), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", 1000L), JobPriority.NONE, at, null, true, null);
    }

    private static JobObservation observation(String name, int priority) {
        return new JobObservation(new JobKey("Job", "a", name), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", 1000L), new JobPriority(null, priority), EvictionScenario.T0, null, true, null);
    }

    private static JobObservation observation(String name, String className) {
        return new JobObservation(new JobKey("Job", "a", name), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", 1000L), new JobPriority(className, null), EvictionScenario.T0, null, true, null);
    }
}
