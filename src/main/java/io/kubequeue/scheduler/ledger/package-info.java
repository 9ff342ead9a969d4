/**
 * The core's ledger: the quota groups in force, what admitted jobs use at each node (millicores, bytes, counts),
 * what is used outside kube-queue, charging and releasing, and the fit check with the shortfall that explains a miss.
 *
 * <p>The lowest part of the core above its values ({@code scheduler.model}): it sees a job only through its own port,
 * {@link io.kubequeue.scheduler.ledger.Chargeable}, and names no other part
 * ({@code ArchitectureTest.theCoresPartsRunOneWay}). It alone writes a job's charge.
 */
package io.kubequeue.scheduler.ledger;
