package io.kubequeue.scheduler.model;

/**
 * The crash-consistent record that an admission writes on the job (annotations
 * {@code kube-queue/quota-group} and {@code kube-queue/admitted-at}, docs/behaviour.md §1).
 *
 * @param group      the quota group the job was charged to
 * @param admittedAt the admission time as written (RFC 3339 with milliseconds); it tells one admission from the
 *                   next. {@link #STARTED_OUTSIDE} for a queued job started by hand, past kube-queue.
 */
public record AdmissionRecord(String group, String admittedAt) {

    /** {@code admittedAt} of the charge of a queued job that was started without kube-queue. */
    public static final String STARTED_OUTSIDE = "unsuspended-outside-kube-queue";

    /** Whether this charge is of a job started without kube-queue. */
    public boolean startedOutside() {
        return STARTED_OUTSIDE.equals(admittedAt);
    }
}
