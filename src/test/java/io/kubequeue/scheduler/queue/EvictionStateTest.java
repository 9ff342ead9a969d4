package io.kubequeue.scheduler.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;

/**
 * A job's eviction state as one value ({@link EvictionState}, written only by {@code Evictions}): each transition
 * changes what its name says and keeps the rest, and a state back at none is held as no object.
 */
class EvictionStateTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final AdmissionRecord RECORD = new AdmissionRecord("g", "2026-01-01T00:00:00.000Z");
    private static final AdmissionRecord EARLIER = new AdmissionRecord("g", "2025-12-31T00:00:00.000Z");
    private static final JobKey KEY = new JobKey("Job", "a", "j");
    private static final EvictionMarks CARRIED = new EvictionMarks(null, null, List.of(T0), List.of());
    private static final Eviction EVICTION = new Eviction(KEY, "u", RECORD, Eviction.Reason.RECLAIM,
            new JobKey("Job", "b", "p"), "b", Resources.NONE, T0,
            new EvictionMarks(Eviction.Reason.RECLAIM, null, List.of(T0, T0.plusSeconds(60)), List.of()));

    /** Every part set, the unconfirmed answer included. */
    private static final EvictionState FULL = new EvictionState(EVICTION, "7", true, EARLIER, CARRIED, RECORD, RECORD,
            T0.plusSeconds(600));

    @Test
    void noneIsNone() {
        assertTrue(EvictionState.NONE.isNone());
        assertFalse(FULL.isNone());
        assertTrue(EvictionState.NONE.withTimeoutAt(T0).withTimeoutAt(null).isNone());
    }

    @Test
    void startingAnEvictionClearsALostAnswerAndKeepsTheRest() {
        EvictionState started = FULL.started(EVICTION);
        assertEquals(new EvictionState(EVICTION, "7", false, EARLIER, CARRIED, RECORD, RECORD, FULL.timeoutAt()),
                started);
        assertEquals(new EvictionState(null, "7", false, EARLIER, CARRIED, RECORD, RECORD, FULL.timeoutAt()),
                FULL.dropped());
    }

    @Test
    void anAppliedEvictionCarriesItsWrittenHistoryAsTheMarks() {
        Eviction written = EVICTION.writtenAt(T0.plusSeconds(5));
        EvictionState applied = FULL.applied(written, "9");
        assertEquals(written, applied.evicting());
        assertEquals("9", applied.appliedVersion());
        assertFalse(applied.unconfirmed());
        assertEquals(written.history(), applied.marks());
        assertEquals(EARLIER, applied.refusedUnder(), "kept");
        assertEquals(FULL.timeoutAt(), applied.timeoutAt(), "kept");
    }

    @Test
    void aRefusalEndsTheEvictionUnderThatAdmission() {
        EvictionState refused = FULL.refused(RECORD);
        assertNull(refused.evicting());
        assertFalse(refused.unconfirmed());
        assertEquals(RECORD, refused.refusedUnder());
        assertEquals("7", refused.appliedVersion(), "kept: only a later copy ends it");
        assertEquals(CARRIED, refused.marks());
    }

    @Test
    void anEvictionOverForgetsItsVersionAndKeepsItsHistory() {
        assertEquals(new EvictionState(null, null, false, EARLIER, CARRIED, RECORD, RECORD, FULL.timeoutAt()),
                FULL.over());
        assertEquals(RECORD, FULL.over(RECORD).refusedUnder());
        assertTrue(FULL.answerLost().unconfirmed());
        assertTrue(FULL.over().answerLost().unconfirmed());
    }

    @Test
    void marksEqualToNoneAreTheSharedInstance() {
        EvictionMarks equalToNone = new EvictionMarks(null, null, List.of(), List.of());
        assertEquals(EvictionMarks.NONE, equalToNone);
        assertSame(EvictionMarks.NONE, FULL.withMarks(equalToNone).marks());
    }

    @Test
    void aJobWhoseEvictionStateIsBackAtNoneHoldsNoSideObject() {
        JobEntry entry = new JobEntry(new JobObservation(KEY, null, JobObservation.Phase.QUEUED, Resources.of("cpu",
                1000L), JobPriority.NONE, T0, null, true, null), T0, 0);
        entry.eviction(EvictionState.NONE.withTimeoutAt(T0));
        assertTrue(entry.holdsExtras());
        assertEquals(T0, entry.timeoutAt());
        entry.eviction(entry.eviction().withTimeoutAt(null));
        assertFalse(entry.holdsExtras());
        assertSame(EvictionState.NONE, entry.eviction());
    }
}
