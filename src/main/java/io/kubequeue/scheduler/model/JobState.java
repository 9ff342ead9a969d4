package io.kubequeue.scheduler.model;

/** Where a job stands inside the scheduler. */
public enum JobState {
    /** Pending, in its group's queue, tried in the next cycle. */
    ACTIVE,
    /** Pending, did not fit; tried again at {@link JobStatus#retryAt()}. */
    BACKOFF,
    /** Pending, not tried until the quota groups change (see {@link JobStatus#hold()}). */
    HELD,
    /** Admitted: its request is charged to its group and every ancestor. */
    ADMITTED
}
