package io.kubequeue.scheduler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

import io.kubequeue.scheduler.model.AdmissionRecord;

/**
 * Gives every admission its own record: the admission time, in {@link AdmissionRecord#ADMITTED_AT}'s format, is later
 * than any decided here or read on any job's record, by a millisecond if need be. A record names one decision, so a
 * late answer to an old one (a deleted namesake's, an earlier leader's) can never be mistaken for a newer one.
 */
final class AdmissionClock {

    /** Records from further ahead than this are not taken as a clock to move past (hand-written, or broken). */
    static final Duration RECORD_CLOCK_SKEW = Duration.ofHours(1);

    private final Clock clock;
    /** The latest admission time decided here or read on any job's record. */
    private Instant lastAdmittedAt;

    /** Goes on from where {@code original} is: the next record is dated after its last. */
    void copyFrom(AdmissionClock original) {
        lastAdmittedAt = original.lastAdmittedAt;
    }

    AdmissionClock(Clock clock) {
        this.clock = clock;
    }

    /** The record of an admission into {@code group} decided at {@code now}. */
    AdmissionRecord next(String group, Instant now) {
        Instant at = now.truncatedTo(ChronoUnit.MILLIS);
        if (lastAdmittedAt != null && !at.isAfter(lastAdmittedAt)) {
            at = lastAdmittedAt.plusMillis(1);
        }
        lastAdmittedAt = at;
        return new AdmissionRecord(group, AdmissionRecord.ADMITTED_AT.format(at));
    }

    /**
     * Moves past a record's time, so no later admission here can write the same record. A record more than
     * {@link #RECORD_CLOCK_SKEW} in the future is ignored: annotations can be written by anyone, and one at the end
     * of time must not stop admissions.
     */
    void noteRecord(AdmissionRecord record) {
        if (record == null || record.startedOutside() || record.admittedAt() == null) {
            return;
        }
        try {
            Instant at = Instant.parse(record.admittedAt());
            if (at.isAfter(clock.instant().plus(RECORD_CLOCK_SKEW))) {
                return;
            }
            if (lastAdmittedAt == null || at.isAfter(lastAdmittedAt)) {
                lastAdmittedAt = at;
            }
        } catch (DateTimeParseException e) {
            // written by hand or by another tool: it cannot collide with ours
        }
    }
}
