/**
 * The core's values: what the Kubernetes side tells the core ({@link io.kubequeue.scheduler.model.JobObservation},
 * {@link io.kubequeue.scheduler.model.QuotaTree}, {@link io.kubequeue.scheduler.model.JobPriority}), what the core
 * decides ({@link io.kubequeue.scheduler.model.CycleResult}: {@link io.kubequeue.scheduler.model.Admission}s,
 * {@link io.kubequeue.scheduler.model.Eviction}s, {@link io.kubequeue.scheduler.model.Hold}s), and what the
 * admission side reports back ({@link io.kubequeue.scheduler.model.AdmissionOutcome},
 * {@link io.kubequeue.scheduler.model.EvictionOutcome}); amounts are {@link io.kubequeue.scheduler.model.Resources}
 * (millicores, bytes, counts).
 *
 * <p>Immutable, plain Java, no Kubernetes imports; nothing here holds state or knows the core's parts, which live in
 * {@code io.kubequeue.scheduler} and are the only writers of what they hold.
 */
package io.kubequeue.scheduler.model;
