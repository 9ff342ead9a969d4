package io.kubequeue.quota.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.Parse;
import io.kubequeue.scheduler.QuotaNode;
import io.kubequeue.scheduler.QuotaTree;
import io.kubequeue.scheduler.Resources;

/** The ElasticQuotaTree plugin's reading of a tree into quota groups (moved out of the former QuotaSourcesTest). */
class ElasticQuotaTreeSourceTest {

    private static ElasticQuotaTree tree(String root) {
        String yaml = """
                apiVersion: scheduling.sigs.k8s.io/v1beta1
                kind: ElasticQuotaTree
                metadata: {name: t, namespace: kube-system}
                spec:
                  root:
                """ + root.indent(4);
        return (ElasticQuotaTree) Parse.yaml(yaml)
                .get(0);
    }

    @Test
    void theSeedsTreeGivesTwoGroupsWithExactLimits() {
        ElasticQuotaTree seed = (ElasticQuotaTree) Parse.resource("/seed/elasticquotatree.yaml").get(0);
        QuotaTree tree = ElasticQuotaTreeSource.toQuotaTree(seed);
        QuotaNode leaf = tree.groupFor("default", null).orElseThrow();
        assertEquals("root.defaultQuotaGroup", leaf.name());
        assertEquals("root", leaf.parentName());
        assertEquals(Resources.of("cpu", 4000L, "memory", 4L << 30, "nvidia.com/gpu", 64L, "aliyun.com/gpu-mem", 16L),
                leaf.max());
        assertEquals(List.of("root.defaultQuotaGroup", "root"),
                tree.pathToRoot(leaf.name()).stream().map(QuotaNode::name).toList());
    }

    @Test
    void minAboveMaxIsRefusedNamingTheNode() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ElasticQuotaTreeSource.toQuotaTree(
                tree("name: root\nmin: {cpu: \"8\"}\nmax: {cpu: \"4\"}")));
        assertTrue(e.getMessage().contains("spec.root (root): min cpu 8 is above max 4"), e.getMessage());
    }

    @Test
    void aNamespaceInTwoNodesIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ElasticQuotaTreeSource.toQuotaTree(
                tree("""
                        name: root
                        children:
                          - {name: a, namespaces: [team]}
                          - {name: b, namespaces: [team]}
                        """)));
        assertTrue(e.getMessage().contains("namespace team is listed by both a and b"), e.getMessage());
    }

    @Test
    void aBadQuantityIsRefusedNamingTheNode() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ElasticQuotaTreeSource.toQuotaTree(
                tree("name: root\nchildren: [{name: a, max: {cpu: lots}}]")));
        assertTrue(e.getMessage().startsWith("spec.root.children[0] (a):"), e.getMessage());
    }

    @Test
    void aTreeLimitIsRoundedDownNeverAdmittingMoreThanItSays() {
        QuotaTree tree = ElasticQuotaTreeSource.toQuotaTree(tree("""
                name: root
                namespaces: [team]
                min: {cpu: "0.0015"}
                max: {cpu: "0.0015", memory: 1500m}
                """));
        QuotaNode root = tree.groupFor("team", null).orElseThrow();
        // 1.5 millicores and 1.5 bytes: a request rounded up to 2 must not fit a limit rounded up to 2
        assertEquals(Resources.of("cpu", 1L, "memory", 1L), root.max());
        assertEquals(Resources.of("cpu", 1L), root.min());
    }
}
