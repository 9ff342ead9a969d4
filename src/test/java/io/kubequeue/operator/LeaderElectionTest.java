package io.kubequeue.operator;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.ManagementPort;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.Annotations;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/**
 * Two replicas: another replica holds the Lease when this one starts. This one follows (serves the read API and
 * metrics, admits nothing); when the other stops renewing, it takes over, and it knows what the other admitted,
 * so the group is never over-admitted across the hand-over.
 */
@QuarkusTest
@TestProfile(LeaderElectionTest.ShortLease.class)
@WithStrictApiServer(setup = LeaderElectionTest.AnotherReplicaLeads.class)
class LeaderElectionTest {

    private static final String GROUP = "root.defaultQuotaGroup";
    private static final String BAD_JOB = "bad-replicas";

    public static class ShortLease implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.leader-election.retry-period", "300ms",
                    "kube-queue.leader-election.renew-deadline", "2s",
                    "kube-queue.leader-election.lease-duration", "3s");
        }
    }

    /** Before this replica starts: the other one leads, and has admitted a 3-cpu job into the 4-cpu group. */
    public static class AnotherReplicaLeads implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            client.leases().inNamespace("kube-queue").resource(new LeaseBuilder().withNewMetadata()
                    .withName("kube-queue-leader").withNamespace("kube-queue").endMetadata().withNewSpec()
                    .withHolderIdentity("other-replica").withLeaseDurationSeconds(600)
                    .withAcquireTime(ZonedDateTime.now()).withRenewTime(ZonedDateTime.now()).withLeaseTransitions(0)
                    .endSpec().build()).create();
            new Cluster(client).apply("/seed/elasticquotatree.yaml");
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @Inject
    io.kubequeue.leader.Leadership leadership;

    @Test
    void theFollowerAdmitsNothingTakesOverWhenTheLeaderStopsAndNeverOverAdmits() {
        Cluster cluster = new Cluster(client);
        Job byOther = cluster.submitJob("admitted-by-other", "3", Map.of(), null);
        byOther.getSpec().setSuspend(false); // the other leader's admission
        byOther.getMetadata().setAnnotations(TrustedRecords.signed(TrustedRecords.clusterKey(client),
                byOther.getMetadata().getUid(), Map.of(Annotations.QUOTA_GROUP, GROUP,
                        Annotations.ADMITTED_AT, "2026-11-30T00:00:00.000Z")));
        client.batch().v1().jobs().inNamespace("default").resource(byOther).update();
        cluster.submitJob("a-small", "1", Map.of(), null);
        cluster.submitJob("b-big", "3", Map.of(), null);
        cluster.apply("/seed/tfjobs.yaml"); // two 3-cpu TFJobs queued by annotation: kubectl shows them Queuing
        cluster.apply("/bad/negative-replicas.yaml"); // bad input: its Warning waits for a replica that leads

        // a follower: sees everything, admits nothing, says so
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.usage(GROUP).get("cpu") == 3000
                && scheduler.pending(GROUP).size() == 4);
        assertEquals(null, io.kubequeue.job.kubeflow.KubeflowJobKind.queuingCondition(cluster.tfJob("job1")),
                "a follower writes no condition");
        assertTrue(cluster.events("default", BAD_JOB).isEmpty(), "a follower writes no event");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> !cluster.admitted("a-small") && !cluster.admitted("b-big"));
        // its read API gives the leader's answer or none (issue 25): the other replica published no address here
        given().when().get("/api/v1/jobs/default/a-small").then().statusCode(503)
                .body("error", org.hamcrest.Matchers.startsWith("no replica leads now; try again"));
        String followerMetrics = ManagementPort.given().get("/q/metrics").asString();
        assertTrue(followerMetrics.contains("kube_queue_replica{replica_role=\"follower\"} 1.0"));
        assertTrue(followerMetrics.contains("kube_queue_quota_groups 2.0"), followerMetrics);
        // per-group series come from the leader only, so a sum over both replicas counts each group once: none
        // here for longer than the 5 s between two refreshes of the gauges
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8)).until(() -> {
            String now = ManagementPort.given().get("/q/metrics").asString();
            return !now.contains("kube_queue_pending_jobs{") && !now.contains("kube_queue_quota_used{");
        });
        ManagementPort.given().when().get("/q/health/ready").then().statusCode(200);

        // the other replica stops: its Lease runs out
        overwriteLease(spec -> {
            spec.setLeaseDurationSeconds(1);
            spec.setRenewTime(ZonedDateTime.now().minusMinutes(1));
        });

        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("a-small"));
        assertTrue(ManagementPort.given().get("/q/metrics").asString().contains("kube_queue_replica{replica_role=\"leader\"} 1.0"));
        await().atMost(Duration.ofSeconds(10)).until(() -> ManagementPort.given().get("/q/metrics").asString()
                .contains("kube_queue_quota_used{quota_group=\"" + GROUP + "\",resource=\"cpu\"} 4.0"));
        // 3 (the other's) + 1 (small) = 4: big (3) must wait; the new leader knew about the other's admission
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !cluster.admitted("b-big"));
        assertEquals(4000, scheduler.usage(GROUP).get("cpu"));
        // the Warning about bad input seen while following is written now
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", BAD_JOB).stream()
                .anyMatch(e -> "InvalidJob".equals(e.getReason())));
        // the TFJobs queued while this replica followed now show Queuing, as in the seed
        await().atMost(Duration.ofSeconds(10)).until(() ->
                "True".equals(io.kubequeue.job.kubeflow.KubeflowJobKind.queuingCondition(cluster.tfJob("job1")))
                        && "True".equals(io.kubequeue.job.kubeflow.KubeflowJobKind.queuingCondition(cluster.tfJob("job2"))));
        assertEquals(leadership.identity(), client.leases().inNamespace("kube-queue").withName("kube-queue-leader")
                .get().getSpec().getHolderIdentity(), "this replica holds the Lease now");

        // the other replica takes the Lease back (this one could not renew in time): this one stops admitting
        overwriteLease(spec -> {
            spec.setHolderIdentity("other-replica");
            spec.setLeaseDurationSeconds(600);
            spec.setRenewTime(ZonedDateTime.now());
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> ManagementPort.given().get("/q/metrics").asString()
                .contains("kube_queue_replica{replica_role=\"follower\"} 1.0"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !ManagementPort.given().get("/q/metrics").asString()
                .contains("kube_queue_pending_jobs{"));
        client.batch().v1().jobs().inNamespace("default").withName("a-small").delete(); // room for c-tiny
        cluster.submitJob("c-tiny", "100m", Map.of(), null);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !cluster.admitted("c-tiny"));

        // it keeps competing: when the other's Lease runs out again, it leads again and admits c-tiny
        overwriteLease(spec -> {
            spec.setLeaseDurationSeconds(1);
            spec.setRenewTime(ZonedDateTime.now().minusMinutes(1));
        });
        await().atMost(Duration.ofSeconds(15)).until(() -> cluster.admitted("c-tiny"));
        assertEquals(leadership.identity(), client.leases().inNamespace("kube-queue").withName("kube-queue-leader")
                .get().getSpec().getHolderIdentity());
    }

    /**
     * Plays the other replica writing the Lease: read, change, write; again on a 409, since this replica renews
     * the same Lease every retry period and a write between the read and ours makes ours stale.
     */
    private void overwriteLease(java.util.function.Consumer<io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec> change) {
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Lease lease = client.leases().inNamespace("kube-queue").withName("kube-queue-leader").get();
            change.accept(lease.getSpec());
            try {
                client.leases().inNamespace("kube-queue").resource(lease).update();
                return true;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() == 409) {
                    return false;
                }
                throw e;
            }
        });
    }
}
