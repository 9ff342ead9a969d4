package io.kubequeue.scheduler.model;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One quota group: a node of an ElasticQuotaTree, or one namespace under the ResourceQuota plugin.
 *
 * @param name       unique group name (e.g. {@code root.defaultQuotaGroup}, or the namespace)
 * @param parentName the parent group, or {@code null} at a root
 * @param namespaces namespaces whose jobs belong to this group
 * @param min        guaranteed resources: non-preemptible jobs must also fit here (their usage + request ≤ min
 *                   for each resource declared; docs/behaviour.md §3)
 * @param max        limits; a resource absent here is not limited at this node (docs/behaviour.md §3)
 * @param heldBecause why nothing may be admitted into this group (or its descendants) now, in words a user can act
 *                   on; null when it admits normally. E.g. a ResourceQuota whose usage Kubernetes has not counted yet
 * @param admissionTimeout this group's own admission timeout (docs/policies.md, "Admission timeout"): null to take
 *                   the nearest ancestor's, or the global {@code kube-queue.admission-timeout}; {@link Duration#ZERO}
 *                   switches the timeout off for the group and the groups below it that set none
 */
public record QuotaNode(String name, String parentName, List<String> namespaces, Resources min, Resources max,
                        String heldBecause, Duration admissionTimeout) {

    public QuotaNode {
        Objects.requireNonNull(name, "name");
        namespaces = namespaces == null ? List.of() : List.copyOf(namespaces);
        min = min == null ? Resources.NONE : min;
        max = max == null ? Resources.NONE : max;
        if (admissionTimeout != null && admissionTimeout.isNegative()) {
            throw new IllegalArgumentException("admission timeout of quota group " + name + " must not be negative, got "
                    + admissionTimeout);
        }
    }

    /** A group without an admission timeout of its own. */
    public QuotaNode(String name, String parentName, List<String> namespaces, Resources min, Resources max,
                     String heldBecause) {
        this(name, parentName, namespaces, min, max, heldBecause, null);
    }

    /** A group that admits normally. */
    public QuotaNode(String name, String parentName, List<String> namespaces, Resources min, Resources max) {
        this(name, parentName, namespaces, min, max, null);
    }

    /** The same group, held for that reason (null: not held). */
    public QuotaNode held(String reason) {
        return new QuotaNode(name, parentName, namespaces, min, max, reason, admissionTimeout);
    }

    /** The same group with its own admission timeout (null: inherited; zero: off). */
    public QuotaNode withAdmissionTimeout(Duration timeout) {
        return new QuotaNode(name, parentName, namespaces, min, max, heldBecause, timeout);
    }
}
