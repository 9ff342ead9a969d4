package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.Annotations;
import io.kubequeue.scheduler.JobKey;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.testing.WithStrictApiServer;

/**
 * Each bad input of the job-kinds issue: the job stays suspended, gets exactly one {@code InvalidJob}
 * Warning naming the field and the value, and nothing crashes (the scheduler goes on with other jobs).
 */
@QuarkusTest
@WithStrictApiServer
class BadInputTest {

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @AfterEach
    void tearDown() {
        new Cluster(client).clear();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "negative-replicas.yaml        | TFJob      | spec.tfReplicaSpecs.Worker.replicas                            | -2",
        "unparsable-quantity.yaml      | PyTorchJob | spec.pytorchReplicaSpecs.Master.template.spec.containers[0].resources.limits.memory | lots",
        "unparsable-min-resources.yaml | Workflow   | metadata.annotations[kube-queue/min-resources].cpu             | many",
        "min-resources-not-a-map.yaml  | Workflow   | metadata.annotations[kube-queue/min-resources]                 | five cpus please",
        "no-min-resources.yaml         | Workflow   | metadata.annotations[kube-queue/min-resources]                 | null",
    })
    void theJobStaysSuspendedWithOneWarningNamingFieldAndValue(String file, String kind, String field, String value) {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        HasMetadata job = cluster.apply("/bad/" + file).get(0);
        String name = job.getMetadata().getName();

        await().atMost(Duration.ofSeconds(10)).until(() -> !invalidJobEvents(cluster, name).isEmpty());
        // more events on the job (label changes) must not repeat the same warning
        for (String touch : new String[] {"1", "2"}) {
            HasMetadata current = client.resource(job).get();
            current.getMetadata().setLabels(new java.util.HashMap<>(java.util.Map.of("touched", touch)));
            client.resource(current).update();
        }
        Event warning = invalidJobEvents(cluster, name).get(0);
        assertEquals("Warning", warning.getType());
        assertTrue(warning.getNote().startsWith(field + ":"), warning.getNote());
        assertTrue(warning.getNote().contains("(value: " + value + ")"), warning.getNote());

        // a good job next to it is admitted: nothing crashed
        cluster.apply("/seed/tfjobs.yaml");
        cluster.awaitOneSeedJobAdmitted();
        HasMetadata now = client.resource(job).get();
        assertTrue(now.getMetadata().getAnnotations() == null
                || !now.getMetadata().getAnnotations().containsKey(Annotations.QUOTA_GROUP), "never admitted");
        assertTrue(scheduler.status(new JobKey(kind, "default", name)).isEmpty(), "not in the queue while invalid");
        assertEquals(1, invalidJobEvents(cluster, name).size(), "one warning, not one per event");
    }

    private static List<Event> invalidJobEvents(Cluster cluster, String name) {
        return cluster.events("default", name).stream().filter(e -> "InvalidJob".equals(e.getReason())).toList();
    }
}
