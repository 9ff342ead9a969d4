package io.kubequeue.scheduler;

/**
 * The default policy (neither strict switch set): a job that does not fit backs off, doubling up to the max backoff,
 * and the jobs behind it are tried in the same cycle; a release wakes nobody early. Every answer is
 * {@link QueuePolicy}'s default.
 */
final class DefaultPolicy implements QueuePolicy {
}
