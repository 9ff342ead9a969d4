package io.kubequeue.quota.elastic;

import java.util.function.Consumer;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.QueueGroupPlugin;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.leader.Leadership;
import io.kubequeue.quota.QuotaPlugin;
import io.kubequeue.scheduler.model.QuotaTree;

/**
 * {@code QueueGroupPlugin=elasticquota} (the default): the groups are the nodes of the ElasticQuotaTree in
 * {@code kube-queue.elastic-quota.namespace} ({@link ElasticQuotaTreeSource}); the leader writes the tree's status
 * ({@link QuotaTreeStatusWriter}), so that {@code kubectl get eqt} shows what is used.
 */
@Singleton
public class ElasticQuotaPlugin implements QuotaPlugin {

    private final KubernetesClient client;
    private final KubeQueueConfig config;
    private final EventRecorder events;
    private final QuotaTreeStatusWriter treeStatus;
    private final Leadership leadership;
    private ElasticQuotaTreeSource source;

    public ElasticQuotaPlugin(KubernetesClient client, KubeQueueConfig config, EventRecorder events,
                              QuotaTreeStatusWriter treeStatus, Leadership leadership) {
        this.client = client;
        this.config = config;
        this.events = events;
        this.treeStatus = treeStatus;
        this.leadership = leadership;
    }

    @Override
    public QueueGroupPlugin plugin() {
        return QueueGroupPlugin.ELASTICQUOTA;
    }

    @Override
    public String stepName() {
        return "quota groups (ElasticQuotaTree and its status)";
    }

    /** The status writer, then the tree (which blocks until its first list). */
    @Override
    public void start(Consumer<QuotaTree> onChange, Runnable roomOpened) {
        source = new ElasticQuotaTreeSource(client, config.elasticQuota().namespace(), events, config.firstListTimeout());
        treeStatus.follow(source, leadership::isLeader); // the leader writes the tree's status: kubectl get eqt
        source.start(onChange);
    }

    @Override
    public void stop() {
        treeStatus.stop();
        if (source != null) {
            source.stop();
        }
    }
}
