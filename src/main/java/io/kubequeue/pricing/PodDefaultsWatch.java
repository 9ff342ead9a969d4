package io.kubequeue.pricing;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.resources.Quantities;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.resources.ContainerDefaults;

/**
 * Watches the cluster's LimitRanges (every namespace) and RuntimeClasses ({@code node.k8s.io/v1}) and keeps, per
 * namespace, the {@link PodDefaults} its new pods get (docs/behaviour.md §2). A change that alters what a namespace's
 * pods get is handed to the repricing listeners (the job reconcilers, which read their queued jobs of that namespace
 * again); a RuntimeClass change, every namespace's.
 *
 * <p>LimitRanges are written by tenants in many clusters: each is read with the bounded quantity parsing of
 * {@link Quantities}, and one that cannot be read gets one Warning event ({@code InvalidLimitRange}) and one log line
 * per version, and is left out (its namespace is priced by its other LimitRanges); the watch and every other
 * namespace go on. A RuntimeClass whose overhead cannot be read is reported the same way ({@code InvalidRuntimeClass})
 * and adds no overhead. If LimitRanges or RuntimeClasses cannot be listed (RBAC, API server away), start-up goes on
 * without them after the first-list wait, and the informer keeps retrying: jobs are priced by their templates alone
 * until then, as before kube-queue read them.
 */
@Singleton
public class PodDefaultsWatch implements PodDefaultsSource {

    private static final Logger LOG = Logger.getLogger(PodDefaultsWatch.class);

    private final KubernetesClient client;
    private final EventRecorder events;
    private SharedIndexInformer<LimitRange> limitRanges;
    private SharedIndexInformer<RuntimeClass> runtimeClasses;
    /** Each LimitRange's defaults by uid, for the version read ({@code resourceVersion}), so none is parsed twice. */
    private final Map<String, Parsed> parsed = new ConcurrentHashMap<>();
    private final Map<String, ContainerDefaults> byNamespace = new ConcurrentHashMap<>();
    private volatile Map<String, Map<String, Quantity>> overheads = Map.of();
    private final List<Consumer<Repricing>> listeners = new CopyOnWriteArrayList<>();
    /** Versions of objects already reported as unreadable: one Warning each. */
    private final Map<String, Boolean> reported = BoundedMaps.keepingNewest(10_000);
    /** Until the first list is in, namespaces are recomputed once at its end, not once per LimitRange listed. */
    private volatile boolean listed;

    private record Parsed(String resourceVersion, ContainerDefaults defaults) {
    }

    public PodDefaultsWatch(KubernetesClient client, EventRecorder events) {
        this.client = client;
        this.events = events;
    }

    @Override
    public PodDefaults forNamespace(String namespace) {
        ContainerDefaults containers = namespace == null ? null : byNamespace.get(namespace);
        Map<String, Map<String, Quantity>> classes = overheads;
        if (containers == null && classes.isEmpty()) {
            return PodDefaults.NONE;
        }
        return new PodDefaults(containers == null ? ContainerDefaults.NONE : containers, classes);
    }

    @Override
    public void addRepricingListener(Consumer<Repricing> listener) {
        listeners.add(listener);
    }

    @Override
    public void removeRepricingListener(Consumer<Repricing> listener) {
        listeners.remove(listener);
    }

