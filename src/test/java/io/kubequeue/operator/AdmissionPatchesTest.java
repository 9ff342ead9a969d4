package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.StrictApiServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.SeedTreeFixture;

/**
 * Admission patches on a server that applies JSON Patch as strictly as a real one ({@link StrictApiServer}): a job
 * that arrives without annotations (a batch Job on Kubernetes 1.27+, an upstream PyTorchJob or MPIJob) is admitted
 * and gets its admission record; so is the record of a job started by hand. A patch the server keeps refusing ends
 * in one Warning event with the server's message. (UpstreamSamplesTest admits every Kubeflow kind queued by
 * {@code runPolicy.suspend} without annotations.)
 */
@QuarkusTest
@WithStrictApiServer
class AdmissionPatchesTest extends SeedTreeFixture {

    @KubernetesTestServer
    KubernetesMockServer server;

    @Test
    void aBatchJobWithoutAnnotationsGetsTheWholeSignedRecordAndNothingElse() {
        Job submitted = cluster.submitJob("bare", "1", Map.of(), null);
        assertTrue(submitted.getMetadata().getAnnotations() == null || submitted.getMetadata().getAnnotations().isEmpty(),
                "the job arrives without annotations");

        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("bare"));
        Map<String, String> annotations = cluster.job("bare").getMetadata().getAnnotations();
        assertEquals(SEED_GROUP, annotations.get(Annotations.QUOTA_GROUP));
        java.util.Set<String> signedSet = new java.util.TreeSet<>(io.kubequeue.job.RecordFields.KEYS);
        signedSet.add(Annotations.RECORD_SIGNATURE);
        assertEquals(signedSet, new java.util.TreeSet<>(annotations.keySet()),
                "the signed set and its signature");
        assertEquals(RecordSignatures.Trust.TRUSTED, TrustedRecords.clusterKey(client)
                .read(cluster.job("bare").getMetadata().getUid(), annotations).trust());
    }

    /** The jobs K3sSeedScenarioIT submits to a real API server: each kind queued its own operator's way. */
    @Test
    void oneJobOfEachKindQueuedItsOwnWayIsAdmitted() {
        List<HasMetadata> jobs = cluster.apply("/k3s/one-of-each-kind.yaml");
        assertEquals(List.of("TFJob", "PyTorchJob", "MPIJob", "Workflow", "Job"),
                jobs.stream().map(HasMetadata::getKind).toList());
        for (HasMetadata job : jobs) {
            await(job.getKind() + " admitted").atMost(Duration.ofSeconds(10)).until(() -> cluster.admittedNow(job));
        }
    }

    @Test
    void aJobWithoutAnnotationsStartedByHandGetsItsChargeRecorded() {
        cluster.submitJob("runs", "3", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("runs"));
        cluster.submitJob("impatient", "3", Map.of(), null); // 3 + 3 > 4: waits
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", "impatient").stream()
                .anyMatch(e -> "Pending".equals(e.getReason())));

        Job impatient = cluster.job("impatient");
        impatient.getSpec().setSuspend(false); // started by hand, without kube-queue
        client.batch().v1().jobs().inNamespace("default").resource(impatient).update();

        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.job("impatient").getMetadata().getAnnotations() != null
                && SEED_GROUP.equals(cluster.job("impatient").getMetadata().getAnnotations().get(Annotations.QUOTA_GROUP)));
        assertTrue(cluster.events("default", "impatient").stream()
                .anyMatch(e -> "StartedOutsideQueue".equals(e.getReason())));
    }

    @Test
    void aPatchTheServerKeepsRefusingEndsInOneWarningWithItsMessage() {
        String message = "admission webhook \\\"policy.example.com\\\" denied the request: jobs need an owner label";
        server.expect().patch().withPath("/apis/batch/v1/namespaces/default/jobs/refused")
                .andReturn(422, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":422,"
                        + "\"reason\":\"Invalid\",\"message\":\"" + message + "\"}").times(3);
        cluster.submitJob("refused", "1", Map.of(), null);

        // tries at once, then after backoffs of 1 s and 2 s: the third refusal in a row gives the Warning
        await().atMost(Duration.ofSeconds(15)).until(() -> !refusedWarnings().isEmpty());
        Event warning = refusedWarnings().get(0);
        assertEquals("Warning", warning.getType());
        assertTrue(warning.getNote().contains("HTTP 422")
                        && warning.getNote().contains("policy.example.com\" denied the request: jobs need an owner label"),
                warning.getNote());
        assertTrue(Cluster.suspended(cluster.job("refused")), "nothing was applied");
        // the refusals run out: the next try is admitted, and the warning was given once
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.admitted("refused"));
        assertEquals(1, refusedWarnings().size());
    }

    private List<Event> refusedWarnings() {
        return cluster.events("default", "refused").stream().filter(e -> "AdmissionRefused".equals(e.getReason()))
                .toList();
    }
}
