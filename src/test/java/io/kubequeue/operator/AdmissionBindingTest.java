package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.admission.Admitter;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.SeedTreeFixture;

/**
 * Issue 12, end to end on the strict API server: an admission applies only to the job it was decided for, an
 * admission whose answer is lost is settled, a mark the job's controller ignores does not hide a running job, a
 * paused job kube-queue never managed is left alone, and a refusal that shows another replica's admission keeps
 * the room charged. Group {@code root.defaultQuotaGroup} (namespace {@code default}) has max cpu 4.
 */
@QuarkusTest
@TestProfile(AdmissionFailureTest.NoClientRetry.class)
@WithStrictApiServer
class AdmissionBindingTest extends SeedTreeFixture {

    private static final String JOBS = "/apis/batch/v1/namespaces/default/jobs/";

    @KubernetesTestServer
    KubernetesMockServer server;

    @Inject
    Admitter admitter;

    @Inject
    io.kubequeue.admission.AdmissionLoop loop;

    private static JobKey key(String name) {
        return new JobKey("Job", "default", name);
    }

    private Job create(String name, String cpu, Boolean specSuspend, Map<String, String> annotations) {
        Job job = new JobBuilder().withNewMetadata().withName(name).withNamespace("default").withAnnotations(annotations)
                .endMetadata().withNewSpec().withSuspend(specSuspend).withNewTemplate().withNewSpec()
                .withRestartPolicy("Never").addNewContainer().withName("work").withImage("busybox:stable")
                .withNewResources().addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity(cpu)).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
        return client.batch().v1().jobs().inNamespace("default").resource(job).create();
    }

    /**
     * Fault 2: the PATCH answers 500 and did not apply, and reading the job back fails too (an outage longer than
     * the client's retries). The admission stays charged and is re-read until known; the read shows the job
     * unchanged, at the version the lost patch tests, so the leader sends the same patch again bound to it (issue
     * 26: a read alone cannot say the lost patch will not still apply), which admits it, charged once.
     */
    @Test
    void anAdmissionWhoseAnswerAndReadBackAreLostIsSettledAndTheJobRuns() {
        server.expect().patch().withPath(JOBS + "lost").andReturn(500, "{\"kind\":\"Status\",\"code\":500}").once();
        // kube-queue reads the job back after the 500, then re-reads it on its backoff: the first three reads fail
        server.expect().get().withPath(JOBS + "lost").andReturn(500, "{\"kind\":\"Status\",\"code\":500}").times(3);
        cluster.submitJob("lost", "3", Map.of(), null);

        // watched through the scheduler: a GET of the job here would take the 500s meant for kube-queue's reads
        // watched through events (a collection read): the fence's applied answer gives the Admitted event
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.events("default", "lost").stream()
                .anyMatch(e -> "Admitted".equals(e.getReason())));
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("lost"));
        assertEquals(0, scheduler.status(key("lost")).orElseThrow().attempts(), "never handed back");
        assertEquals(3000, scheduler.usage("root.defaultQuotaGroup").get("cpu"), "charged once");
    }

    /**
     * Issue 13: an admission is one round trip. The job is patched once and never read from the API server (the
     * decision comes from the informer's copy; fabric8's DSL {@code patch} on a named resource would GET it first).
     */
    @Test
    void anAdmissionIsOnePatchAndNoRead() throws InterruptedException {
        forgetRequests();
        cluster.submitJob("one-trip", "1", Map.of(), null);
        // watched through events (a collection read), not by reading the job, which would count as a read here
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", "one-trip").stream()
                .anyMatch(e -> "Admitted".equals(e.getReason())));
        assertEquals(java.util.List.of("PATCH"), requestsToJob("one-trip"), "one round trip: the admission patch alone");
    }

    /** Forgets the requests the mock server recorded so far (earlier tests'). */
    private void forgetRequests() throws InterruptedException {
        while (server.takeRequest(1, TimeUnit.MILLISECONDS) != null) {
            // dropped
        }
    }

    /** The methods of the requests recorded since {@link #forgetRequests} to one job or its status, in order. */
    private java.util.List<String> requestsToJob(String name) throws InterruptedException {
        java.util.List<String> toTheJob = new java.util.ArrayList<>();
        for (var request = server.takeRequest(100, TimeUnit.MILLISECONDS); request != null;
             request = server.takeRequest(100, TimeUnit.MILLISECONDS)) {
            String path = request.getPath().split("\\?")[0];
            if (path.equals(JOBS + name) || path.equals(JOBS + name + "/status")) {
                toTheJob.add(request.getMethod());
            }
        }
        return toTheJob;
    }

    /**
     * The started-outside record is one round trip too: a job running without kube-queue's admission gets its
     * charge written by one PATCH, without reading the job first (the DSL's patch did a GET).
     */
    @Test
    void aStartedOutsideRecordIsOnePatchAndNoRead() throws InterruptedException {
        forgetRequests();
        create("outside-one-trip", "1", null, Map.of(SuspendMark.ANNOTATION_KEY, "true"));
        // the Warning follows the written record; events are a collection read, not a read of the job
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", "outside-one-trip").stream()
                .anyMatch(e -> "StartedOutsideQueue".equals(e.getReason())));
        assertEquals(java.util.List.of("PATCH"), requestsToJob("outside-one-trip"),
                "one round trip: the record's patch alone");
    }

    /**
     * Fault 3: a Job with only the annotation runs at once (the Job controller reads spec.suspend alone). It is
     * charged, told so, and the room it uses is not given to another job.
     */
    @Test
    void aJobWithOnlyTheAnnotationRunsAndIsCharged() {
        create("annotated", "3", null, Map.of(SuspendMark.ANNOTATION_KEY, "true"));

        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key("annotated"))
                .map(s -> s.state() == JobState.ADMITTED).orElse(false));
        assertTrue(scheduler.status(key("annotated")).orElseThrow().record().startedOutside());
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", "annotated").stream()
                .anyMatch(e -> "StartedOutsideQueue".equals(e.getReason()) && e.getNote().contains("does not read")));
        await().atMost(Duration.ofSeconds(10)).until(() -> AdmissionRecord.STARTED_OUTSIDE.equals(
                cluster.job("annotated").getMetadata().getAnnotations().get(Annotations.ADMITTED_AT)));
        cluster.submitJob("behind", "2", Map.of(), null);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !cluster.admitted("behind"));
        assertEquals(3000, scheduler.usage("root.defaultQuotaGroup").get("cpu"));
    }

    /** Fault 3: spec.suspend flipped to false by hand while the annotation stays: the queued job is charged. */
    @Test
    void aQueuedJobWhoseSpecSuspendIsFlippedByHandIsCharged() {
        create("flipped", "5", true, Map.of(SuspendMark.ANNOTATION_KEY, "true")); // 5 > 4: never admitted
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key("flipped")).isPresent());
        client.batch().v1().jobs().inNamespace("default").withName("flipped")
                .edit(j -> new JobBuilder(j).editSpec().withSuspend(false).endSpec().build());

        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key("flipped"))
                .map(s -> s.state() == JobState.ADMITTED).orElse(false));
        assertEquals(5000, scheduler.usage("root.defaultQuotaGroup").get("cpu"));
    }

    /**
     * A queued job started by hand while this replica does not lead is charged, and its started-outside record is
     * written once it leads: its scheduler already holds the charge, so nothing else would ask for it again (a
     * restart would then forget the running job).
     */
    @Test
    void aChargeMadeWhileNotLeadingIsRecordedOnceLeading() {
        create("meanwhile", "5", true, Map.of()); // 5 > 4: never admitted by kube-queue
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key("meanwhile")).isPresent());
        loop.close();
        try {
            client.batch().v1().jobs().inNamespace("default").withName("meanwhile")
                    .edit(j -> new JobBuilder(j).editSpec().withSuspend(false).endSpec().build());
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key("meanwhile"))
                    .map(s -> s.state() == JobState.ADMITTED).orElse(false));
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                    .until(() -> Cluster.admittedGroup(cluster.job("meanwhile")) == null);
        } finally {
            loop.openIf(() -> true);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> AdmissionRecord.STARTED_OUTSIDE.equals(
                cluster.job("meanwhile").getMetadata().getAnnotations().get(Annotations.ADMITTED_AT)));
    }

    /**
     * Fault 3: a queued Workflow (spec.suspend and the annotation) resumed with {@code argo resume}: Argo reads
     * spec.suspend only, so it runs although the annotation stays; it is charged.
     */
    @Test
    void aWorkflowResumedByArgoIsChargedAlthoughItsAnnotationStays() {
        Workflow queued = client.getKubernetesSerialization().unmarshal("""
                apiVersion: argoproj.io/v1alpha1
                kind: Workflow
                metadata:
                  name: resumed
                  namespace: default
                  annotations:
                    scheduling.x-k8s.io/suspend: "true"
                    kube-queue/min-resources: "cpu: 5"
                spec: {suspend: true, entrypoint: main}
                """, Workflow.class);
        client.resource(queued).create(); // 5 > 4: never admitted by kube-queue
        JobKey key = new JobKey("Workflow", "default", "resumed");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key).isPresent());
        client.resources(Workflow.class).inNamespace("default").withName("resumed").edit(w -> {
            ((com.fasterxml.jackson.databind.node.ObjectNode) w.getSpec()).put("suspend", false);
            return w;
        });

        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key)
                .map(s -> s.state() == JobState.ADMITTED).orElse(false));
        assertEquals(5000, scheduler.usage("root.defaultQuotaGroup").get("cpu"));
    }

    /**
     * Fault 4: the decision was made for one object; the job was deleted and created again under the same name.
     * The old admission must not unsuspend the new object.
     */
    @Test
    void anAdmissionDecidedForADeletedJobCannotAdmitItsNamesake() throws Exception {
        Job fresh = cluster.submitJob("again", "1", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key("again")).isPresent());
        cluster.complete("again");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key("again")).isEmpty());
        client.batch().v1().jobs().inNamespace("default").withName("again").delete();
        await().atMost(Duration.ofSeconds(5)).until(() -> cluster.job("again") == null);
        Job newer = create("again", "9", true, Map.of()); // 9 > 4: never admitted by kube-queue

        Admitter.Settlement settlement = admitter.admit(new Admission(key("again"), fresh.getMetadata().getUid(),
                new AdmissionRecord("root.defaultQuotaGroup", "2026-01-01T00:00:00.000Z"), Resources.of("cpu", 1000L), 0))
                .get(10, TimeUnit.SECONDS);
        assertNotEquals(Admitter.Settlement.Kind.APPLIED, settlement.kind(), "the old decision is not carried out");
        Job now = cluster.job("again");
        assertEquals(newer.getMetadata().getUid(), now.getMetadata().getUid());
        assertTrue(now.getSpec().getSuspend(), "the new job stays suspended");
    }

    /** Fault 6: a Job paused by its user after it ran, never through kube-queue, is not queued or resumed. */
    @Test
    void aPausedJobThatKubeQueueNeverManagedIsLeftAlone() {
        Job running = create("paused", "1", false, Map.of());
        running.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder()
                .withStartTime("2026-01-01T00:00:00Z").withActive(1).build());
        client.batch().v1().jobs().inNamespace("default").resource(running).updateStatus();
        client.batch().v1().jobs().inNamespace("default").withName("paused")
                .edit(j -> new JobBuilder(j).editSpec().withSuspend(true).endSpec().build());
        cluster.submitJob("marker", "1", Map.of(), null); // a later job, admitted: the paused one was seen before it

        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("marker"));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> scheduler.status(key("paused")).isEmpty());
        assertTrue(cluster.job("paused").getSpec().getSuspend(), "still paused");
    }

    /**
     * Fault 9: our admission is refused (409) during a leader change; reading the job back shows it admitted by
     * the other replica. The record read is charged at once, not handed back until the informer catches up.
     */
    @Test
    void aRefusalThatShowsAnotherReplicasAdmissionChargesTheRecordRead() {
        String path = JOBS + "taken";
        server.expect().patch().withPath(path).andReturn(409, "{\"kind\":\"Status\",\"code\":409}").once();
        Job theirs = new JobBuilder().withNewMetadata().withName("taken").withNamespace("default")
                .withAnnotations(TrustedRecords.signed(TrustedRecords.clusterKey(client), null, Map.of(
                        Annotations.QUOTA_GROUP, "root.defaultQuotaGroup",
                        Annotations.ADMITTED_AT, "2026-01-01T00:00:00.500Z"))).endMetadata()
                .withNewSpec().withSuspend(false).withNewTemplate().withNewSpec().addNewContainer().withName("c")
                .withImage("x").endContainer().endSpec().endTemplate().endSpec().build();
        // fabric8's patch reads the job first, and kube-queue reads it back after the refusal
        server.expect().get().withPath(path).andReturn(200, client.getKubernetesSerialization().asJson(theirs)).times(2);
        cluster.submitJob("taken", "3", Map.of(), null);

        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key("taken"))
                .map(s -> s.record() != null && "2026-01-01T00:00:00.500Z".equals(s.record().admittedAt())).orElse(false));
        JobStatus status = scheduler.status(key("taken")).orElseThrow();
        assertEquals(JobState.ADMITTED, status.state());
        assertEquals(0, status.attempts(), "not handed back as a failed admission");
        assertEquals(3000, scheduler.usage("root.defaultQuotaGroup").get("cpu"));
    }
}
