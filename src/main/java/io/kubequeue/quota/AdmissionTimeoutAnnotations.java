package io.kubequeue.quota;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.config.TimeoutConverter;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.input.BoundedYaml;

/**
 * The per-group admission timeouts the quota objects carry (docs/configuration.md, "Per-group admission timeout"),
 * for both plugins' sources:
 * <ul>
 *   <li>{@value #TREE} on the ElasticQuotaTree: a YAML or JSON map from node name to duration, e.g.
 *       {@code root.team-a: 15m}; a node without an entry takes its nearest ancestor's, then the global
 *       {@code kube-queue.admission-timeout} (the scheduler core resolves that);</li>
 *   <li>{@value #QUOTA} on a ResourceQuota: one duration for its namespace's group.</li>
 * </ul>
 * Durations read as {@code kube-queue.admission-timeout} does ({@link TimeoutConverter}); {@code 0} switches the
 * timeout off for the group (and, in a tree, the groups below it that set none).
 *
 * <p>The tree's annotation is read within bounds ({@link BoundedYaml}: at most {@value #TREE_MAX_LENGTH} characters
 * and {@value #TREE_MAX_ENTRIES} entries, flat, no aliases); a value is read as written, a number as seconds.
 *
 * <p>Bad input from the cluster never stops anything: an entry that names no quota group, or whose duration does not
 * read, is left out and the rest applies. Each object with such entries gets one Warning event
 * ({@value #REASON}) naming each key and value, and one log line, again only when what is wrong with it changes.
 */
public final class AdmissionTimeoutAnnotations {

    /** The ElasticQuotaTree's annotation: node name → duration. */
    public static final String TREE = "kube-queue/admission-timeouts";
    /** A ResourceQuota's annotation: the duration for its namespace. */
    public static final String QUOTA = "kube-queue/admission-timeout";
    /** The Warning event's reason. */
    public static final String REASON = "InvalidAdmissionTimeout";

    private final EventRecorder events;
    /** The longest {@value #TREE} read, in characters (docs/security.md, "Hostile input: the bounds"). */
    public static final int TREE_MAX_LENGTH = 64 * 1024;
    /** The most entries {@value #TREE} may hold. */
    public static final int TREE_MAX_ENTRIES = 4096;
    /** Per object ({@code Kind/namespace/name/uid}), what its last Warning said; objects without problems are left out. */
    private final Map<String, String> reported = BoundedMaps.keepingRecentlyUsed(1_000);

    /** @param events where the Warnings go */
    public AdmissionTimeoutAnnotations(EventRecorder events) {
        this.events = events;
    }

    /**
     * The timeouts a tree's {@value #TREE} annotation sets, by node name; the entries that name no node or do not
     * read are left out, with a Warning on the tree.
     *
     * @param tree  the ElasticQuotaTree
     * @param nodes the names of its nodes
     * @return node name → timeout ({@link Duration#ZERO}: off); empty without the annotation
     */
    public Map<String, Duration> ofTree(HasMetadata tree, Collection<String> nodes) {
        String text = annotation(tree, TREE);
        Map<String, Duration> timeouts = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        if (text != null) {
            Map<String, String> entries = null;
            String unread = null;
            try {
                entries = BoundedYaml.flatMap(text, TREE_MAX_LENGTH, TREE_MAX_ENTRIES);
            } catch (IllegalArgumentException e) {
                unread = e.getMessage();
            }
            if (entries == null) {
                problems.add("'" + shown(text) + "' is not a map from quota group to duration (e.g. root.team-a: 15m): "
                        + unread);
            } else {
                entries.forEach((node, value) -> {
                    String entry = "'" + shown(node) + ": " + shown(String.valueOf(value)) + "'";
                    if (!nodes.contains(node)) {
                        problems.add(entry + ": no quota group " + shown(node) + " in the tree");
                        return;
                    }
                    try {
                        if (value == null || BoundedYaml.COLLECTION.equals(value)) {
                            throw new IllegalArgumentException("not a duration");
                        }
                        timeouts.put(node, duration(value));
                    } catch (IllegalArgumentException e) {
                        problems.add(entry + ": " + e.getMessage());
                    }
                });
            }
        }
        report(tree, problems.isEmpty() ? null : TREE + ": " + String.join("; ", problems)
                + (problems.size() == 1 ? "; this entry is" : "; these entries are") + " ignored, the others apply");
        return timeouts;
    }

    /**
     * The timeout a ResourceQuota's {@value #QUOTA} annotation sets for its namespace; null without the annotation,
     * or if it does not read (with a Warning on the quota).
     *
     * @param quota the ResourceQuota
     * @return the timeout ({@link Duration#ZERO}: off), or null
     */
    public Duration ofQuota(HasMetadata quota) {
        String text = annotation(quota, QUOTA);
        Duration timeout = null;
        String problem = null;
        if (text != null) {
            try {
                timeout = duration(text);
            } catch (IllegalArgumentException e) {
                problem = QUOTA + ": " + e.getMessage() + "; ignored: the namespace takes the global"
                        + " kube-queue.admission-timeout, unless another of its ResourceQuotas sets one";
            }
        }
        report(quota, problem);
        return timeout;
    }

    /** The longest duration text read, in characters: {@code 1h30m}, {@code PT15M}, {@code 90}. */
    public static final int DURATION_MAX_LENGTH = 64;

    /** {@link TimeoutConverter#parse}, for a text of at most {@value #DURATION_MAX_LENGTH} characters. */
    private static Duration duration(String text) {
        if (text.length() > DURATION_MAX_LENGTH) {
            throw new IllegalArgumentException("a duration of " + text.length() + " characters: at most "
                    + DURATION_MAX_LENGTH + " are read");
        }
        return TimeoutConverter.parse(text);
    }

    /** A tenant's text as a message shows it: at most 100 characters. */
    private static String shown(String text) {
        return text.length() <= 100 ? text : text.substring(0, 100) + "...";
    }

    private static String annotation(HasMetadata object, String key) {
        Map<String, String> annotations = object.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(key);
    }

    /**
     * One Warning (and log line) per object and distinct message; none while it stays the same (a quota object is
     * read again on every change of any of them), and none once the object is fixed.
     *
     * @param message what is wrong, or null if nothing is
     */
    private void report(HasMetadata object, String message) {
        String id = object.getKind() + "/" + object.getMetadata().getNamespace() + "/" + object.getMetadata().getName()
                + "/" + object.getMetadata().getUid();
        synchronized (reported) {
            if (message == null) {
                reported.remove(id);
                return;
            }
            if (message.equals(reported.put(id, message))) {
                return;
            }
        }
        events.warning(object, REASON, message);
    }
}
