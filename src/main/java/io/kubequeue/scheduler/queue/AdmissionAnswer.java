package io.kubequeue.scheduler.queue;

import io.kubequeue.scheduler.model.JobObservation;

/**
 * What the core knows of the answer to one admitted job's admission, as {@code AdmissionAnswers}, its only writer,
 * holds it (docs/architecture.md, "Who owns what"). An immutable value, changed in one assignment and shared by
 * {@code Scheduler.copy}; {@link #NONE}, which {@link JobEntry} keeps as no object at all, for every pending job.
 *
 * @param confirmedVersion the resourceVersion our admission patch produced (or the job was found at, started by
 *                         hand); else null
 * @param unconfirmed      the answer was lost (5xx, timeout) and reading the job back failed: outcome unknown
 * @param newest           the newest suspended copy seen while the admission was on its way: applied if it is handed
 *                         back; else null
 * @param newestUnreadable that copy's request cannot be read: if the admission is handed back, the job is withdrawn
 */
public record AdmissionAnswer(String confirmedVersion, boolean unconfirmed, JobObservation newest,
                              boolean newestUnreadable) {

    /** Nothing known, nothing awaited. */
    public static final AdmissionAnswer NONE = new AdmissionAnswer(null, false, null, false);

    boolean isNone() {
        return confirmedVersion == null && !unconfirmed && newest == null && !newestUnreadable;
    }

    /** Settled: our patch applied (or the job was found started by hand) at {@code version}. */
    public AdmissionAnswer confirmed(String version) {
        return new AdmissionAnswer(version, false, newest, newestUnreadable);
    }

    /** The answer was lost and the job could not be read back. */
    public AdmissionAnswer lost() {
        return new AdmissionAnswer(confirmedVersion, true, newest, newestUnreadable);
    }

    /** No answer is awaited any more (the job is seen running, or its charge is gone). */
    public AdmissionAnswer awaitsNone() {
        return new AdmissionAnswer(confirmedVersion, false, newest, newestUnreadable);
    }

    /** A suspended copy seen while the admission is on its way ({@code unreadable}: its request cannot be read). */
    public AdmissionAnswer newestSeen(JobObservation copy, boolean unreadable) {
        return new AdmissionAnswer(confirmedVersion, unconfirmed, copy, unreadable);
    }

    /** The newest copy was applied or settled: none is kept. */
    public AdmissionAnswer newestTaken() {
        return new AdmissionAnswer(confirmedVersion, unconfirmed, null, false);
    }
}
