package io.kubequeue.quota.elastic;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.Resources;

/**
 * Writes the ElasticQuotaTree's {@code status} ({@link ElasticQuotaTree.Status}) from the scheduler's view, so that
 * plain {@code kubectl get eqt -o wide} shows how full each quota group is. Only the leader writes; it looks every
 * {@value #PERIOD_SECONDS} s and writes only when something changed, one JSON Patch of a tree's status subresource.
 * Every tree of the namespace gets its {@code observedGeneration} and conditions (whether its last edit was accepted,
 * which generation is in force: an invalid edit keeps the one before it, issue 29); the tree in force also gets its
 * groups' usage. A write that fails is logged once per kind of failure and retried at the next look; it never
 * affects admissions.
 */
@Singleton
public class QuotaTreeStatusWriter {

    /** Seconds between two looks at the scheduler. */
    public static final int PERIOD_SECONDS = 5;

    private static final Logger LOG = Logger.getLogger(QuotaTreeStatusWriter.class);

    private final KubernetesClient client;
    private final ReadViews scheduler;
    private volatile ScheduledExecutorService timer;
    /** Per tree ({@code namespace/name}), the patch last written there; touched only by the timer's one thread. */
    private final Map<String, String> written = new java.util.HashMap<>();
    private final Clock clock = Clock.systemUTC();
    /** Per tree, the code of its last failed write: logged once per kind of failure. */
    private final Map<String, Integer> lastFailure = new java.util.HashMap<>();
    /**
     * Per tree, the conditions last written: their transition times are kept from here, not only from the tree as
     * read back, since a server whose CRD predates the conditions drops them and every look would then write anew.
     */
    private final Map<ElasticQuotaTreeSource.TreeRef, List<Condition>> writtenConditions = new java.util.HashMap<>();

    /** @param scheduler whose groups the status shows */
    public QuotaTreeStatusWriter(KubernetesClient client, ReadViews scheduler) {
        this.client = client;
        this.scheduler = scheduler;
    }

    /**
     * Starts writing the status of the tree {@code source} has in force, while {@code leads} says this replica leads.
     * Called once, by start-up; {@link #stop} ends it.
     */
    public synchronized void follow(ElasticQuotaTreeSource source, BooleanSupplier leads) {
        if (timer != null) {
            throw new IllegalStateException("already following a quota tree");
        }
        timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kube-queue-tree-status"));
        timer.scheduleWithFixedDelay(() -> {
            try {
                if (leads.getAsBoolean()) {
                    for (ElasticQuotaTreeSource.TreeReading reading : source.readings()) {
                        writeIfChanged(reading);
                    }
                } else {
                    forget(); // a replica that leads again writes at once, whatever it wrote before
                }
            } catch (Throwable e) { // anything thrown out of a scheduled task would end it for good, silently
                LOG.warnf(e, "ElasticQuotaTree status: not written this time");
            }
        }, PERIOD_SECONDS, PERIOD_SECONDS, TimeUnit.SECONDS);
    }

    /** Stops writing; does not wait for a write on the wire (it is abandoned). */
    public void stop() {
        ScheduledExecutorService running = timer;
        timer = null;
        if (running != null) {
            running.shutdownNow();
        }
    }

    private void forget() {
        written.clear();
        writtenConditions.clear();
    }

    private void writeIfChanged(ElasticQuotaTreeSource.TreeReading reading) {
        ElasticQuotaTreeSource.TreeRef tree = reading.tree();
        ElasticQuotaTree.Status status = reading.inForce()
                ? status(scheduler.groups(), scheduler.tree().nodes()) : new ElasticQuotaTree.Status();
        status.setObservedGeneration(reading.observedGeneration());
        status.setGenerationInForce(reading.inForce() ? reading.generationInForce() : null);
        status.setConditions(conditions(reading, writtenConditions.get(reading.tree()), Instant.now(clock)));
        String target = tree.namespace() + "/" + tree.name();
        // a JSON Patch that sets the whole status: a merge patch would keep map keys the new status no longer has
        // (a resource a group stopped using would stay "used")
        String patch = client.getKubernetesSerialization()
                .asJson(List.of(Map.of("op", "add", "path", "/status", "value", status)));
        if (patch.equals(written.get(target))) {
            return;
        }
        try {
            client.resources(ElasticQuotaTree.class).inNamespace(tree.namespace()).withName(tree.name())
                    .subresource("status").patch(PatchContext.of(PatchType.JSON), patch);
            written.put(target, patch);
            writtenConditions.put(tree, status.getConditions());
            lastFailure.remove(target);
        } catch (KubernetesClientException e) {
            if (!Integer.valueOf(e.getCode()).equals(lastFailure.get(target))) {
                LOG.warnf("ElasticQuotaTree %s: status not written (%d %s); retried every %d s", target, e.getCode(),
                        e.getMessage(), PERIOD_SECONDS);
            }
            lastFailure.put(target, e.getCode());
        }
    }

