package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.Cluster;

/**
 * Issue 25, sequence 8: with two replicas the read API gave each replica's own view, and only the leader runs
 * scheduling cycles, so a follower said ACTIVE ("tried in the next cycle") where the leader said BACKOFF (with its
 * tries) or HELD (can never fit), and {@code kubectl queue}, which reaches any replica through the Service, changed
 * its answer from call to call. Two packaged replicas against one API server are asked directly, each on its own
 * port: both must give the leader's answer, for a job in BACKOFF, a HELD one, a group's queue and a dry run.
 */
class ReadApiOnEveryReplicaIT {

    private static final Duration START = Duration.ofSeconds(90);
    private static final String GROUP = "root.defaultQuotaGroup";
    private static final String MANIFEST = """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: would-it-fit
              namespace: default
            spec:
              suspend: true
              template:
                spec:
                  restartPolicy: Never
                  containers:
                    - name: work
                      image: busybox:stable
                      resources:
                        requests:
                          cpu: "1"
            """;

    private KubernetesMockServer server;
    private KubernetesClient client;
    private Cluster cluster;
    private final List<PackagedOperator> replicas = new ArrayList<>();

    @BeforeEach
    void startApiServer() {
        server = PackagedOperator.mockApiServer();
        client = server.createClient();
        cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml"); // root.defaultQuotaGroup: namespace default, max 4 cpu
        PackagedOperator.acceptEveryReader(server);
    }

    @AfterEach
    void stopAll() {
        replicas.forEach(PackagedOperator::close);
        client.close();
        server.destroy();
    }

