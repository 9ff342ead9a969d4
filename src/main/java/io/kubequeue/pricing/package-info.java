/**
 * Pricing: keeps current what a namespace's new pods get from the API server's admission plugins (LimitRange
 * defaults, RuntimeClass {@code overhead.podFixed}), so a job's pod templates are counted as its pods will be
 * (docs/behaviour.md §2). {@link io.kubequeue.pricing.PodDefaultsWatch} follows LimitRanges and RuntimeClasses with
 * informers, offers the result as a {@link io.kubequeue.pricing.PodDefaultsSource} and says which namespaces to
 * price again; the arithmetic itself is {@code io.kubequeue.resources}. Reads LimitRanges and RuntimeClasses; writes
 * nothing to the cluster but Warning events on LimitRanges it cannot read. No scheduler state here.
 */
package io.kubequeue.pricing;
