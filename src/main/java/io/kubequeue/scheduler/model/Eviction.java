package io.kubequeue.scheduler.model;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A decision to suspend one admitted job again: the only other write kube-queue makes to a job besides admission.
 * The job stays charged until the cluster shows it suspended (an observation in phase {@code QUEUED}); only then is
 * its quota released. The admission side writes it and settles it with {@link io.kubequeue.scheduler.Scheduler#settleEviction}.
 *
 * @param key        the job
 * @param uid        the object's uid the decision was made for (the write must test it); null if unknown
 * @param record     the admission the job runs under; the write must test that the job still carries it, so a
 *                   decision about an admission that has ended cannot suspend a later one
 * @param reason     why
 * @param preemptor  for {@link Reason#RECLAIM}: the job the room is made for; null for a timeout
 * @param preemptorGroup for {@link Reason#RECLAIM}: the quota group that reclaims its min; null for a timeout
 * @param request    the victim's charge that is released once it is seen suspended (millicores, bytes, counts)
 * @param at         when it was decided
 * @param history    the job's evictions in the hour up to {@code at}, this one included (at {@code at}, or at when it
 *                   is written: {@link #writtenAt}): to write on the job, so a restarted kube-queue still counts them
 *                   ({@link EvictionMarks})
 */
public record Eviction(JobKey key, String uid, AdmissionRecord record, Reason reason, JobKey preemptor,
                       String preemptorGroup, Resources request, Instant at, EvictionMarks history) {

    /** Why an admitted job is suspended again. */
    public enum Reason {
        /** Its group borrows above its min, and another group reclaims its own min (docs/policies.md, "Reclaim"). */
        RECLAIM,
        /** No pod of it ran within the admission timeout (docs/policies.md, "Admission timeout"). */
        TIMEOUT
    }

    public Eviction {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(history, "history");
        if (reason == Reason.RECLAIM && preemptor == null) {
            throw new IllegalArgumentException("a reclaim names its preemptor");
        }
    }

    /**
     * The same decision as written at {@code when}: its history holds {@code when} for this eviction instead of the
     * time it was decided (never an earlier one). The job is a victim from when it is suspended, and the limits per
     * hour count from then: a write that waited (a backlog of evictions, a slow API server) stamped with the decision
     * would leave the hour early (ReclaimPropertiesTest, seed 3227737241594834361). The admission side writes this
     * one and tells the same time back ({@link EvictionOutcome.Applied#writtenAt}).
     */
    public Eviction writtenAt(Instant when) {
        List<Instant> mine = times(reason);
        int last = mine.size() - 1;
        if (when == null || !when.isAfter(at) || last < 0 || !mine.get(last).equals(at)) {
            return this;
        }
        List<Instant> moved = new java.util.ArrayList<>(mine);
        moved.set(last, when); // still oldest first: this one was the latest
        EvictionMarks written = reason == Reason.RECLAIM
                ? new EvictionMarks(history.reason(), history.preemptor(), moved, history.timedOutAt())
                : new EvictionMarks(history.reason(), history.preemptor(), history.reclaimedAt(), moved);
        return new Eviction(key, uid, record, reason, preemptor, preemptorGroup, request, at, written);
    }

    /**
     * When this eviction was written, as {@link #writtenAt} stamped it on its history; null while the history holds
     * the decision's time (not stamped, or written no later than decided).
     */
    public Instant written() {
        List<Instant> mine = times(reason);
        Instant last = mine.isEmpty() ? null : mine.get(mine.size() - 1);
        return last != null && last.isAfter(at) ? last : null;
    }

    /** The times of this job's evictions for that reason in the hour up to {@link #at}. */
    public List<Instant> times(Reason which) {
        return which == Reason.RECLAIM ? history.reclaimedAt() : history.timedOutAt();
    }
}
