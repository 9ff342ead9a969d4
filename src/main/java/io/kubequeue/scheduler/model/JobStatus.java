package io.kubequeue.scheduler.model;

import java.time.Instant;

/**
 * A read-only view of one job, for tests and events.
 *
 * @param key      the job
 * @param state    where it stands
 * @param group    the group it queues in (pending) or is charged to (admitted); null if none
 * @param request  its request (millicores, bytes, counts)
 * @param priority its priority as resolved now (PriorityClass value, explicit value, globalDefault, or 0)
 * @param attempts how many times it was tried and did not fit, or had its admission refused
 * @param retryAt  when a backed-off job is tried again; null otherwise
 * @param hold     why a held job is held; null otherwise
 * @param record   the admission record of an admitted job; null otherwise
 */
public record JobStatus(JobKey key, JobState state, String group, Resources request, int priority, int attempts,
                        Instant retryAt, Hold hold, AdmissionRecord record) {
}
