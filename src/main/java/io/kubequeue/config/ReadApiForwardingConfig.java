package io.kubequeue.config;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The read API across replicas (docs/configuration.md): followers forward read API calls to the leader, at the
 * address the leader publishes on its Lease ({@code io.kubequeue.leader.ReadApiLeaderAddress},
 * {@code io.kubequeue.api.ReadApiForwarding}). Kept apart from {@link KubeQueueConfig.ReadApi}, which says who may
 * read; both live under {@code kube-queue.read-api.}.
 */
@ConfigMapping(prefix = "kube-queue.read-api")
public interface ReadApiForwardingConfig {

    /**
     * This replica's read API as the other replicas reach it, published on the Lease while it leads (env
     * {@code KUBE_QUEUE_READ_API_ADVERTISED_URL}): {@code http(s)://host[:port]}, nothing else. Unset (the
     * shipped manifests): {@code http://$POD_IP:<quarkus.http.port>}. A value that is not such a URL stops
     * start-up.
     */
    Optional<String> advertisedUrl();

    /**
     * How long a follower holds a read API call while no leader is known or the leader does not take the
     * connection (a hand-over), before it answers 503 (env {@code KUBE_QUEUE_READ_API_FORWARD_WAIT}): 0 to 30 s,
     * else start-up stops.
     */
    @WithDefault("5s")
    Duration forwardWait();
}
