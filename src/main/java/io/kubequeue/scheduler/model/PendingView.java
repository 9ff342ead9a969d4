package io.kubequeue.scheduler.model;

/**
 * A pending job and why it is not admitted yet.
 *
 * @param status   the job's state
 * @param position its place in its group's queue, from 1 (0 for a job in no group)
 * @param reason   why it is not admitted, with the numbers (the resource, the node, request, used, limit); other
 *                 jobs it names are rendered per reader ({@link Explanation#render})
 */
public record PendingView(JobStatus status, int position, Explanation reason) {
}
