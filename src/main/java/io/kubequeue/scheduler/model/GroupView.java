package io.kubequeue.scheduler.model;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One quota group as the scheduler sees it now.
 *
 * @param name     the group
 * @param parent   its parent group, or null at a root
 * @param min      declared min (millicores, bytes, counts)
 * @param max      declared max; a resource absent is not limited here
 * @param used     what kube-queue's admitted jobs use here (descendants included)
 * @param outside  what is used here outside kube-queue (ResourceQuota plugin)
 * @param pending  pending jobs queued in this group: {@code active + backoff + held}
 * @param admitted admitted jobs charged to this group itself
 * @param active   pending jobs the next cycle tries
 * @param backoff  pending jobs backing off
 * @param held     pending jobs held until the quota changes (they can never fit now)
 * @param oldestPendingSince when the longest-waiting pending job was first seen queued; null if none waits
 * @param namespaces the namespaces whose jobs queue in this group itself (not its descendants); for a group no
 *                   quota object declares (ResourceQuota plugin: a namespace without one), its own name
 */
public record GroupView(String name, String parent, Resources min, Resources max, Resources used, Resources outside,
                        int pending, int admitted, int active, int backoff, int held, Instant oldestPendingSince,
                        List<String> namespaces) {
    /**
     * The groups a reader may see when they may see the jobs of some namespaces: each group that holds such a
     * namespace, every ancestor of it (its numbers bound the group's), and every group below it (where a job of
     * that namespace may be routed by its label, {@link QuotaTree#groupFor}). The read API's and the visibility
     * API's rule for a tenant without the right to list every group.
     *
     * @param groups            every group, as {@code Scheduler.groups} lists them
     * @param mayListNamespace  whether the reader may see the jobs of a namespace
     * @return the names of the groups the reader may see
     */
    public static Set<String> visibleThrough(List<GroupView> groups, Predicate<String> mayListNamespace) {
        Map<String, String> parents = new HashMap<>();
        Map<String, List<String>> children = new HashMap<>();
        groups.forEach(g -> {
            parents.put(g.name(), g.parent());
            if (g.parent() != null) {
                children.computeIfAbsent(g.parent(), p -> new ArrayList<>()).add(g.name());
            }
        });
        Set<String> visible = new HashSet<>();
        for (GroupView g : groups) {
            if (g.namespaces().stream().anyMatch(mayListNamespace)) {
                for (String at = g.name(); at != null && visible.add(at); at = parents.get(at)) {
                    // marks the group and climbs to its root; stops at a group already marked
                }
                ArrayDeque<String> below = new ArrayDeque<>(children.getOrDefault(g.name(), List.of()));
                while (!below.isEmpty()) {
                    String c = below.pop();
                    if (visible.add(c)) {
                        below.addAll(children.getOrDefault(c, List.of()));
                    }
                }
            }
        }
        return visible;
    }
}
