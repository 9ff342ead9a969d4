/**
 * The scheduler core: quota groups, one queue per group, queue order, backoff and the fit check.
 *
 * <p>Plain Java with no Kubernetes imports, so every decision can be tested without a cluster. The
 * Kubernetes side ({@code io.kubequeue.job}, {@code io.kubequeue.quota}) turns cluster objects into
 * {@link io.kubequeue.scheduler.model.JobObservation}s and {@link io.kubequeue.scheduler.model.QuotaTree}s; the
 * admission side ({@code io.kubequeue.admission}) carries out the {@link io.kubequeue.scheduler.model.Admission}s
 * that {@link io.kubequeue.scheduler.Scheduler#schedule()} decides.
 *
 * <p>Its parts, lowest first, each using only those below it: the values ({@code model}), the ledger
 * ({@code ledger}), the queue ({@code queue}), the eviction part ({@code eviction}); this package holds what is above
 * them: the cycle, the policies, the views, the intake (observations, settlements, the tracker of answers, the
 * admission clock) and the facade, {@link io.kubequeue.scheduler.Scheduler}.
 */
package io.kubequeue.scheduler;
