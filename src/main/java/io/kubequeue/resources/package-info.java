/**
 * Resource arithmetic that the job kinds, the quota plugins and pricing share: Kubernetes quantities to the core's
 * units ({@link io.kubequeue.resources.Quantities}: millicores, bytes, counts; fabric8 {@code Quantity} arithmetic,
 * never doubles), a pod's request by the API server's rules ({@link io.kubequeue.resources.PodRequests},
 * docs/behaviour.md §2), and what the LimitRanger and RuntimeClass admission plugins add to a pod spec before it is
 * counted ({@link io.kubequeue.resources.ContainerDefaults}, {@link io.kubequeue.resources.PodDefaults}).
 *
 * <p>Pure functions and values: no informers, no client, no scheduler state. It may import only the core's value
 * {@link io.kubequeue.scheduler.model.Resources} and {@code io.kubequeue.input}; every package above it may import it
 * (the layering rule in {@code ArchitectureTest}).
 */
package io.kubequeue.resources;
