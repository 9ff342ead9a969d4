package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TrustedRecords;
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

    /**
     * A running Workflow, admitted before a restart, whose request cannot be read now: it is charged (never
     * dropped), and since its use is unknown its group admits nothing more until it is fixed. The Warning says so
     * (it used to say the job "stays suspended", and the job was not charged at all).
     */
    @Test
    void aRunningJobWhoseRequestCannotBeReadHoldsItsGroupUntilFixed() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.defaultQuotaGroup").isPresent());
        Workflow running = client.getKubernetesSerialization().unmarshal("""
                apiVersion: argoproj.io/v1alpha1
                kind: Workflow
                metadata:
                  name: running
                  namespace: default
                  annotations:
                    kube-queue/min-resources: "cpu: many"
                    kube-queue/quota-group: root.defaultQuotaGroup
                    kube-queue/admitted-at: "2026-01-01T00:00:00.000Z"
                spec: {suspend: false, entrypoint: main}
                """, Workflow.class);
        TrustedRecords.createSigned(client, running); // admitted by kube-queue before its request became unreadable
        await().atMost(Duration.ofSeconds(10)).until(() -> !invalidJobEvents(cluster, "running").isEmpty());
        String note = invalidJobEvents(cluster, "running").get(0).getNote();
        assertTrue(note.contains("the job runs and its use is unknown, so quota group root.defaultQuotaGroup"), note);
        assertEquals(JobState.ADMITTED,
                scheduler.status(new JobKey("Workflow", "default", "running")).orElseThrow().state());

        cluster.submitJob("behind", "1", java.util.Map.of(), null);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !cluster.admitted("behind"));

        client.resources(Workflow.class).inNamespace("default").withName("running").edit(w -> {
            w.getMetadata().getAnnotations().put("kube-queue/min-resources", "cpu: 3");
            return w;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("behind"));
        assertEquals(4000, scheduler.usage("root.defaultQuotaGroup").get("cpu"), "3 for the workflow, 1 for behind");
    }

    /** An admitted job whose request becomes unreadable keeps its last known charge, and the Warning says so. */
    @Test
    void anAdmittedJobWhoseRequestBecomesUnreadableKeepsItsCharge() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.defaultQuotaGroup").isPresent());
        cluster.submitJob("ok", "3", java.util.Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("ok"));
        client.batch().v1().jobs().inNamespace("default").withName("ok").edit(j -> {
            j.getSpec().setParallelism(-1);
            return j;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> !invalidJobEvents(cluster, "ok").isEmpty());
        String note = invalidJobEvents(cluster, "ok").get(0).getNote();
        assertTrue(note.contains("runs and stays charged at its last known request {cpu: 3}"), note);
        assertEquals(3000, scheduler.usage("root.defaultQuotaGroup").get("cpu"));
    }

    private static List<Event> invalidJobEvents(Cluster cluster, String name) {
        return cluster.events("default", name).stream().filter(e -> "InvalidJob".equals(e.getReason())).toList();
    }
}
