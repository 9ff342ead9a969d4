package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * Issue 27, through the facade: a pending job that was never admitted holds no side object ({@code JobEntry}'s
 * {@code Extras}); an admitted one does, and keeps it while what it carries is not at its default. (Each field of the
 * side object on its own: {@code queue/JobEntryExtrasTest}.)
 */
class SideObjectOfPendingJobsTest {

    @Test
    void aPendingJobNeverAdmittedHoldsNoSideObject() {
        EvictionScenario it = new EvictionScenario();
        it.start(SchedulerSettings.defaults(), EvictionScenario.twoTeams());
        it.submit("a", "a1", 3000, 0, true);
        it.submit("a", "a2", 3000, 0, true);
        assertEquals(1, it.cycle().admissions().size());
        JobKey a1 = new JobKey("Job", "a", "a1");
        JobKey a2 = new JobKey("Job", "a", "a2");
        assertEquals(JobState.BACKOFF, it.state("a", "a2"));
        assertFalse(it.scheduler.holdsExtras(a2), "a pending job never admitted");
        assertTrue(it.scheduler.holdsExtras(a1), "admitted: its confirmed version");

        JobObservation running = it.cluster.get(a1);
        it.scheduler.observe(it.copy(running, JobObservation.Phase.QUEUED, running.record(), EvictionMarks.NONE));
        assertEquals(JobState.ACTIVE, it.state("a", "a1"));
        assertTrue(it.scheduler.holdsExtras(a1), "it keeps the spent record's time: a copy running under it was"
                + " started by hand");
        assertSame(EvictionMarks.NONE, it.scheduler.heldMarks(a1));
    }
}
