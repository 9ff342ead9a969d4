/**
 * The scheduler core: quota groups, one queue per group, queue order, backoff and the fit check.
 *
 * <p>Plain Java with no Kubernetes imports, so every decision can be tested without a cluster. The
 * Kubernetes side ({@code io.kubequeue.job}, {@code io.kubequeue.quota}) turns cluster objects into
 * {@link io.kubequeue.scheduler.model.JobObservation}s and {@link io.kubequeue.scheduler.model.QuotaTree}s; the
 * admission side ({@code io.kubequeue.admission}) carries out the {@link io.kubequeue.scheduler.model.Admission}s
 * that {@link io.kubequeue.scheduler.Scheduler#schedule()} decides.
 */
package io.kubequeue.scheduler;
