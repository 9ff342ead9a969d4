/**
 * Start-time estimates and what-if (issue 30; docs/observability.md, "Start-time estimates"): the cluster's history
 * of run times ({@link io.kubequeue.scheduler.forecast.RunTimeHistory}), and the replay of the core forward on a copy
 * of it ({@link io.kubequeue.scheduler.forecast.Replay}) through the port {@link
 * io.kubequeue.scheduler.forecast.Simulation}, which the facade implements on a {@code Scheduler.copy}. A part of
 * the core: no Kubernetes types, and it never uses the facade itself.
 */
package io.kubequeue.scheduler.forecast;