    /**
     * Starts both informers and waits up to {@code firstListWait} for their first lists (start-up: jobs recovered
     * after this are priced with them).
     */
    public void start(Duration firstListWait) {
        limitRanges = client.limitRanges().inAnyNamespace().runnableInformer(0);
        limitRanges.exceptionHandler((started, error) -> {
            LOG.errorf("cannot read LimitRanges (%s); jobs are priced without their defaults until it can",
                    error.getMessage());
            return true;
        });
        limitRanges.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(LimitRange limitRange) {
                limitRangeChanged(limitRange);
            }

            @Override
            public void onUpdate(LimitRange before, LimitRange after) {
                limitRangeChanged(after);
            }

            @Override
            public void onDelete(LimitRange limitRange, boolean deletedFinalStateUnknown) {
                parsed.remove(limitRange.getMetadata().getUid());
                limitRangeChanged(limitRange);
            }
        });
        runtimeClasses = client.resources(RuntimeClass.class).runnableInformer(0);
        runtimeClasses.exceptionHandler((started, error) -> {
            LOG.errorf("cannot read RuntimeClasses (%s); jobs are priced without pod overhead until it can",
                    error.getMessage());
            return true;
        });
        runtimeClasses.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(RuntimeClass c) {
                refreshOverheads();
            }

            @Override
            public void onUpdate(RuntimeClass before, RuntimeClass after) {
                refreshOverheads();
            }

            @Override
            public void onDelete(RuntimeClass c, boolean deletedFinalStateUnknown) {
                refreshOverheads();
            }
        });
        long deadline = System.nanoTime() + firstListWait.toNanos();
        await(limitRanges, "LimitRanges", deadline);
        await(runtimeClasses, "RuntimeClasses", deadline);
        listed = true;
        Set<String> namespaces = new HashSet<>();
        for (LimitRange limitRange : limitRanges.getStore().list()) {
            namespaces.add(limitRange.getMetadata().getNamespace());
        }
        namespaces.forEach(this::recompute);
        refreshOverheads();
    }

    private static void await(SharedIndexInformer<?> informer, String what, long deadline) {
        try {
            long left = Math.max(0, deadline - System.nanoTime());
            informer.start().toCompletableFuture().get(left, TimeUnit.NANOSECONDS);
        } catch (Exception e) {
            LOG.errorf("%s not read within the first-list wait; jobs are priced without them until they are", what);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void limitRangeChanged(LimitRange limitRange) {
        if (!listed) {
            return; // recomputed once the first list is in
        }
        String namespace = limitRange.getMetadata().getNamespace();
        if (recompute(namespace)) {
            tell(new Repricing(Set.of(namespace), false));
        }
    }

    /** The namespace's container defaults from its LimitRanges now; whether they changed. */
    private synchronized boolean recompute(String namespace) {
        ContainerDefaults merged = ContainerDefaults.NONE;
        for (LimitRange limitRange : limitRanges.getIndexer().byIndex(Cache.NAMESPACE_INDEX, namespace)) {
            ContainerDefaults one = read(limitRange);
            if (one != null) {
                merged = merged.largest(one);
            }
        }
        ContainerDefaults before = merged.isEmpty() ? byNamespace.remove(namespace)
                : byNamespace.put(namespace, merged);
        boolean changed = !merged.equals(before == null ? ContainerDefaults.NONE : before);
        if (changed) {
            LOG.debugf("container defaults of namespace %s: requests %s, limits %s", namespace, merged.requests(),
                    merged.limits());
        }
        return changed;
    }

    /** One LimitRange's defaults, parsed once per version; null (and reported once) if it cannot be read. */
    private ContainerDefaults read(LimitRange limitRange) {
        String uid = limitRange.getMetadata().getUid();
        String version = limitRange.getMetadata().getResourceVersion();
        Parsed known = uid == null ? null : parsed.get(uid);
        if (known != null && java.util.Objects.equals(known.resourceVersion(), version)) {
            return known.defaults();
        }
        ContainerDefaults defaults;
        try {
            defaults = ContainerDefaults.of(limitRange);
        } catch (RuntimeException e) {
            report(limitRange, "InvalidLimitRange", "kube-queue cannot read this LimitRange (" + e.getMessage()
                    + "); it is left out of the defaults kube-queue prices this namespace's jobs with");
            defaults = null;
        }
        if (uid != null) {
            parsed.put(uid, new Parsed(version, defaults));
        }
        return defaults;
    }

    private synchronized void refreshOverheads() {
        if (!listed) {
            return;
        }
        Map<String, Map<String, Quantity>> now = new HashMap<>();
        for (RuntimeClass c : runtimeClasses.getStore().list()) {
            if (c.getOverhead() == null || c.getOverhead().getPodFixed() == null
                    || c.getOverhead().getPodFixed().isEmpty()) {
                continue;
            }
            try {
                for (Map.Entry<String, Quantity> q : c.getOverhead().getPodFixed().entrySet()) {
                    Quantities.toUnits(q.getKey(), q.getValue());
                }
                now.put(c.getMetadata().getName(), Map.copyOf(c.getOverhead().getPodFixed()));
            } catch (RuntimeException e) {
                report(c, "InvalidRuntimeClass", "kube-queue cannot read overhead.podFixed of this RuntimeClass ("
                        + e.getMessage() + "); jobs naming it are priced without its overhead");
            }
        }
        if (!now.equals(overheads)) {
            overheads = Map.copyOf(now);
            LOG.debugf("RuntimeClass overheads in force: %s", now);
            tell(new Repricing(Set.of(), true));
        }
    }

    private void report(HasMetadata object, String reason, String message) {
        String key = object.getMetadata().getUid() + " " + object.getMetadata().getResourceVersion() + " " + reason;
        if (reported.putIfAbsent(key, Boolean.TRUE) == null) {
            events.warning(object, reason, message);
        }
    }

    private void tell(Repricing repricing) {
        for (Consumer<Repricing> listener : listeners) {
            try {
                listener.accept(repricing);
            } catch (RuntimeException e) { // one listener's failure is not the watch's
                LOG.warnf(e, "pricing jobs again after a change of %s failed", repricing);
            }
        }
    }

    @PreDestroy
    void stop() {
        if (limitRanges != null) {
            limitRanges.stop();
        }
        if (runtimeClasses != null) {
            runtimeClasses.stop();
        }
    }
}
