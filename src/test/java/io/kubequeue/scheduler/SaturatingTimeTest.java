package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.EvictionMarks;
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

/**
 * Issue 25, sequence 4: time arithmetic in the core saturates instead of throwing, and a scheduling cycle never ends
 * with charged admissions that are not handed out. Two groups under one root: {@code team-a} (namespace a) and
 * {@code team-b} (namespace b), 4 cpu each; a's job has the higher priority, so it is decided first.
 */
class SaturatingTimeTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    /** What {@code 400000000000d} reads as: a Duration, but past the end of Instant's range from any time. */
    private static final Duration PAST_THE_END_OF_TIME = Duration.ofDays(400_000_000_000L);
    private static final JobKey FIRST = new JobKey("Job", "a", "first");
    private static final JobKey SECOND = new JobKey("Job", "b", "second");

    private static Scheduler scheduler(SchedulerSettings settings, Clock clock, Duration teamBTimeout) {
        Scheduler s = new Scheduler(settings, clock);
        s.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("team-a", "root", List.of("a"), null, Resources.of("cpu", 4000L)),
                new QuotaNode("team-b", "root", List.of("b"), null, Resources.of("cpu", 4000L))
                        .withAdmissionTimeout(teamBTimeout))));
        s.podsListed();
        return s;
    }

    private static JobObservation queued(JobKey key, long millicores, int priority, EvictionMarks marks) {
        return new JobObservation(key, "uid-" + key.name(), JobObservation.Phase.QUEUED, Resources.of("cpu", millicores),
                JobPriority.of(priority), T0, null, true, null, "1", true, marks);
    }

    /**
     * A group's timeout of 400000000000d (a Duration, but past the end of time from the admission) reached the core:
     * {@code Instant.plus} threw while the second job was charged, after the first was, and the whole cycle was lost;
     * both stayed charged and neither was ever sent.
     */
    @Test
    void aTimeoutPastTheEndOfTimeNeverTimesOutAndTheCycleHandsOutEveryAdmission() {
        Scheduler s = scheduler(SchedulerSettings.defaults(), new MutableClock(T0), PAST_THE_END_OF_TIME);
        s.observe(queued(FIRST, 1000, 10, EvictionMarks.NONE));
        s.observe(queued(SECOND, 1000, 0, EvictionMarks.NONE));

        CycleResult result = s.schedule();

        assertEquals(List.of(FIRST, SECOND), result.admissions().stream().map(Admission::key).toList());
        assertNull(result.failure());
        assertEquals(1000, s.usage("team-b").get("cpu"));
        assertEquals(Optional.empty(), s.nextRetry(), "a timeout past the end of time is no timeout to wake up for");
    }

    /** The same with the global timeout: the first admission of the cycle already threw. */
    @Test
    void aGlobalTimeoutPastTheEndOfTimeDoesNotStopAdmissions() {
        Scheduler s = scheduler(SchedulerSettings.defaults().withAdmissionTimeout(PAST_THE_END_OF_TIME),
                new MutableClock(T0), null);
        s.observe(queued(FIRST, 1000, 10, EvictionMarks.NONE));
        s.observe(queued(SECOND, 1000, 0, EvictionMarks.NONE));

        assertEquals(2, s.schedule().admissions().size());
    }

    /**
     * Anyone who may edit a job can write its admission record: one dated at the end of time, seen with a
     * timeout in force, threw out of the observation (and so out of the reconcile or the start-up recovery).
     */
    @Test
    void aRecordDatedAtTheEndOfTimeIsChargedAndNeverTimesOut() {
        Scheduler s = scheduler(SchedulerSettings.defaults().withAdmissionTimeout(Duration.ofMinutes(10)),
                new MutableClock(T0), null);
        AdmissionRecord endOfTime = new AdmissionRecord("team-a", "+1000000000-12-31T23:59:59.000Z");
        s.observe(new JobObservation(FIRST, "uid-first", JobObservation.Phase.ADMITTED, Resources.of("cpu", 1000L),
                JobPriority.of(0), T0, null, true, endOfTime, "1", true, EvictionMarks.NONE));

        assertEquals(JobState.ADMITTED, s.status(FIRST).orElseThrow().state());
        assertEquals(1000, s.usage("team-a").get("cpu"));
        assertEquals(Optional.empty(), s.nextRetry());
    }

    /**
     * Backoff bounds past the end of time (400000000000d): the job that did not fit went into backoff after the
     * cycle's loop, where {@code Instant.plus} threw, and the admissions decided before it were lost.
     */
    @Test
    void aJobThatDoesNotFitBacksOffToTheEndOfTimeWithoutBreakingTheCycle() {
        Scheduler s = scheduler(new SchedulerSettings(SchedulingPolicy.DEFAULT, PAST_THE_END_OF_TIME,
                PAST_THE_END_OF_TIME), new MutableClock(T0), null);
        JobKey third = new JobKey("Job", "b", "third");
        s.observe(queued(FIRST, 1000, 10, EvictionMarks.NONE));
        s.observe(queued(SECOND, 3000, 5, EvictionMarks.NONE));
        s.observe(queued(third, 3000, 0, EvictionMarks.NONE)); // fits team-b's max, not beside SECOND

        CycleResult result = s.schedule();

        assertEquals(List.of(FIRST, SECOND), result.admissions().stream().map(Admission::key).toList());
        assertNull(result.failure());
        JobStatus backedOff = s.status(third).orElseThrow();
        assertEquals(JobState.BACKOFF, backedOff.state());
        assertEquals(Instant.MAX, backedOff.retryAt(), "saturated");
    }

    /**
     * Whatever else fails mid-cycle after a job was charged (here the clock, read while the second job is charged
     * because it carries an eviction history), the cycle still returns every admission it charged, the failing
     * one included, and says what failed; the failure does not stop the next cycle.
     */
    @Test
    void aCycleThatFailsAfterChargingStillHandsOutEveryAdmissionItCharged() {
        FailingClock clock = new FailingClock(T0);
        Scheduler s = scheduler(SchedulerSettings.defaults(), clock, null);
        EvictionMarks onceReclaimed = new EvictionMarks(null, null, List.of(T0.minusSeconds(60)), List.of());
        s.observe(queued(FIRST, 1000, 10, EvictionMarks.NONE));
        s.observe(queued(SECOND, 1000, 0, onceReclaimed));

        clock.failOnCall(2); // the cycle reads the clock once at its start, then once when SECOND is charged
        CycleResult result = s.schedule();

        assertEquals(1, clock.failures, "the fault fired, so this test tests what it says");
        assertEquals(List.of(FIRST, SECOND), result.admissions().stream().map(Admission::key).toList(),
                "both are charged: both are handed out");
        assertNotNull(result.failure());
        assertEquals(1000, s.usage("team-b").get("cpu"));
        assertTrue(s.schedule().isEmpty(), "nothing left over for the next cycle");
    }

    /** A clock whose n-th reading from now on throws once (a fault injected where the core reads the time). */
    private static final class FailingClock extends Clock {
        private final Instant now;
        private int failOn = -1;
        private int calls;
        int failures;

        FailingClock(Instant now) {
            this.now = now;
        }

        void failOnCall(int n) {
            failOn = n;
            calls = 0;
        }

        @Override
        public Instant instant() {
            if (failOn > 0 && ++calls == failOn) {
                failures++;
                throw new IllegalStateException("injected: the clock failed");
            }
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
