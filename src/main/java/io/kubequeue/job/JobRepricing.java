package io.kubequeue.job;

import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.kubequeue.pricing.PodDefaultsSource;

/**
 * Reconciles again the queued jobs of one kind whose namespace's LimitRanges (or any RuntimeClass's overhead) changed,
 * so that they are priced with what their pods would get now (docs/behaviour.md §2). Each reconciler returns one from
 * {@code prepareEventSources}. The jobs come from the kind's informer cache, and each is handed to JOSDK as an event,
 * so it is read on JOSDK's own serialized path (never beside a reconcile of the same job); only the jobs the scheduler
 * holds as pending are, since a running job's charge follows its own rule.
 *
 * @param <P> the job kind's class
 */
public class JobRepricing<P extends HasMetadata> extends AbstractEventSource<JobRepricing<?>, P> {

    private final JobFeed feed;
    private final String kind;
    private final IndexerResourceCache<P> jobs;
    private final Consumer<PodDefaultsSource.Repricing> listener = this::reprice;

    /**
     * @param feed the feed whose pricing source says what changed
     * @param kind the kind name used in job keys, e.g. {@code TFJob}
     * @param jobs the kind's informer cache (JOSDK's primary cache)
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public JobRepricing(JobFeed feed, String kind, IndexerResourceCache<P> jobs) {
        super((Class) JobRepricing.class, kind.toLowerCase(Locale.ROOT) + "-repricing");
        this.feed = feed;
        this.kind = kind;
        this.jobs = jobs;
    }

    @Override
    public void start() {
        feed.pricing().addRepricingListener(listener);
        super.start();
    }

    @Override
    public void stop() {
        feed.pricing().removeRepricingListener(listener);
        super.stop();
    }

    /** Hands every pending job of the namespaces named to JOSDK, to be reconciled (and so priced) again. */
    void reprice(PodDefaultsSource.Repricing repricing) {
        if (!isRunning() || !feed.enabled(kind)) {
            return;
        }
        var candidates = repricing.everyNamespace() ? jobs.list()
                : repricing.namespaces().stream().flatMap(jobs::list);
        candidates.filter(job -> feed.pending(kind, job))
                .forEach(job -> getEventHandler().handleEvent(new Event(ResourceID.fromResource(job))));
    }

    @Override
    public Set<JobRepricing<?>> getSecondaryResources(P primary) {
        return Set.of();
    }
}
