package io.kubequeue.quota.resourcequota;

import java.util.function.Consumer;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.QueueGroupPlugin;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.quota.QuotaPlugin;
import io.kubequeue.scheduler.ClusterIntake;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/**
 * {@code QueueGroupPlugin=resourcequota}: every namespace is a group, limited by its ResourceQuotas
 * ({@link ResourceQuotaSource}); what their pods use outside kube-queue's admitted jobs is counted from the pods of
 * admitted jobs ({@link AdmittedPods}) and given to the scheduler, and a job's room opens when its pods are
 * recounted (docs/configuration.md, "The quota plugins").
 */
@Singleton
public class ResourceQuotaPlugin implements QuotaPlugin {

    private final KubernetesClient client;
    private final KubeQueueConfig config;
    private final EventRecorder events;
    private final AdmittedPods admittedPods;
    private final ClusterIntake scheduler;
    private volatile ResourceQuotaSource source;

    public ResourceQuotaPlugin(KubernetesClient client, KubeQueueConfig config, EventRecorder events,
                               AdmittedPods admittedPods, ClusterIntake scheduler) {
        this.client = client;
        this.config = config;
        this.events = events;
        this.admittedPods = admittedPods;
        this.scheduler = scheduler;
    }

    @Override
    public QueueGroupPlugin plugin() {
        return QueueGroupPlugin.RESOURCEQUOTA;
    }

    @Override
    public String stepName() {
        return "quota groups (ResourceQuotas and the pods of admitted jobs)";
    }

    /** The pods of admitted jobs, then the ResourceQuotas (which block until their first list). */
    @Override
    public void start(Consumer<QuotaTree> onChange, Runnable roomOpened) {
        ResourceQuotaSource quotas = new ResourceQuotaSource(client, events, config.firstListTimeout(),
                admittedPods::usage, new ResourceQuotaSource.OutsideUsage() {
                    @Override
                    public long ticket(String namespace) {
                        return scheduler.externalRecountTicket(namespace);
                    }

                    @Override
                    public void set(String namespace, Resources used, long ticket) {
                        scheduler.setExternalUsage(namespace, used, ticket);
                        // under this plugin a finished job's room opens here, when its pods are recounted
                        roomOpened.run();
                    }
                });
        source = quotas;
        scheduler.trackExternalUsage(quotas::recomputeSoon); // pods of a released job stay counted
        admittedPods.start(quotas::recompute); // before the quotas: a pod seen first counts from the quota's list
        quotas.start(onChange);
    }

    /** Stops the source; {@link AdmittedPods} stops itself ({@code @PreDestroy}). */
    @Override
    public void stop() {
        if (source != null) {
            source.stop();
        }
    }

    /** Each quota's use outside the admitted jobs is recounted: their pods are counted once. */
    @Override
    public void admittedJobsKnown() {
        ResourceQuotaSource quotas = source;
        if (quotas != null) {
            quotas.recomputeAll();
        }
    }
}
