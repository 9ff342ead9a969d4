package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.time.Duration;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.AdmittedRequests;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 26, sequence 3, after a restart: the cluster holds the seed's job1, admitted by an earlier run at 3 cpu and
 * 3Gi (its signed record says so, as the admission patch writes it: {@link RunningChargeScenarioTest}), whose
 * templates were edited down to 100m and 100Mi a pod since; its pods keep what they were made with. The new leader
 * charges it the 3 cpu its record names, not the 300m it asks now, so job2 (3 cpu) waits.
 */
@QuarkusTest
@WithStrictApiServer(setup = RunningChargeRestartTest.LoweredWhileRunning.class)
class RunningChargeRestartTest {

    /** Runs against the mock API server before the application starts. */
    public static class LoweredWhileRunning implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            try (InputStream tree = RunningChargeRestartTest.class.getResourceAsStream("/seed/elasticquotatree.yaml");
                 InputStream jobs = RunningChargeRestartTest.class.getResourceAsStream("/seed/tfjobs.yaml")) {
                for (HasMetadata o : Manifests.read(client, tree)) {
                    client.resource(o).create();
                }
                TFJob job1 = (TFJob) Manifests.read(client, jobs).get(0);
                job1.getMetadata().setNamespace("default");
                job1.getMetadata().getAnnotations().remove(SuspendMark.ANNOTATION_KEY);
                job1.getMetadata().getAnnotations().put(Annotations.QUOTA_GROUP, "root.defaultQuotaGroup");
                job1.getMetadata().getAnnotations().put(Annotations.ADMITTED_AT, "2026-01-01T00:00:00Z");
                job1.getMetadata().getAnnotations().put(Annotations.ADMITTED_REQUEST,
                        AdmittedRequests.write(Resources.of("cpu", 3000L, "memory", 3L << 30)));
                RunningChargeScenarioTest.withPodRequests(client, job1, "100m", "100Mi");
                TrustedRecords.createSigned(client, job1); // as kube-queue wrote it, then edited by its owner
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @Test
    void theRequestTheRecordNamesIsChargedAfterARestartAndTheNextJobWaits() {
        JobKey job1 = new JobKey("TFJob", "default", "job1");
        assertEquals(JobState.ADMITTED, scheduler.status(job1).orElseThrow().state());
        assertEquals(300, scheduler.status(job1).orElseThrow().request().get("cpu"), "it asks 300m now");
        assertEquals(3000, scheduler.usage("root.defaultQuotaGroup").get("cpu"), "charged what its record names");

        Cluster cluster = new Cluster(client);
        TFJob job2 = (TFJob) Manifests.read(client, getClass().getResourceAsStream("/seed/tfjobs.yaml")).get(1);
        cluster.create(job2);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob("job2")));
        cluster.clear();
    }
}
