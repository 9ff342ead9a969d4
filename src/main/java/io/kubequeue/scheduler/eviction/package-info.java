/**
 * The core's eviction part: admission timeouts (the watch of admitted jobs), settled evictions, and reclaims (who
 * yields, the room reserved, the victims {@link io.kubequeue.scheduler.eviction.ReclaimPlanner} chooses, never below a
 * min).
 *
 * <p>Above the queue and the ledger, below the cycle, the intake and the facade
 * ({@code ArchitectureTest.theCoresPartsRunOneWay}). It alone writes a job's eviction state and whom it yields to.
 */
package io.kubequeue.scheduler.eviction;
