/**
 * Pricing: a job's pod templates as the API server's admission plugins will make their pods, before their request
 * is counted (docs/behaviour.md §2). {@link io.kubequeue.pricing.ContainerDefaults} reads a namespace's
 * LimitRanges as the LimitRanger plugin applies them, {@link io.kubequeue.pricing.PodDefaults} applies them and the
 * RuntimeClass plugin's {@code overhead.podFixed} to a pod spec, and {@link io.kubequeue.pricing.PodDefaultsWatch}
 * keeps both current from informers and says which namespaces to price again. Reads LimitRanges and RuntimeClasses;
 * writes nothing to the cluster but Warning events on LimitRanges it cannot read. No scheduler state here.
 */
package io.kubequeue.pricing;
