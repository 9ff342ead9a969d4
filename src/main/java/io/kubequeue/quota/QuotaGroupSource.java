package io.kubequeue.quota;

import java.util.function.Consumer;

import io.kubequeue.scheduler.model.QuotaTree;

/**
 * A plugin that reads quota groups from the cluster (seed: {@code QueueGroupPlugin}) and reports every
 * change as a whole new {@link QuotaTree}.
 */
public interface QuotaGroupSource {

    /**
     * Starts watching and blocks until the first full list has been read and reported, or until a start-up
     * timeout, after which no quota groups are reported (every job held) until the list succeeds.
     *
     * @param onChange called with the new groups after every change that alters them (never concurrently)
     */
    void start(Consumer<QuotaTree> onChange);

    /** Stops watching. */
    void stop();
}
