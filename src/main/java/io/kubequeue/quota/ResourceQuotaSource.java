package io.kubequeue.quota;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.scheduler.QuotaNode;
import io.kubequeue.scheduler.QuotaTree;
import io.kubequeue.scheduler.Resources;

/**
 * Quota groups from ResourceQuotas (plugin {@code resourcequota}; docs/behaviour.md §3): each namespace is a group
 * whose limits are the {@code spec.hard} of its ResourceQuotas (with several, each must hold, so the smallest
 * value of each resource wins). A namespace with no ResourceQuota is unlimited.
 *
 * <p>Keys read: {@code cpu}, {@code requests.cpu}, {@code memory}, {@code requests.memory} and
 * {@code requests.<extended>} (e.g. {@code requests.nvidia.com/gpu}). {@code limits.*} and {@code count/*}
 * are not read yet. For now usage counts admitted jobs only: pods that already use the quota outside
 * kube-queue are not subtracted (a later issue).
 */
public class ResourceQuotaSource extends InformedQuotaSource<ResourceQuota> {

    private final KubernetesClient client;
    private final EventRecorder events;

    /** @param firstListWait how long start-up waits for the first list */
    public ResourceQuotaSource(KubernetesClient client, EventRecorder events, Duration firstListWait) {
        super(firstListWait);
        this.client = client;
        this.events = events;
    }

    @Override
    protected SharedIndexInformer<ResourceQuota> informer() {
        return client.resourceQuotas().inAnyNamespace().runnableInformer(0);
    }

    @Override
    protected String describe() {
        return "ResourceQuotas";
    }

    @Override
    protected QuotaTree build(List<ResourceQuota> quotas, QuotaTree current) {
        Map<String, Resources> limits = new TreeMap<>();
        for (ResourceQuota quota : quotas) {
            Resources hard = hardLimits(quota);
            limits.merge(quota.getMetadata().getNamespace(), hard, ResourceQuotaSource::smallest);
        }
        List<QuotaNode> nodes = new ArrayList<>();
        limits.forEach((ns, max) -> nodes.add(new QuotaNode(ns, null, List.of(ns), null, max)));
        return QuotaTree.perNamespace(nodes);
    }

    /** The request limits of one quota, keyed by resource name (millicores, bytes, counts). */
    Resources hardLimits(ResourceQuota quota) {
        Map<String, Quantity> hard = quota.getSpec() == null || quota.getSpec().getHard() == null
                ? Map.of() : quota.getSpec().getHard();
        Map<String, Long> limits = new HashMap<>();
        hard.forEach((key, quantity) -> {
            String resource = requestResource(key);
            if (resource == null) {
                return;
            }
            try {
                limits.merge(resource, Quantities.toUnits(resource, quantity), Math::min);
            } catch (IllegalArgumentException e) {
                // the API server validates quotas, so this is a hand-made object; hold to zero, never over-admit
                events.warning(quota, "InvalidQuota", "spec.hard." + key + ": " + e.getMessage());
                limits.put(resource, 0L);
            }
        });
        return Resources.of(limits);
    }

    /** Maps a {@code spec.hard} key to the request resource it limits, or null for keys not read here. */
    static String requestResource(String key) {
        if (key.equals("cpu") || key.equals("memory")) {
            return key;
        }
        if (key.startsWith("requests.")) {
            return key.substring("requests.".length());
        }
        return null;
    }

    private static Resources smallest(Resources a, Resources b) {
        Map<String, Long> merged = new HashMap<>(a.asMap());
        b.asMap().forEach((k, v) -> merged.merge(k, v, Math::min));
        return Resources.of(merged);
    }
}
