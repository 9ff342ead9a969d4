package io.kubequeue.quota.resourcequota;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.ToLongBiFunction;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.quota.AdmissionTimeoutAnnotations;
import io.kubequeue.quota.InformedQuotaSource;
import io.kubequeue.resources.Quantities;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/**
 * Quota groups from ResourceQuotas (plugin {@code resourcequota}; docs/behaviour.md §3): each namespace is a group
 * whose limits are the {@code spec.hard} of its ResourceQuotas (with several, each must hold, so the smallest
 * value of each resource wins). A namespace with no ResourceQuota is unlimited.
 *
 * <p>Keys read: {@code cpu}, {@code requests.cpu}, {@code memory}, {@code requests.memory},
 * {@code ephemeral-storage}, {@code requests.ephemeral-storage}, {@code requests.<extended>} (e.g.
 * {@code requests.nvidia.com/gpu}), and {@code limits.cpu} / {@code limits.memory} /
 * {@code limits.ephemeral-storage}, checked against the jobs' limits. {@code count/*} and other keys are ignored.
 * Hard limits are rounded down, used amounts up ({@link Quantities}).
 *
 * <p><b>Usage.</b> The scheduler counts the requests of the jobs it admitted. What else uses the quota is
 * {@code status.used} minus the pods of those admitted jobs (Kubernetes counts them already; volcano#4220), so
 * that a pod is counted once: usage = {@code status.used} − (pods of admitted jobs) + (admitted jobs). With
 * several quotas each must hold: the room left is the least any of them leaves. Quota scopes ({@code scopes},
 * {@code scopeSelector}) are not read: a scoped quota is applied to every job of its namespace, which is
 * stricter than Kubernetes, never looser.
 *
 * <p><b>Admission timeout.</b> A ResourceQuota's annotation {@value AdmissionTimeoutAnnotations#QUOTA} sets the
 * admission timeout of its namespace's group ({@link AdmissionTimeoutAnnotations}); with several quotas that set
 * one, the shortest applies, and {@code 0} (off) only if none sets a longer one. A value that does not read gets a
 * Warning on its quota and is left out.
 */
public class ResourceQuotaSource extends InformedQuotaSource<ResourceQuota> {

    /**
     * Where the usage outside kube-queue goes (the scheduler): a recount takes a ticket first, and its figure is
     * dropped if a job was released in the namespace meanwhile (a newer recount follows).
     */
    public interface OutsideUsage {
        /** The ticket of a recount starting now. */
        long ticket(String namespace);

        /** The namespace's usage outside kube-queue (millicores, bytes, counts), as of {@code ticket}. */
        void set(String namespace, Resources used, long ticket);
    }

    /** Requests (and limits) of the pods of admitted jobs in a namespace; see {@link AdmittedPods}. */
    @FunctionalInterface
    public interface AdmittedPodUsage {
        /**
         * @param namespace            the namespace
         * @param quotaStatusSeenNanos {@link System#nanoTime()} when its quota status last changed
         * @return millicores, bytes, counts, with limits as {@code limits.cpu} / {@code limits.memory} /
         *         {@code limits.ephemeral-storage}
         */
        Resources usage(String namespace, long quotaStatusSeenNanos);
    }

    private final KubernetesClient client;
    private final EventRecorder events;
    private final AdmissionTimeoutAnnotations timeouts;
    private final AdmittedPodUsage admittedPods;
    private final OutsideUsage externalUsage;
    private final Map<String, Long> statusSeenNanos = new ConcurrentHashMap<>();
    private final Set<String> recountPending = ConcurrentHashMap.newKeySet();
    private final ExecutorService recounts =
            Executors.newSingleThreadExecutor(DaemonThreads.named("kube-queue-quota-recount"));

    /**
     * @param firstListWait how long start-up waits for the first list
     * @param admittedPods  the pods of admitted jobs per namespace
     * @param externalUsage receives, per namespace, what uses its quota outside kube-queue's admitted jobs
     */
    public ResourceQuotaSource(KubernetesClient client, EventRecorder events, Duration firstListWait,
                               AdmittedPodUsage admittedPods, OutsideUsage externalUsage) {
        super(firstListWait);
        this.client = client;
        this.events = events;
        this.timeouts = new AdmissionTimeoutAnnotations(events);
        this.admittedPods = admittedPods;
        this.externalUsage = externalUsage;
    }

