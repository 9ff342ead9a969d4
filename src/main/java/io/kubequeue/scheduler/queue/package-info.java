/**
 * The core's queue: every job the core holds ({@link io.kubequeue.scheduler.queue.JobEntry}), one queue per quota
 * group (active and backed-off jobs, backoff waves, holds), queue order, and admitting or releasing a job (the ledger
 * charges it; the {@link io.kubequeue.scheduler.queue.AdmissionListener}s are told).
 *
 * <p>Above the ledger, below the eviction part and the rest of the core
 * ({@code ArchitectureTest.theCoresPartsRunOneWay}). It alone writes a job's placement (state, group, tries, retry
 * time, hold, the copy decided on). The entry also carries the values the parts above it own
 * ({@link io.kubequeue.scheduler.queue.AdmissionAnswer}, {@link io.kubequeue.scheduler.queue.EvictionState}): their
 * types live here with it, their one writer is above ({@code ArchitectureTest.everyFieldOfTheCoreHasOneWriter}).
 */
package io.kubequeue.scheduler.queue;
