package io.kubequeue.scheduler.queue;

import java.time.Instant;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;

/**
 * One admitted job's eviction state, as {@code Evictions}, its only writer, holds it (docs/architecture.md, "Who owns
 * what"). An immutable value: each change is a new one, so {@code Scheduler.copy} shares it, and a job's eviction
 * state changes in one assignment. Most jobs hold {@link #NONE}, which {@link JobEntry} keeps as no object at all.
 *
 * @param evicting       an eviction decided and not seen through yet: the job stays charged until it is seen
 *                       suspended; else null
 * @param appliedVersion the resourceVersion the applied eviction produced: a running copy newer than it was started
 *                       again; else null
 * @param unconfirmed    that eviction's answer was lost and reading the job back failed: outcome unknown
 * @param refusedUnder   the admission under which an eviction of the job was refused: it is not a victim again
 *                       under it; else null
 * @param marks          what the job carries about its evictions, and the ones applied since
 * @param podRanUnder    the admission under which a pod of the job was seen running: that admission can no longer
 *                       time out; else null
 * @param podRanRecorded the admission whose pod-ran mark was asked to be written ({@code Scheduler.podRan}): asked
 *                       once; else null
 * @param timeoutAt      when its admission times out, while it is watched for that; else null
 */
public record EvictionState(Eviction evicting, String appliedVersion, boolean unconfirmed, AdmissionRecord refusedUnder,
                     EvictionMarks marks, AdmissionRecord podRanUnder, AdmissionRecord podRanRecorded,
                     Instant timeoutAt) {

    /** No eviction, no marks, no timeout: the state of most jobs. */
    public static final EvictionState NONE = new EvictionState(null, null, false, null, EvictionMarks.NONE, null, null, null);

    /** Whether it is {@link #NONE} (equal marks count: a job's marks are read anew from each copy). */
    public boolean isNone() {
        return evicting == null && appliedVersion == null && !unconfirmed && refusedUnder == null
                && marks.equals(EvictionMarks.NONE) && podRanUnder == null && podRanRecorded == null
                && timeoutAt == null;
    }

    /** An eviction decided (or, after a restart, read off the job's marks): under way, its answer not lost. */
    public EvictionState started(Eviction eviction) {
        return new EvictionState(eviction, appliedVersion, false, refusedUnder, marks, podRanUnder, podRanRecorded,
                timeoutAt);
    }

    /** The eviction under way no longer counts (the job runs under another admission now); the rest stays. */
    public EvictionState dropped() {
        return started(null);
    }

    /**
     * The eviction was applied, as {@code written} (the time it was written in its history) at {@code version}: the
     * job's marks are that history.
     */
    public EvictionState applied(Eviction written, String version) {
        return new EvictionState(written, version, false, refusedUnder, canonical(written.history()), podRanUnder,
                podRanRecorded, timeoutAt);
    }

    /** The eviction's answer was lost and the job could not be read back. */
    public EvictionState answerLost() {
        return new EvictionState(evicting, appliedVersion, true, refusedUnder, marks, podRanUnder, podRanRecorded,
                timeoutAt);
    }

    /** The eviction was refused under {@code under}: over, and not tried again under that admission. */
    public EvictionState refused(AdmissionRecord under) {
        return new EvictionState(null, appliedVersion, false, under, marks, podRanUnder, podRanRecorded, timeoutAt);
    }

    /** The eviction is over (the job was seen suspended, or started again): nothing under way, no version kept. */
    public EvictionState over() {
        return new EvictionState(null, null, false, refusedUnder, marks, podRanUnder, podRanRecorded, timeoutAt);
    }

    /** The same, not evicted again under {@code under} (it was started again after the eviction: no tug of war). */
    public EvictionState over(AdmissionRecord under) {
        return new EvictionState(null, null, false, under, marks, podRanUnder, podRanRecorded, timeoutAt);
    }

    public EvictionState withMarks(EvictionMarks next) {
        return new EvictionState(evicting, appliedVersion, unconfirmed, refusedUnder, canonical(next), podRanUnder,
                podRanRecorded, timeoutAt);
    }

    /** {@link EvictionMarks#NONE} itself for marks equal to it: most jobs share the one instance. */
    private static EvictionMarks canonical(EvictionMarks marks) {
        return marks.equals(EvictionMarks.NONE) ? EvictionMarks.NONE : marks;
    }

    public EvictionState withPodRanUnder(AdmissionRecord record) {
        return new EvictionState(evicting, appliedVersion, unconfirmed, refusedUnder, marks, record, podRanRecorded,
                timeoutAt);
    }

    public EvictionState withPodRanRecorded(AdmissionRecord record) {
        return new EvictionState(evicting, appliedVersion, unconfirmed, refusedUnder, marks, podRanUnder, record,
                timeoutAt);
    }

    public EvictionState withTimeoutAt(Instant at) {
        return new EvictionState(evicting, appliedVersion, unconfirmed, refusedUnder, marks, podRanUnder,
                podRanRecorded, at);
    }
}
