/**
 * Job kinds: one small {@link io.kubequeue.job.JobKind} adapter and one thin reconciler per kind, plus the
 * {@link io.kubequeue.job.JobFeed} that turns any kind into a scheduler observation. Reads jobs; never
 * patches them (that is {@code io.kubequeue.admission}).
 */
package io.kubequeue.job;
