package io.kubequeue.scheduler.model;

/** What {@link io.kubequeue.scheduler.Scheduler#observeUnreadable} did with a job whose request cannot be read. */
public enum Unreadable {
    /** Not managed by kube-queue: nothing done. */
    IGNORED,
    /** Suspended: out of the queue until it can be read (it stays suspended, and is read again on its next change). */
    WITHDRAWN,
    /** Admitted or running: it stays charged at its last known request (see {@link JobStatus#request()}). */
    KEPT,
    /**
     * Running, with no known request: charged one job; its group admits nothing and the groups above count it at
     * the most its limits let it use, until it ends or is fixed.
     */
    HOLDS_GROUP
}
