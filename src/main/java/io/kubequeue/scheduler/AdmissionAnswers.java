package io.kubequeue.scheduler;

import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.queue.AdmissionAnswer;
import io.kubequeue.scheduler.queue.AdmissionListener;
import io.kubequeue.scheduler.queue.JobEntry;

/**
 * What the core knows of the answer to an admission it sent, per admitted job: the version our patch produced, a lost
 * answer, the newest suspended copy seen while the patch was on its way, and whether the job was seen running since
 * its charge, kept as one {@link AdmissionAnswer} value and {@link JobEntry#seenRunning}. The only writer of those
 * fields of {@link JobEntry}: {@link Observations} (what the informer shows) and
 * {@link AdmissionSettlements} (what the admission side reports) both tell it, and {@code QueueManager} has them
 * start over at each charge. Only the core calls it, under {@link Scheduler}'s lock.
 */
final class AdmissionAnswers implements AdmissionListener {

    /** The copy {@code to} knows what {@code from} knows of its admission's answer (for {@link Scheduler#copy}). */
    void copy(JobEntry from, JobEntry to) {
        to.seenRunning(from.seenRunning());
        to.answer(from.answer()); // a value: shared
    }

    /** A new charge: nothing is known yet of its answer. */
    @Override
    public void admitted(JobEntry entry) {
        entry.seenRunning(false);
        entry.answer(AdmissionAnswer.NONE);
    }

    /** The charge is gone: no answer is awaited. */
    @Override
    public void released(JobEntry entry) {
        entry.answer(entry.answer().awaitsNone());
    }

    /** Our patch was applied (or the job found started by hand) at {@code version}: settled. */
    void confirmed(JobEntry entry, String version) {
        entry.answer(entry.answer().confirmed(version));
    }

    /** The answer was lost and reading the job back failed: the outcome is unknown until the job is seen. */
    void lost(JobEntry entry) {
        entry.answer(entry.answer().lost());
    }

    /** The job is seen running: whatever our patch did is settled, and a suspend mark seen now is a re-suspension. */
    void seenRunning(JobEntry entry) {
        entry.seenRunning(true);
        entry.answer(entry.answer().awaitsNone());
    }

    /**
     * The job is known to have run (seen draining, or charged as unreadable while running), with no answer to
     * settle.
     */
    void ran(JobEntry entry) {
        entry.seenRunning(true);
    }

    /**
     * A suspended copy seen while the admission is on its way: applied if the admission is handed back;
     * {@code unreadable}: its request cannot be read, and the job is withdrawn then.
     */
    void newestSeen(JobEntry entry, JobObservation copy, boolean unreadable) {
        entry.answer(entry.answer().newestSeen(copy, unreadable));
    }

    /** The newest copy was applied or settled: none is kept. */
    void newestTaken(JobEntry entry) {
        entry.answer(entry.answer().newestTaken());
    }
}
