package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.JobPods;
import io.kubequeue.quota.AdmissionTimeoutAnnotations;
import io.kubequeue.quota.elastic.ElasticQuotaTree;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A quota group's own admission timeout, set on the running ElasticQuotaTree: the group gets it, a bad entry gets a
 * Warning on the tree, and the pod watch the timeout needs starts then, though no timeout was set at start-up.
 */
@QuarkusTest
@WithStrictApiServer
class GroupAdmissionTimeoutTest {

    private static final String GROUP = "root.defaultQuotaGroup";

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @Inject
    JobPods pods;

    @AfterEach
    void tearDown() {
        new Cluster(client).clear();
    }

    @Test
    void aTreeThatGainsAGroupTimeoutGivesItToTheGroupAndStartsThePodWatch() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node(GROUP).isPresent());
        assertNull(scheduler.tree().node(GROUP).get().admissionTimeout());
        assertNull(scheduler.settings().admissionTimeout(), "no global timeout in this profile");
        assertFalse(pods.started(), "no timeout can apply: no pod watch");

        client.resources(ElasticQuotaTree.class).inNamespace("kube-system").withName("elasticquotatree")
                .edit(tree -> {
                    tree.getMetadata().setAnnotations(Map.of(AdmissionTimeoutAnnotations.TREE,
                            GROUP + ": 15m\nroot.nowhere: 5m\n"));
                    return tree;
                });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Duration.ofMinutes(15).equals(scheduler.tree().node(GROUP).get().admissionTimeout()));
        assertTrue(pods.started(), "started when the tree came with a group's timeout");
        assertTrue(pods.awaitFirstList(Duration.ofSeconds(10)));
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("kube-system", "elasticquotatree").stream()
                .map(Event::getNote).anyMatch(n -> n.contains("'root.nowhere: 5m': no quota group root.nowhere")));
    }
}