    @Override
    protected SharedIndexInformer<ResourceQuota> informer() {
        return client.resourceQuotas().inAnyNamespace().runnableInformer(0);
    }

    @Override
    protected String describe() {
        return "ResourceQuotas";
    }

    /**
     * One group per namespace with a quota. A namespace with a quota whose usage Kubernetes has not counted yet
     * ({@code status.hard} does not match {@code spec.hard}: a new quota, or one just changed) is held: its
     * {@code status.used} cannot be trusted, and Kubernetes itself refuses the namespace's pods until then.
     */
    @Override
    protected QuotaTree build(List<ResourceQuota> quotas, QuotaTree current) {
        Map<String, Resources> limits = new TreeMap<>();
        Map<String, String> uncounted = new TreeMap<>();
        Map<String, Duration> timeoutOf = new TreeMap<>();
        for (ResourceQuota quota : quotas) {
            Resources hard = hardLimits(quota);
            String ns = quota.getMetadata().getNamespace();
            limits.merge(ns, hard, ResourceQuotaSource::smallest);
            Duration timeout = timeouts.ofQuota(quota);
            if (timeout != null) {
                timeoutOf.merge(ns, timeout, ResourceQuotaSource::shorter);
            }
            if (!counted(quota)) {
                uncounted.putIfAbsent(ns, "ResourceQuota " + ns + "/" + quota.getMetadata().getName()
                        + " has no status for its spec.hard yet (the quota controller has not counted the namespace's"
                        + " usage); held until it has");
            }
        }
        List<QuotaNode> nodes = new ArrayList<>();
        limits.forEach((ns, max) -> nodes.add(new QuotaNode(ns, null, List.of(ns), null, max).held(uncounted.get(ns))
                .withAdmissionTimeout(timeoutOf.get(ns))));
        return QuotaTree.perNamespace(nodes);
    }

    /**
     * Whether the quota controller has counted this quota: {@code status.hard} holds every key of {@code spec.hard}
     * with an equal amount (Kubernetes writes it together with {@code status.used}).
     */
    static boolean counted(ResourceQuota quota) {
        Map<String, Quantity> hard = quota.getSpec() == null || quota.getSpec().getHard() == null
                ? Map.of() : quota.getSpec().getHard();
        Map<String, Quantity> seen = quota.getStatus() == null || quota.getStatus().getHard() == null
                ? Map.of() : quota.getStatus().getHard();
        for (Map.Entry<String, Quantity> h : hard.entrySet()) {
            Quantity status = seen.get(h.getKey());
            try {
                if (status == null || h.getValue() == null
                        || Quantities.amount(status).compareTo(Quantities.amount(h.getValue())) != 0) {
                    return false;
                }
            } catch (RuntimeException e) {
                return false; // an unreadable amount: hardLimits says so with an event
            }
        }
        return true;
    }

    @Override
    protected void changed(ResourceQuota before, ResourceQuota after) {
        ResourceQuota quota = after != null ? after : before;
        String ns = quota.getMetadata().getNamespace();
        Map<String, Quantity> usedBefore = before == null || before.getStatus() == null ? null : before.getStatus().getUsed();
        Map<String, Quantity> usedAfter = after == null || after.getStatus() == null ? null : after.getStatus().getUsed();
        if (!sameText(usedBefore, usedAfter)) {
            statusSeenNanos.put(ns, System.nanoTime());
        }
        recompute(ns);
    }

