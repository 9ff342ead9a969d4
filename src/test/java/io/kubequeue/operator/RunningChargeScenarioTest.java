package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 26, sequence 3, live: the seed's job1 (3 cpu, 3Gi) runs in the seed's 4-cpu, 4Gi group; its templates are
 * edited down to 100m and 100Mi a pod. The training operator does not recreate running pods for a template change, so
 * they keep 3 cpu: kube-queue keeps charging that, and job2 (3 cpu) waits. The admission patch wrote the request it
 * was decided at into the signed record, which a restart reads back ({@link RunningChargeRestartTest}).
 */
@QuarkusTest
@WithStrictApiServer
class RunningChargeScenarioTest {

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    Cluster cluster;

    @BeforeEach
    void setUp() {
        cluster = new Cluster(client);
    }

    @AfterEach
    void tearDown() {
        cluster.clear();
    }

    /** Every replica's container of the TFJob asks (and is limited to) this much. */
    static TFJob withPodRequests(KubernetesClient client, TFJob job, String cpu, String memory) {
        ObjectNode spec = (ObjectNode) job.getSpec();
        for (JsonNode replicas : spec.path("tfReplicaSpecs")) {
            for (JsonNode container : replicas.path("template").path("spec").path("containers")) {
                for (String field : new String[] {"requests", "limits"}) {
                    ObjectNode amounts = (ObjectNode) container.path("resources").path(field);
                    amounts.put("cpu", cpu);
                    amounts.put("memory", memory);
                }
            }
        }
        return job;
    }

    @Test
    void aRunningTfJobWhoseTemplateIsEditedDownKeepsItsChargeAndTheNextJobWaits() {
        cluster.apply("/seed/elasticquotatree.yaml");
        TFJob job1 = (TFJob) Manifests.read(client, getClass().getResourceAsStream("/seed/tfjobs.yaml")).get(0);
        cluster.create(job1);
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob("job1")));
        assertEquals("{\"cpu\":\"3\",\"limits.cpu\":\"3\",\"limits.memory\":\"3Gi\",\"memory\":\"3Gi\"}",
                cluster.tfJob("job1").getMetadata().getAnnotations().get(Annotations.ADMITTED_REQUEST),
                "the admission patch records the request it was decided at");

        client.resource(withPodRequests(client, cluster.tfJob("job1"), "100m", "100Mi")).update();
        await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.status(
                new io.kubequeue.scheduler.model.JobKey("TFJob", "default", "job1")).orElseThrow().request().get("cpu") == 300);
        assertEquals(3000, scheduler.usage("root.defaultQuotaGroup").get("cpu"), "its pods may still hold 3 cpu");

        TFJob job2 = (TFJob) Manifests.read(client, getClass().getResourceAsStream("/seed/tfjobs.yaml")).get(1);
        cluster.create(job2);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob("job2")));
        assertEquals(JobState.BACKOFF, scheduler.status(
                new io.kubequeue.scheduler.model.JobKey("TFJob", "default", "job2")).orElseThrow().state());
    }
}