    /**
     * The tree's conditions ({@link ElasticQuotaTree.Status#ACCEPTED}, {@link ElasticQuotaTree.Status#IN_FORCE}), as
     * {@code metav1.Condition}s: a condition whose status is unchanged keeps its {@code lastTransitionTime}, taken from
     * the conditions last written, else from those the tree holds, so rewriting the same verdict is no change.
     *
     * @param reading what the source made of the tree
     * @param written the conditions this writer last wrote on the tree, or null
     * @param now     the transition time of a condition that changes, to the second
     */
    static List<Condition> conditions(ElasticQuotaTreeSource.TreeReading reading, List<Condition> written, Instant now) {
        Long generation = reading.observedGeneration();
        String theSpec = generation == null ? "the spec last read" : "generation " + generation;
        String accepted;
        String acceptedReason;
        String acceptedMessage;
        if (reading.accepted() == null) {
            accepted = "Unknown"; // not read at all, so neither valid nor invalid
            acceptedReason = "NotTheOldest";
            acceptedMessage = "not read: only the oldest ElasticQuotaTree of namespace " + reading.tree().namespace()
                    + " is, " + reading.olderTree();
        } else if (reading.accepted()) {
            accepted = "True";
            acceptedReason = "Valid";
            acceptedMessage = theSpec + " is a valid tree";
        } else {
            accepted = "False";
            acceptedReason = "InvalidSpec";
            acceptedMessage = theSpec + " refused: " + reading.rejection();
        }
        String inForce;
        String inForceReason;
        String inForceMessage;
        if (reading.inForce()) {
            inForce = "True";
            inForceReason = "InForce";
            inForceMessage = reading.generationInForce() == null ? "its quota groups are in force"
                    : "the quota groups of generation " + reading.generationInForce() + " are in force";
        } else if (reading.accepted() == null) {
            inForce = "False";
            inForceReason = "NotTheOldest";
            inForceMessage = "the quota groups of " + reading.olderTree() + " apply";
        } else {
            inForce = "False";
            inForceReason = "NoValidGeneration";
            inForceMessage = "no generation of this tree that kube-queue read was valid";
        }
        List<Condition> before = written != null ? written : reading.conditions();
        return List.of(
                condition(ElasticQuotaTree.Status.ACCEPTED, accepted, acceptedReason, acceptedMessage, generation,
                        before, now),
                condition(ElasticQuotaTree.Status.IN_FORCE, inForce, inForceReason, inForceMessage, generation,
                        before, now));
    }

    private static Condition condition(String type, String status, String reason, String message, Long generation,
                                       List<Condition> before, Instant now) {
        String since = before.stream()
                .filter(c -> type.equals(c.getType()) && status.equals(c.getStatus()) && c.getLastTransitionTime() != null)
                .map(Condition::getLastTransitionTime).findFirst()
                .orElse(now.truncatedTo(ChronoUnit.SECONDS).toString());
        return new ConditionBuilder().withType(type).withStatus(status).withReason(reason)
                .withMessage(message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE - 1) + "…" : message)
                .withObservedGeneration(generation).withLastTransitionTime(since).build();
    }

    /** {@code metav1.Condition}'s limit on a message, in characters (its validation says 32768). */
    private static final int MAX_MESSAGE = 32768;

    /**
     * The status for these groups: those of the tree ({@code nodes}) and any other group jobs are charged to.
     *
     * @param groups the scheduler's groups ({@link Scheduler#groups()})
     * @param nodes  the tree's nodes in force
     */
    static ElasticQuotaTree.Status status(List<GroupView> groups, java.util.Collection<QuotaNode> nodes) {
        java.util.Set<String> inTree = new java.util.HashSet<>();
        nodes.forEach(n -> inTree.add(n.name()));
        List<ElasticQuotaTree.GroupStatus> entries = new ArrayList<>();
        List<String> usage = new ArrayList<>();
        int pending = 0;
        int admitted = 0;
        String fullest = null;
        double fullestShare = -1;
        for (GroupView g : groups) {
            if (!inTree.contains(g.name())) {
                continue; // a group no longer in the tree, still charged by running jobs: not this tree's
            }
            entries.add(new ElasticQuotaTree.GroupStatus(g.name(), g.min().asQuantities(), g.max().asQuantities(),
                    g.used().asQuantities(), g.pending(), g.admitted()));
            pending += g.pending();
            admitted += g.admitted();
            StringBuilder line = new StringBuilder(g.name());
            for (Map.Entry<String, Long> max : g.max().asMap().entrySet()) { // sorted by name
                long used = g.used().get(max.getKey());
                line.append(' ').append(max.getKey()).append(' ').append(Resources.format(max.getKey(), used))
                        .append('/').append(Resources.format(max.getKey(), max.getValue()));
                double share = max.getValue() == 0 ? (used > 0 ? Double.POSITIVE_INFINITY : 0)
                        : (double) used / max.getValue();
                if (used > 0 && share > fullestShare) {
                    fullestShare = share;
                    fullest = g.name() + " " + max.getKey() + " " + Math.round(share * 100) + "%";
                }
            }
            line.append(", ").append(g.pending()).append(" pending, ").append(g.admitted()).append(" admitted");
            usage.add(line.toString());
        }
        ElasticQuotaTree.Status status = new ElasticQuotaTree.Status();
        status.setGroups(entries.size());
        status.setPending(pending);
        status.setAdmitted(admitted);
        status.setFullest(fullest);
        status.setUsage(String.join("; ", usage));
        status.setNodes(entries);
        return status;
    }
}
