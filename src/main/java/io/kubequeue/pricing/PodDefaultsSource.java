package io.kubequeue.pricing;

import java.util.Set;
import java.util.function.Consumer;
import io.kubequeue.resources.PodDefaults;

/** Where a job's pod templates get their admission defaults from ({@link PodDefaultsWatch} in kube-queue). */
public interface PodDefaultsSource {

    /** No LimitRanges and no RuntimeClasses: templates are priced as written (unit tests). */
    PodDefaultsSource NONE = namespace -> PodDefaults.NONE;

    /** The defaults a new pod of this namespace gets now; {@link PodDefaults#NONE} if none. */
    PodDefaults forNamespace(String namespace);

    /**
     * Registers a listener told which namespaces' queued jobs to price again after a LimitRange or RuntimeClass
     * change; called on the watch's thread. By default there are no changes.
     */
    default void addRepricingListener(Consumer<Repricing> listener) {
    }

    /** Removes a listener added with {@link #addRepricingListener}. */
    default void removeRepricingListener(Consumer<Repricing> listener) {
    }

    /**
     * What to price again.
     *
     * @param namespaces     the namespaces whose LimitRanges changed what they give
     * @param everyNamespace a RuntimeClass's overhead changed: every namespace
     */
    record Repricing(Set<String> namespaces, boolean everyNamespace) {

        /** Whether a job of this namespace is to be priced again. */
        public boolean includes(String namespace) {
            return everyNamespace || namespaces.contains(namespace);
        }
    }
}
