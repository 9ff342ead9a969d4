package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.time.Duration;
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
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;

/**
 * A restart with one admitted job: before kube-queue starts, the cluster already holds the seed's tree and
 * job1, admitted by an earlier run (admission record, no suspend mark). Its 3 cpu must be charged at start-up,
 * so job2 (3 cpu more, in a 4-cpu group) stays suspended.
 */
@QuarkusTest
@WithStrictApiServer(setup = RecoveryTest.AdmittedBeforeStart.class)
class RecoveryTest {

    /** Runs against the mock API server before the application starts. */
    public static class AdmittedBeforeStart implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            try (InputStream tree = RecoveryTest.class.getResourceAsStream("/seed/elasticquotatree.yaml");
                 InputStream jobs = RecoveryTest.class.getResourceAsStream("/seed/tfjobs.yaml")) {
                for (HasMetadata o : Manifests.read(client, tree)) {
                    client.resource(o).create();
                }
                TFJob job1 = (TFJob) Manifests.read(client, jobs).get(0);
                job1.getMetadata().setNamespace("default");
                job1.getMetadata().getAnnotations().remove(SuspendMark.ANNOTATION_KEY);
                job1.getMetadata().getAnnotations().put(Annotations.QUOTA_GROUP, "root.defaultQuotaGroup");
                job1.getMetadata().getAnnotations().put(Annotations.ADMITTED_AT, "2026-01-01T00:00:00Z");
                TrustedRecords.createSigned(client, job1); // as kube-queue wrote it before the restart
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
    void anAdmittedJobIsChargedAtStartUpSoAJobThatWouldExceedTheGroupWaits() {
        assertEquals(JobState.ADMITTED,
                scheduler.status(new JobKey("TFJob", "default", "job1")).orElseThrow().state());
        assertEquals(3000, scheduler.usage("root.defaultQuotaGroup").get("cpu"));

        Cluster cluster = new Cluster(client);
        TFJob job2 = (TFJob) Manifests.read(client, RecoveryTest.class.getResourceAsStream("/seed/tfjobs.yaml")).get(1);
        cluster.create(job2);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob("job2")));
        assertEquals(Map.of(SuspendMark.ANNOTATION_KEY, "true"), cluster.tfJob("job2").getMetadata().getAnnotations());

        cluster.succeed("job1");
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob("job2")));
        cluster.clear();
    }
}
