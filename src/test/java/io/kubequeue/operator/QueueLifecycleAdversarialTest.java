package io.kubequeue.operator;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.argo.WorkflowKind;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.restassured.path.json.JsonPath;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.testing.SeedTreeFixture;

/**
 * Adversarial sequences a real cluster produces (review of issue 12); each failed before its fix (the comments
 * say what went wrong then). Group {@code root.defaultQuotaGroup} (namespace {@code default}) has max cpu 4.
 */
@QuarkusTest
@TestProfile(AdmissionFailureTest.NoClientRetry.class)
@WithStrictApiServer
class QueueLifecycleAdversarialTest extends SeedTreeFixture {

    private static final String JOBS = "/apis/batch/v1/namespaces/default/jobs/";

    @KubernetesTestServer
    KubernetesMockServer server;

    @Inject
    EventRecorder events;

    @Inject
    KubeQueueConfig config;

    @Inject
    WorkflowKind workflowKind;

    /**
     * Argo's controller marks every new Workflow Running and sets {@code status.startedAt} on its first pass,
     * BEFORE it checks {@code spec.suspend} (workflow/controller/operator.go: {@code markWorkflowRunning()} when the
     * phase is empty, then {@code if woc.ShouldSuspend() { return }}). So a Workflow queued for kube-queue
     * ({@code spec.suspend: true} + {@code kube-queue/min-resources}) carries {@code status.startedAt} within
     * milliseconds of its creation, although it never ran a pod.
     *
     * <p>A kube-queue that first sees it in that state (any restart, upgrade or crash of kube-queue: start-up
     * recovery feeds a fresh scheduler; or a Workflow created while kube-queue was down) takes it for "paused after
     * it ran, by someone else" and ignores it for ever: the Workflow is never admitted.
     */
    @Test
    void aQueuedWorkflowThatArgoHasMarkedRunningIsStillQueuedAfterARestart() {
        Scheduler fresh = new Scheduler(SchedulerSettings.defaults(), Clock.systemUTC());
        fresh.replaceTree(new QuotaTree(List.of(
                new QuotaNode("g", null, List.of("wf-ns"), null, Resources.of("cpu", 4000L)))));
        JobFeed feed = new JobFeed(fresh, new JobDirectory(), events, config, TrustedRecords.signatures());
        Workflow asArgoLeavesIt = client.getKubernetesSerialization().unmarshal("""
                apiVersion: argoproj.io/v1alpha1
                kind: Workflow
                metadata:
                  name: queued
                  namespace: wf-ns
                  uid: 7f0c2b1e-0000-0000-0000-000000000001
                  resourceVersion: "12"
                  creationTimestamp: "2026-01-01T00:00:00Z"
                  annotations:
                    kube-queue/min-resources: "cpu: 1"
                spec: {suspend: true, entrypoint: main}
                status:
                  phase: Running
                  startedAt: "2026-01-01T00:00:01Z"
                """, Workflow.class);

        feed.observe(workflowKind, asArgoLeavesIt);

        assertTrue(fresh.status(new JobKey("Workflow", "wf-ns", "queued")).isPresent(),
                "a queued Workflow (spec.suspend + min-resources, no pod ever run) is lost after a restart: Argo sets"
                        + " status.startedAt on every new Workflow before it honours spec.suspend");
        assertEquals(1, fresh.schedule().admissions().size(), "1 cpu fits 4: it should be admitted");
    }

    /**
     * A queued batch Job without annotations (Kubernetes 1.27+ writes none) is started by hand
     * ({@code spec.suspend: false}). kube-queue charges it and writes the started-outside record so that a restart
     * still charges it; that patch is bound to the resourceVersion kube-queue saw. The Job controller writes the
     * Job's status (startTime, active, condition Resumed) at once on resume, so the patch often finds a newer
     * version and is refused (422, test failed). Simulated here: the first record patch is refused as a real API
     * server refuses it after the controller's status write, and the status write is then made.
     *
     * <p>Expected: the record is written (retried on the newer copy). Actual: the failure is only logged, nothing
     * retries it (the next copies find the same charge and do not ask again), so a restart forgets the running
     * job's quota and over-admits.
     */
    @Test
    void theStartedOutsideRecordIsWrittenEvenIfTheJobControllerWroteStatusFirst() {
        Job job = new JobBuilder().withNewMetadata().withName("byhand").withNamespace("default").endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().withRestartPolicy("Never")
                .addNewContainer().withName("work").withImage("busybox:stable").withNewResources()
                .addToRequests("cpu", new Quantity("5")).endResources().endContainer().endSpec().endTemplate()
                .endSpec().build(); // 5 > 4: never admitted by kube-queue
        client.batch().v1().jobs().inNamespace("default").resource(job).create();
        JobKey key = new JobKey("Job", "default", "byhand");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key).isPresent());

        // the record patch finds a newer resourceVersion (the Job controller's status write won the race)
        server.expect().patch().withPath(JOBS + "byhand").andReturn(422, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                + "\"status\":\"Failure\",\"reason\":\"Invalid\",\"code\":422,\"message\":\"the server rejected our"
                + " request due to an error in our request: testing value /metadata/resourceVersion failed\"}").once();
        Job resumed = new JobBuilder(cluster.job("byhand")).editSpec().withSuspend(false).endSpec().build();
        client.batch().v1().jobs().inNamespace("default").resource(resumed).update(); // a PUT, as kubectl edit
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key)
                .map(s -> s.state() == JobState.ADMITTED).orElse(false));
        Job running = cluster.job("byhand");
        running.setStatus(new JobStatusBuilder().withStartTime("2026-01-01T00:00:00Z").withActive(1).build());
        client.batch().v1().jobs().inNamespace("default").resource(running).updateStatus();

        await().atMost(Duration.ofSeconds(10)).until(() -> {
            var annotations = cluster.job("byhand").getMetadata().getAnnotations();
            return annotations != null && annotations.containsKey(Annotations.QUOTA_GROUP);
        });
    }

    /**
     * Dry run of a batch Job that carries the suspend annotation but not {@code spec.suspend: true} (the ack-arena
     * habit, and what the seed's text shows for other kinds). In a real cluster it runs at once and kube-queue
     * charges it as started outside, with a StartedOutsideQueue Warning (docs/behaviour.md §1). The dry run says it
     * "carries no suspend mark" and that kube-queue "would leave it alone": both false.
     */
    @Test
    void theDryRunOfAJobWithOnlyTheAnnotationDoesNotSayItCarriesNoMark() {
        String manifest = """
                apiVersion: batch/v1
                kind: Job
                metadata:
                  name: annotated
                  namespace: default
                  annotations:
                    scheduling.x-k8s.io/suspend: "true"
                spec:
                  template:
                    spec:
                      restartPolicy: Never
                      containers:
                      - name: work
                        image: busybox:stable
                        resources: {requests: {cpu: "1"}}
                """;
        String body = given().contentType("application/yaml").body(manifest.getBytes(StandardCharsets.UTF_8))
                .when().post("/api/v1/dry-run").then().statusCode(200).extract().asString();
        String reason = JsonPath.from(body).getString("reason");
        assertTrue(!reason.contains("carries no suspend mark") && !reason.contains("leave it alone"),
                "misleading dry-run verdict: " + body);
    }
}
