package io.kubequeue.quota;

import java.util.List;
import java.util.function.Consumer;

import io.kubequeue.config.QueueGroupPlugin;
import io.kubequeue.scheduler.model.QuotaTree;

/**
 * One quota plugin (seed: {@code QueueGroupPlugin}): a bean in its own folder under {@code quota/}, which brings
 * everything its choice means — its source of quota groups, what it starts beside it (the ElasticQuotaTree's status
 * writer; the pods of admitted jobs, counted outside kube-queue) and what it does once the admitted jobs are known.
 * Start-up picks the one bean whose {@link #plugin()} is the configured value; adding a plugin is its folder plus a
 * value of {@link QueueGroupPlugin} ({@code QuotaPluginsTest} fails on a value with no bean, or two).
 */
public interface QuotaPlugin {

    /** The {@code QueueGroupPlugin} value that selects this plugin. */
    QueueGroupPlugin plugin();

    /** What start-up calls this step, e.g. {@code quota groups (ElasticQuotaTree and its status)}. */
    String stepName();

    /**
     * Starts the plugin and blocks until its groups' first full list is reported (or the first-list timeout passed,
     * see {@link QuotaGroupSource#start}).
     *
     * @param onChange   called with the whole new set of groups after every change (never concurrently)
     * @param roomOpened called when room may have opened outside a tree change (a quota recounted): try admitting
     */
    void start(Consumer<QuotaTree> onChange, Runnable roomOpened);

    /** Stops what {@link #start} started. */
    void stop();

    /**
     * Every admitted job is known (after recovery, and when this replica starts to lead): what the plugin counts
     * beside them is counted again. Nothing by default.
     */
    default void admittedJobsKnown() {
    }

    /**
     * The one plugin of {@code plugins} that {@code chosen} selects.
     *
     * @throws IllegalStateException if none or several do (a plugin without its bean, or two beans for one value)
     */
    static QuotaPlugin select(List<? extends QuotaPlugin> plugins, QueueGroupPlugin chosen) {
        List<QuotaPlugin> matching = plugins.stream().filter(p -> p.plugin() == chosen).map(QuotaPlugin.class::cast)
                .toList();
        if (matching.size() != 1) {
            throw new IllegalStateException("QueueGroupPlugin " + chosen.value() + ": " + matching.size()
                    + " plugin beans, expected one");
        }
        return matching.get(0);
    }
}
