package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/**
 * Issue 29, item 2: "a namespace a quota group lists" (KUBE_QUEUE_CHARGE_UNSUSPENDED_IN=*) is a declared group's
 * namespace, not the unlimited group the ResourceQuota plugin gives a namespace without a ResourceQuota.
 */
class QuotaTreeListsTest {

    @Test
    void aTreeListsTheNamespacesOfItsNodes() {
        QuotaTree tree = new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("root.a", "root", List.of("team-a"), null, Resources.of("cpu", 4000L))));
        assertTrue(tree.lists("team-a"));
        assertFalse(tree.lists("team-b"));
    }

    @Test
    void underTheResourceQuotaPluginOnlyANamespaceWithQuotaIsListed() {
        QuotaTree tree = QuotaTree.perNamespace(List.of(
                new QuotaNode("team-a", null, List.of("team-a"), null, Resources.of("cpu", 2000L))));
        assertTrue(tree.groupFor("kube-system", null).isPresent(), "every namespace has a group there");
        assertTrue(tree.lists("team-a"));
        assertFalse(tree.lists("kube-system"), "but an unlimited one is not listed");
    }
}