    @Test
    void bothReplicasGiveTheLeadersAnswerForTheSameJob() {
        PackagedOperator a = replica("replica-a");
        await().atMost(START).until(() -> a.ready() && a.leads());
        PackagedOperator b = replica("replica-b");
        await().atMost(START).until(b::ready);
        assertFalse(b.leads(), "a second replica must follow while the first holds the Lease");

        for (int i = 0; i < 4; i++) {
            cluster.submitJob("running-" + i, "1", Map.of(), null); // the group's 4 cpu, all in use
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> admittedJobs() == 4);
        cluster.submitJob("waits", "1", Map.of(), null); // tried once, did not fit: backs off (5 minutes)
        cluster.submitJob("never-fits", "8", Map.of(), null); // above the group's max: held
        String waits = "/api/v1/jobs/default/waits";
        String neverFits = "/api/v1/jobs/default/never-fits";
        await().atMost(Duration.ofSeconds(20)).until(() -> a.body(waits).contains("\"state\":\"BACKOFF\"")
                && a.body(neverFits).contains("\"state\":\"HELD\""));
        assertTrue(a.body(waits).contains("(1 try)"), a.body(waits));

        // the same job, asked of each replica: the same state, tries, retry time and reason, as the leader says
        for (String path : List.of(waits, neverFits, "/api/v1/queues/" + GROUP + "/jobs", "/api/v1/queues")) {
            PackagedOperator.Reply fromLeader = a.request("GET", path, null, null);
            PackagedOperator.Reply fromFollower = b.request("GET", path, null, null);
            assertEquals(200, fromLeader.status(), path + ": " + fromLeader.body());
            assertEquals(withoutClock(fromLeader.body()), withoutClock(fromFollower.body()),
                    path + ": the follower's answer differs from the leader's; follower log: " + b.logFile());
            assertEquals(fromLeader.status(), fromFollower.status(), path);
            assertEquals("replica-a", fromFollower.header("X-Kube-Queue-Answered-By"), path);
            assertEquals("replica-a", fromLeader.header("X-Kube-Queue-Answered-By"), path);
        }
        assertTrue(b.body(waits).contains("\"state\":\"BACKOFF\""), b.body(waits));
        assertTrue(b.body(neverFits).contains("\"state\":\"HELD\""), b.body(neverFits));

        // the dry run (a POST with a YAML body) and an error answer pass through unchanged as well
        PackagedOperator.Reply dryRunAtLeader = a.request("POST", "/api/v1/dry-run", MANIFEST, "application/yaml");
        PackagedOperator.Reply dryRunAtFollower = b.request("POST", "/api/v1/dry-run", MANIFEST, "application/yaml");
        assertEquals(200, dryRunAtLeader.status(), dryRunAtLeader.body());
        assertEquals(withoutClock(dryRunAtLeader.body()), withoutClock(dryRunAtFollower.body()));
        assertEquals("replica-a", dryRunAtFollower.header("X-Kube-Queue-Answered-By"));
        PackagedOperator.Reply missing = b.request("GET", "/api/v1/jobs/default/no-such-job", null, null);
        assertEquals(404, missing.status(), missing.body());
        assertEquals("replica-a", missing.header("X-Kube-Queue-Answered-By"));
        assertEquals(401, b.statusWithoutToken(waits), "the leader checks a forwarded call's token as a direct one's");

        // the leader's address stays on the Lease while fabric8 renews it (a merge patch of name, resourceVersion
        // and spec): written once per term, not at each renewal
        Lease before = lease();
        assertEquals("replica-a", before.getMetadata().getAnnotations().get("kube-queue/read-api-holder"));
        assertEquals(a.readApiUrl(), before.getMetadata().getAnnotations().get("kube-queue/read-api-url"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !lease().getSpec().getRenewTime()
                .equals(before.getSpec().getRenewTime()));
        assertEquals(before.getMetadata().getAnnotations(), lease().getMetadata().getAnnotations());

        // the leader stops: the follower takes over and from then on answers itself, with its own cycles' state
        int exit = a.stop();
        assertTrue(exit == 0 || exit == 143, "log: " + a.logFile());
        await().atMost(Duration.ofSeconds(20)).until(b::leads);
        await().atMost(Duration.ofSeconds(20)).until(() -> "replica-b".equals(
                b.request("GET", waits, null, null).header("X-Kube-Queue-Answered-By")));
        await().atMost(Duration.ofSeconds(20)).until(() -> b.body(waits).contains("\"state\":\"BACKOFF\""));
        assertEquals(b.readApiUrl(), lease().getMetadata().getAnnotations().get("kube-queue/read-api-url"));
        assertNotEquals(a.readApiUrl(), b.readApiUrl());
    }

    private PackagedOperator replica(String name) {
        Map<String, String> env = new HashMap<>(Map.of(
                "KUBE_QUEUE_LEADER_ELECTION_LEASE_DURATION", "3s",
                "KUBE_QUEUE_LEADER_ELECTION_RENEW_DEADLINE", "2s",
                "KUBE_QUEUE_LEADER_ELECTION_RETRY_PERIOD", "300ms",
                // one failed try, then a backoff that outlasts the test: the answer stays put between two calls
                "KUBE_QUEUE_BACKOFF_INITIAL", "5m",
                "KUBE_QUEUE_BACKOFF_MAX", "5m"));
        PackagedOperator replica = PackagedOperator.start(name, client.getConfiguration().getMasterUrl(), env);
        replicas.add(replica);
        return replica;
    }

    /**
     * The two calls are made at two moments: an estimate's age ticks between them, and the dry run is replayed at
     * each call (its computedAt is the call's own second). Everything else must be the same text.
     */
    private static String withoutClock(String body) {
        return body.replaceAll("\"computedAt\":\"[^\"]*\"", "\"computedAt\":\"…\"")
                .replaceAll("\"ageSeconds\":\\d+", "\"ageSeconds\":…");
    }

    private long admittedJobs() {
        return client.batch().v1().jobs().inNamespace("default").list().getItems().stream()
                .filter(j -> !Cluster.suspended(j)).count();
    }

    private Lease lease() {
        return client.leases().inNamespace("kube-queue").withName("kube-queue-leader").get();
    }
}
