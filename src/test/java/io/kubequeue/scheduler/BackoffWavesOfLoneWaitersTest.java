package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * Issue 27, through the facade: a backed-off job that waits alone costs no {@code BackoffWave}; a wave is made when a
 * second job waits alike, and ends when one is left. (The table lone waiters wait in: {@code queue/LoneWaitersTest}.)
 */
class BackoffWavesOfLoneWaitersTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void jobsThatBackOffEachAtItsOwnTimeMakeNoWaveAndTwoAlikeMakeOne() {
        MutableClock clock = new MutableClock(T0);
        Scheduler scheduler = new Scheduler(SchedulerSettings.defaults(), clock);
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("team-a", null, List.of("a"), null, Resources.of("cpu", 4000L)))));
        scheduler.observe(queued(0, 0));
        assertEquals(1, scheduler.schedule().admissions().size());
        for (int i = 1; i <= 5; i++) {
            clock.advance(Duration.ofMillis(100)); // each backs off in its own cycle: its own retry time
            scheduler.observe(queued(i, i));
            scheduler.schedule();
        }
        assertEquals(0, scheduler.backoffWaves(), "five jobs waiting alone make no wave");
        assertNull(scheduler.backoffWavesBroken());

        clock.advance(Duration.ofMillis(100));
        scheduler.observe(queued(6, 6));
        scheduler.observe(queued(7, 7));
        scheduler.schedule(); // both back off in this cycle, alike
        assertEquals(1, scheduler.backoffWaves(), "two jobs waiting alike make one wave");
        assertNull(scheduler.backoffWavesBroken());

        scheduler.observe(JobObservation.finished(new JobKey("Job", "a", "j6")));
        assertEquals(0, scheduler.backoffWaves(), "a wave left with one job ends: it waits alone");
        assertNull(scheduler.backoffWavesBroken());
        JobKey j7 = new JobKey("Job", "a", "j7");
        assertEquals(1, scheduler.status(j7).orElseThrow().attempts());
        assertEquals(T0.plusMillis(600).plusSeconds(1), scheduler.status(j7).orElseThrow().retryAt());
        assertSame(JobState.BACKOFF, scheduler.status(j7).orElseThrow().state());
    }

    private static JobObservation queued(int id, int createdSecond) {
        return new JobObservation(new JobKey("Job", "a", "j" + id), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", 3000L), JobPriority.NONE, T0.plusSeconds(createdSecond), null, true, null);
    }
}
