package io.kubequeue.scheduler;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A decision to suspend one admitted job again: the only other write kube-queue makes to a job besides admission.
 * The job stays charged until the cluster shows it suspended (an observation in phase {@code QUEUED}); only then is
 * its quota released. The admission side writes it and settles it with {@link Scheduler#settleEviction}.
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
 * @param history    the job's evictions in the hour up to {@code at}, this one included: to write on the job, so a
 *                   restarted kube-queue still counts them ({@link EvictionMarks})
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

    /** The times of this job's evictions for that reason in the hour up to {@link #at}. */
    public List<Instant> times(Reason which) {
        return which == Reason.RECLAIM ? history.reclaimedAt() : history.timedOutAt();
    }
}
