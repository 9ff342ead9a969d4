package io.kubequeue.scheduler.queue;

/**
 * Told by {@link QueueManager} when it admits a job (after the ledger has charged it) and when it releases one (after
 * the charge is off): the parts that keep state per admission start it over or let it go. Called under the
 * scheduler's lock; a listener writes only its own state of the entry.
 */
public interface AdmissionListener {

    /** The job is charged under a new admission. */
    void admitted(JobEntry entry);

    /** The job's charge is off; it is in no state yet (the caller queues it, holds it, or forgets it). */
    void released(JobEntry entry);
}
