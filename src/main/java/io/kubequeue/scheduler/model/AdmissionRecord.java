package io.kubequeue.scheduler.model;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The crash-consistent record that an admission writes on the job (annotations
 * {@code kube-queue/quota-group} and {@code kube-queue/admitted-at}, docs/behaviour.md §1).
 *
 * @param group      the quota group the job was charged to
 * @param admittedAt the admission time as written (RFC 3339 with milliseconds); it tells one admission from the
 *                   next. {@link #STARTED_OUTSIDE} for a queued job started by hand, past kube-queue.
 */
public record AdmissionRecord(String group, String admittedAt) {

    /**
     * The format of {@link #admittedAt()}: RFC 3339 in UTC, always with milliseconds (e.g.
     * {@code 2026-11-29T22:04:14.000Z}). Each admission a scheduler decides is at least a millisecond after the one
     * before, so no two share a record.
     */
    public static final DateTimeFormatter ADMITTED_AT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX")
            .withZone(ZoneOffset.UTC);

    /** {@code admittedAt} of the charge of a queued job that was started without kube-queue. */
    public static final String STARTED_OUTSIDE = "unsuspended-outside-kube-queue";

    /** Whether this charge is of a job started without kube-queue. */
    public boolean startedOutside() {
        return STARTED_OUTSIDE.equals(admittedAt);
    }
}
