package io.kubequeue.scheduler;

/**
 * The crash-consistent record that an admission writes on the job (annotations
 * {@code kube-queue/quota-group} and {@code kube-queue/admitted-at}, docs/behaviour.md §1).
 *
 * @param group      the quota group the job was charged to
 * @param admittedAt the admission time as written (RFC 3339 with milliseconds); it tells one admission from the next
 */
public record AdmissionRecord(String group, String admittedAt) {
}
