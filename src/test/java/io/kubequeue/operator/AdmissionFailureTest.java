package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.WithStrictApiServer;

/**
 * The API server refuses an admission patch (409 Conflict, 500 Internal Server Error): the charge is handed
 * back, the job is retried after its backoff and admitted once, and quota is never counted twice.
 */
@QuarkusTest
@TestProfile(AdmissionFailureTest.NoClientRetry.class)
@WithStrictApiServer
class AdmissionFailureTest {

    /** The client's own retry would absorb a single 500; switched off so that kube-queue's handling is tested. */
    public static class NoClientRetry implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.kubernetes-client.request-retry-backoff-limit", "0");
        }
    }

    private static final String JOB1 = "/apis/kubeflow.org/v1/namespaces/default/tfjobs/job1";

    @KubernetesTestServer
    KubernetesMockServer server;

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @AfterEach
    void tearDown() {
        new Cluster(client).clear();
    }

    private void refusedOnceThenAdmitted(int code) {
        server.expect().patch().withPath(JOB1).andReturn(code, "{\"kind\":\"Status\",\"code\":" + code + "}").once();
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        List<HasMetadata> jobs = Manifests.read(client, AdmissionFailureTest.class.getResourceAsStream("/seed/tfjobs.yaml"));
        cluster.create(jobs.get(0)); // job1 alone first: job2 would rightly pass it while it backs off

        // the first patch is refused; the job is uncharged and retried after its 1 s backoff
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob("job1")));
        assertEquals("root.defaultQuotaGroup", Cluster.admittedGroup(cluster.tfJob("job1")));
        cluster.create(jobs.get(1));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob("job2")));
        Resources used = scheduler.usage("root.defaultQuotaGroup");
        assertEquals(3000, used.get("cpu"), "job1 is charged once");
        assertEquals(1, used.get(Resources.MAX_JOBS));
        JobStatus job1 = scheduler.status(new JobKey("TFJob", "default", "job1")).orElseThrow();
        assertEquals(JobState.ADMITTED, job1.state());
        if (code == 409) {
            // a refusal counts as an attempt only if the read shows the job unchanged; kube-queue's own Queuing
            // condition may have moved its version since the decision, and then it is decided again uncounted
            assertTrue(job1.attempts() <= 1, "one refused admission at most before this one: " + job1.attempts());
        } else {
            assertEquals(0, job1.attempts(), "an ambiguous answer is fenced or found outdated, never counted");
        }
    }

    /**
     * A batch Job writes no status of its own: only the backoff's wake-up can retry it. Refused by a definite answer
     * (403, a validating webhook's, say): a 5xx is ambiguous, and is fenced instead of handed back (issue 26).
     */
    @Test
    void aRefusedBatchJobIsRetriedWhenItsBackoffExpiresWithNoOtherEvent() {
        server.expect().patch().withPath("/apis/batch/v1/namespaces/default/jobs/solo")
                .andReturn(403, "{\"kind\":\"Status\",\"code\":403}").once();
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.defaultQuotaGroup").isPresent());
        cluster.submitJob("solo", "1", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("solo"));
        assertEquals(1, scheduler.status(new JobKey("Job", "default", "solo")).orElseThrow().attempts());
    }

    /**
     * The user starts the job by hand while our admission is in flight: our patch is refused (422, its test op
     * finds no mark), and a read shows the job running. The charge is kept and written on the job.
     */
    @Test
    void aRefusalBecauseTheJobWasStartedByHandKeepsTheChargeAndRecordsIt() {
        String path = "/apis/batch/v1/namespaces/default/jobs/raced";
        server.expect().patch().withPath(path).andReturn(422, "{\"kind\":\"Status\",\"code\":422}").once();
        io.fabric8.kubernetes.api.model.batch.v1.Job running = new io.fabric8.kubernetes.api.model.batch.v1.JobBuilder()
                .withNewMetadata().withName("raced").withNamespace("default").endMetadata()
                .withNewSpec().withSuspend(false).withNewTemplate().withNewSpec().addNewContainer().withName("c")
                .withImage("x").endContainer().endSpec().endTemplate().endSpec().build();
        server.expect().get().withPath(path).andReturn(200, client.getKubernetesSerialization().asJson(running)).times(3);
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.defaultQuotaGroup").isPresent());
        cluster.submitJob("raced", "1", Map.of(), null);

        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", "raced").stream()
                .anyMatch(e -> "StartedOutsideQueue".equals(e.getReason())));
        assertEquals(0, scheduler.status(new JobKey("Job", "default", "raced")).orElseThrow().attempts(),
                "the refusal was not handed back as a failed admission");
    }

    @Test
    void aConflictHandsTheChargeBackAndTheJobIsAdmittedOnRetry() {
        refusedOnceThenAdmitted(409);
    }

    @Test
    void aServerErrorIsCheckedAgainstTheJobAndRetried() {
        refusedOnceThenAdmitted(500);
    }
}
