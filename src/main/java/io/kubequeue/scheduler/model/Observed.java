package io.kubequeue.scheduler.model;

/**
 * What one {@link io.kubequeue.scheduler.Scheduler#observe} changed, decided under the core's lock, so that the caller turns it into
 * effects (an event, a condition, a record to write, a read-back) without asking the core again.
 *
 * @param change      the transition
 * @param group       the group the job queues in (pending) or is charged to (admitted) now; null if none or not held
 * @param record      the job's admission record now; null unless admitted
 * @param held        whether the core still holds the job (pending or admitted); a job withdrawn as unreadable is
 *                    not held
 * @param released    whether a charge of this job was taken off: room was freed
 * @param unconfirmed the job's admission whose answer was lost, if this copy is the cue to read it back (a
 *                    suspended copy arrived; see {@link io.kubequeue.scheduler.Scheduler#unconfirmedAdmission}); else null
 */
public record Observed(Change change, String group, AdmissionRecord record, boolean held, boolean released,
                       Admission unconfirmed) {

    /** The transitions {@link io.kubequeue.scheduler.Scheduler#observe} reports. */
    public enum Change {
        /** Not managed by kube-queue (never suspended, or paused by someone else): nothing done. */
        IGNORED,
        /** An older copy of a job already seen finished or deleted, or the end of an older namesake: nothing done. */
        STALE,
        /** First seen suspended: now pending (in its group's queue, or held if it has none). */
        QUEUED,
        /** Was admitted and was suspended again: its quota released, it is pending again. */
        REQUEUED,
        /** Seen again in the same state: request, priority or labels updated in place. */
        UPDATED,
        /** Charged as its admission record says (start-up recovery, another replica's admission). */
        CHARGED,
        /**
         * Started without kube-queue's admission (mark removed by hand, or ignored by its controller): charged to its
         * group as started outside; {@link #record()} is the record to write on the job, so a restart keeps it.
         */
        CHARGED_STARTED_OUTSIDE,
        /** Finished or deleted: forgotten, its quota released. */
        FORGOTTEN
    }
}
