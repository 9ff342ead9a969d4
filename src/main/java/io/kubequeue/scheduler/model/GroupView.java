package io.kubequeue.scheduler.model;

import java.time.Instant;
import java.util.List;

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
}
