package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;

/**
 * Start-up recovery on its own, with the reconcilers never started: what the scheduler holds when the
 * admission loop opens must come from recovery's list alone. job1 was admitted by an earlier run, job2 is
 * still suspended; job1 must be charged and job2 queued behind it, never admitted.
 */
@QuarkusTest
@TestProfile(RecoveryAloneTest.NoReconcilers.class)
@WithStrictApiServer(setup = RecoveryAloneTest.OneAdmittedOneQueued.class)
class RecoveryAloneTest {

    public static class NoReconcilers implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.operator-sdk.start-operator", "false");
        }
    }

    /** The seed's tree and TFJobs, job1 already admitted, as a restart finds them. */
    public static class OneAdmittedOneQueued implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            new RecoveryTest.AdmittedBeforeStart().accept(server);
            KubernetesClient client = server.createClient();
            try (InputStream jobs = RecoveryAloneTest.class.getResourceAsStream("/seed/tfjobs.yaml")) {
                List<HasMetadata> seed = Manifests.read(client, jobs);
                TFJob job2 = (TFJob) seed.get(1);
                job2.getMetadata().setNamespace("default");
                client.resource(job2).create();
                // a job kube-queue admitted before the restart that has since succeeded: never charged again
                TFJob done = (TFJob) Manifests.read(client, RecoveryAloneTest.class.getResourceAsStream("/seed/tfjobs.yaml")).get(0);
                done.getMetadata().setName("done");
                done.getMetadata().setNamespace("default");
                done.getMetadata().getAnnotations().remove(SuspendMark.ANNOTATION_KEY);
                done.getMetadata().getAnnotations().put(Annotations.QUOTA_GROUP, "root.defaultQuotaGroup");
                done.getMetadata().getAnnotations().put(Annotations.ADMITTED_AT, "2026-01-01T00:00:00Z");
                com.fasterxml.jackson.databind.node.ObjectNode status = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
                status.putArray("conditions").addObject().put("type", "Succeeded").put("status", "True");
                // as a real API server does, the test server drops a status sent with the object: the training
                // operator writes it through /status
                TFJob created = TrustedRecords.createSigned(client, done);
                created.setStatus(status);
                client.resource(created).updateStatus();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Inject
    Scheduler scheduler;

    @Inject
    KubernetesClient client;

    @Test
    void recoveryAloneChargesTheAdmittedJobAndQueuesTheOther() {
        assertEquals(JobState.ADMITTED,
                scheduler.status(new JobKey("TFJob", "default", "job1")).orElseThrow().state());
        assertEquals(3000, scheduler.usage("root.defaultQuotaGroup").get("cpu"), "job1 only: 'done' has finished");
        assertTrue(scheduler.status(new JobKey("TFJob", "default", "done")).isEmpty());
        // through a cycle and a backoff retry, job2 stays queued
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() ->
                scheduler.status(new JobKey("TFJob", "default", "job2")).orElseThrow().state() != JobState.ADMITTED
                        && Cluster.suspended(new Cluster(client).tfJob("job2")));
    }
}