    /**
     * Whether two {@code status.used} maps are written the same. Not {@code Map.equals}: fabric8's
     * {@code Quantity.equals} computes both amounts, unbounded (docs/security.md, "Hostile input: the bounds"); a
     * change of writing alone ({@code 1000m} for {@code 1}) only counts as a status change, which costs nothing.
     */
    private static boolean sameText(Map<String, Quantity> a, Map<String, Quantity> b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (Map.Entry<String, Quantity> entry : a.entrySet()) {
            Quantity other = b.get(entry.getKey());
            if (entry.getValue() == null || other == null ? entry.getValue() != other
                    : !(Objects.equals(entry.getValue().getAmount(), other.getAmount())
                    && Objects.equals(entry.getValue().getFormat(), other.getFormat()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Recomputes what uses the namespace's quota outside kube-queue's admitted jobs, and reports it: per resource,
     * the largest over the namespace's quotas of {@code status.used} − (pods of admitted jobs), never below 0.
     * Called on every quota change, and by the pod watch when pods of admitted jobs change.
     *
     * @param namespace the namespace
     */
    public synchronized void recompute(String namespace) {
        long ticket = externalUsage.ticket(namespace);
        // per resource: the smallest hard limit (the group's max), and the least room any quota leaves
        Map<String, Long> smallestHard = new HashMap<>();
        Map<String, Long> leastRoom = new HashMap<>();
        Resources pods = null;
        for (ResourceQuota quota : objects()) {
            if (!namespace.equals(quota.getMetadata().getNamespace())) {
                continue;
            }
            if (pods == null) {
                pods = admittedPods.usage(namespace, statusSeenNanos.getOrDefault(namespace, Long.MIN_VALUE));
            }
            Resources used = usedAmounts(quota);
            for (Map.Entry<String, Long> hard : hardLimits(quota).asMap().entrySet()) {
                String r = hard.getKey();
                long outside = Math.max(0, used.get(r) - pods.get(r));
                smallestHard.merge(r, hard.getValue(), Math::min);
                leastRoom.merge(r, hard.getValue() - outside, Math::min); // both ≥ 0: cannot overflow
            }
        }
        // reported as usage outside kube-queue against the smallest hard limit, so that max − outside is exactly
        // the least room of all quotas: each quota must hold, and one with another scope does not over-count
        Map<String, Long> outside = new HashMap<>();
        smallestHard.forEach((r, hard) -> {
            long room = leastRoom.get(r);
            outside.put(r, room < 0 && hard > Long.MAX_VALUE + room ? Long.MAX_VALUE : hard - room);
        });
        externalUsage.set(namespace, Resources.of(outside), ticket);
    }

    /**
     * Asks for {@link #recompute} of a namespace on this source's own thread, without waiting; requests for a
     * namespace already waiting join it. Safe to call while holding the scheduler's lock.
     */
    public void recomputeSoon(String namespace) {
        if (recountPending.add(namespace)) {
            try {
                recounts.execute(() -> {
                    recountPending.remove(namespace);
                    recompute(namespace);
                });
            } catch (RejectedExecutionException e) {
                recountPending.remove(namespace); // shutting down: nothing is admitted any more
            }
        }
    }

    @Override
    public void stop() {
        super.stop();
        recounts.shutdownNow();
    }

    /** Recomputes every namespace that has a quota: after start-up recovery, once admitted jobs are known. */
    public void recomputeAll() {
        new TreeSet<>(objects().stream().map(q -> q.getMetadata().getNamespace()).toList()).forEach(this::recompute);
    }

    /**
     * The limits of one quota, keyed by resource name (millicores, bytes, counts), rounded down: Kubernetes
     * compares {@code spec.hard} exactly (doc "Resource Quotas"), so a limit rounded up would admit more.
     */
    Resources hardLimits(ResourceQuota quota) {
        Map<String, Quantity> hard = quota.getSpec() == null || quota.getSpec().getHard() == null
                ? Map.of() : quota.getSpec().getHard();
        return byResource(hard, Quantities::toLimitUnits, Math::min, (key, e) -> {
            // the API server validates quotas, so this is a hand-made object; hold to zero, never over-admit
            events.warning(quota, "InvalidQuota", "spec.hard." + key + ": " + e.getMessage());
            return 0L;
        });
    }

    /**
     * The quota groups if {@code quotas} replaced the ResourceQuotas of their namespaces (a what-if, issue 30): each
     * namespace named by one of them gets the group {@link #build} would make of them (the smallest {@code spec.hard}
     * of each resource; none held for an uncounted status, since they are not in the cluster), every other group of
     * {@code current} stays as it is, admission timeouts included.
     *
     * @param current the groups in force ({@link QuotaTree#perNamespace})
     * @param quotas  the ResourceQuotas, each with a namespace
     * @throws IllegalArgumentException naming the quota and key, for a quota without a namespace or an unreadable
     *                                  amount
     */
    public static QuotaTree replacing(QuotaTree current, List<ResourceQuota> quotas) {
        Map<String, Resources> limits = new TreeMap<>();
        for (ResourceQuota quota : quotas) {
            String ns = quota.getMetadata() == null ? null : quota.getMetadata().getNamespace();
            String name = quota.getMetadata() == null ? null : quota.getMetadata().getName();
            if (ns == null || ns.isBlank()) {
                throw new IllegalArgumentException("ResourceQuota " + name + " has no metadata.namespace");
            }
            Map<String, Quantity> hard = quota.getSpec() == null || quota.getSpec().getHard() == null
                    ? Map.of() : quota.getSpec().getHard();
            Resources max = byResource(hard, Quantities::toLimitUnits, Math::min, (key, e) -> {
                throw new IllegalArgumentException("ResourceQuota " + ns + "/" + name + ": spec.hard." + key + ": "
                        + e.getMessage());
            });
            limits.merge(ns, max, ResourceQuotaSource::smallest);
        }
        List<QuotaNode> nodes = new ArrayList<>();
        for (QuotaNode node : current.nodes()) {
            if (!limits.containsKey(node.name())) {
                nodes.add(node);
            }
        }
        limits.forEach((ns, max) -> {
            Duration timeout = current.node(ns).filter(n -> current.nodes().contains(n))
                    .map(QuotaNode::admissionTimeout).orElse(null);
            nodes.add(new QuotaNode(ns, null, List.of(ns), null, max).withAdmissionTimeout(timeout));
        });
        return QuotaTree.perNamespace(nodes);
    }

    /** {@code status.used} of one quota by the same keys, rounded up; an unreadable amount counts as none. */
    private static Resources usedAmounts(ResourceQuota quota) {
        Map<String, Quantity> used = quota.getStatus() == null || quota.getStatus().getUsed() == null
                ? Map.of() : quota.getStatus().getUsed();
        // written by the quota controller, so an unreadable amount is never expected; spec.hard still limits
        return byResource(used, Quantities::toUnits, Math::max, (key, e) -> null);
    }

    /**
     * Quota amounts by the resource each key limits ({@link #requestResource}), in millicores, bytes or counts;
     * keys not read here are skipped, and two keys for one resource are merged.
     *
     * @param convert    {@link Quantities#toUnits} (round up) or {@link Quantities#toLimitUnits} (round down)
     * @param unreadable what an unparsable amount counts as; null to skip it
     */
    private static Resources byResource(Map<String, Quantity> amounts, ToLongBiFunction<String, Quantity> convert,
                                        BinaryOperator<Long> merge,
                                        BiFunction<String, IllegalArgumentException, Long> unreadable) {
        Map<String, Long> byResource = new HashMap<>();
        amounts.forEach((key, quantity) -> {
            String resource = requestResource(key);
            if (resource == null) {
                return;
            }
            Long units;
            try {
                // limits.cpu is in millicores like cpu
                units = convert.applyAsLong(resource.startsWith("limits.")
                        ? resource.substring("limits.".length()) : resource, quantity);
            } catch (IllegalArgumentException e) {
                units = unreadable.apply(key, e);
            }
            if (units != null) {
                byResource.merge(resource, units, merge);
            }
        });
        return Resources.of(byResource);
    }

    /**
     * Maps a {@code spec.hard} key to the resource it limits, or null for keys not read here. Bare {@code cpu},
     * {@code memory} and {@code ephemeral-storage} mean their {@code requests.} key (Kubernetes doc "Resource
     * Quotas"); {@code limits.cpu}, {@code limits.memory}, {@code limits.ephemeral-storage} name the pseudo-resources
     * that carry a job's limits.
     */
    static String requestResource(String key) {
        if (key.equals("cpu") || key.equals("memory") || key.equals("ephemeral-storage")
                || key.equals("limits.cpu") || key.equals("limits.memory") || key.equals("limits.ephemeral-storage")) {
            return key;
        }
        if (key.startsWith("requests.")) {
            return key.substring("requests.".length());
        }
        return null;
    }

    /** The shorter of two quotas' timeouts: each quota must hold; zero (off) sets no bound of its own. */
    private static Duration shorter(Duration a, Duration b) {
        if (a.isZero() || b.isZero()) {
            return a.isZero() ? b : a;
        }
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Resources smallest(Resources a, Resources b) {
        Map<String, Long> merged = new HashMap<>(a.asMap());
        b.asMap().forEach((k, v) -> merged.merge(k, v, Math::min));
        return Resources.of(merged);
    }
}
