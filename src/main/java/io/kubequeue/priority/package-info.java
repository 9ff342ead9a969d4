/**
 * The cluster's PriorityClasses, for queue order: {@link io.kubequeue.priority.PriorityClassWatch} keeps the
 * scheduler's {@link io.kubequeue.scheduler.model.PriorityClasses} current from an informer. Reads PriorityClasses;
 * writes nothing to the cluster.
 */
package io.kubequeue.priority;
