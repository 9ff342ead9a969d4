package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.Cluster;

/**
 * Two replicas of the packaged operator against one API server (the fabric8 mock server, CRUD mode): only the
 * Lease holder admits; the other takes over when the first stops (SIGTERM: it hands the Lease back) or dies
 * (SIGKILL: the Lease runs out); and at no moment, hand-overs included, do the admitted, unfinished jobs ask for
 * more than the quota group's 4 cpu. Jobs finish while the leader goes away, so the new leader must rebuild what
 * is in use from the cluster before it admits.
 */
class TwoReplicasIT {

    private static final Pattern ADMITTED = Pattern.compile("admitted \\S+ default/(\\S+) into quota group");
    private static final int QUOTA_MILLICORES = 4000;
    /** Short Lease timings, so that a killed leader's Lease runs out in seconds (env names of the config keys). */
    private static final Map<String, String> SHORT_LEASE = Map.of(
            "KUBE_QUEUE_LEADER_ELECTION_LEASE_DURATION", "3s",
            "KUBE_QUEUE_LEADER_ELECTION_RENEW_DEADLINE", "2s",
            "KUBE_QUEUE_LEADER_ELECTION_RETRY_PERIOD", "300ms");
    private static final Duration START = Duration.ofSeconds(90);

    private KubernetesMockServer server;
    private KubernetesClient client;
    private Cluster cluster;
    private final List<PackagedOperator> replicas = new ArrayList<>();
    private Thread watchdog;
    private final AtomicInteger mostInUse = new AtomicInteger();
    private final AtomicReference<String> overAdmitted = new AtomicReference<>();

    @BeforeEach
    void startApiServer() throws Exception {
        server = PackagedOperator.mockApiServer();
        client = server.createClient();
        cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml"); // root.defaultQuotaGroup: namespace default, max 4 cpu
        PackagedOperator.acceptEveryReader(server);
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        if (watchdog != null) {
            watchdog.interrupt();
            watchdog.join();
        }
        replicas.forEach(PackagedOperator::close);
        client.close();
        server.destroy();
    }

    @Test
    void onlyTheLeaderAdmitsAndAHandOverNeverOverAdmits() {
        PackagedOperator a = replica("replica-a");
        await().atMost(START).until(() -> a.ready() && a.leads());
        PackagedOperator b = replica("replica-b");
        await().atMost(START).until(b::ready);
        assertFalse(b.leads(), "a second replica must follow while the first holds the Lease");
        watchOverAdmission();

        for (int i = 0; i < 6; i++) {
            cluster.submitJob("job-" + i, "1", Map.of(), null);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> admitted().size() == 4);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> admitted().size() == 4);
        assertEquals(4, a.admissions(), "the leader wrote every admission");
        assertEquals(0, b.admissions(), "the follower wrote none");
        // per-group series come from the leader only: summed over both replicas (as a dashboard sums over pods)
        // each is the leader's value, not twice it, for longer than a follower's 5 s refresh of its gauges
        String group = "quota_group=\"root.defaultQuotaGroup\"";
        String cpu = group + ",resource=\"cpu\"";
        await().atMost(Duration.ofSeconds(10)).until(() -> a.metric("kube_queue_quota_used", cpu) == 4.0
                && a.metric("kube_queue_admitted_jobs", group) == 4.0 && a.metric("kube_queue_pending_jobs", group) == 2.0);
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8)).until(() ->
                a.metric("kube_queue_quota_used", cpu) + b.metric("kube_queue_quota_used", cpu) == 4.0
                && a.metric("kube_queue_admitted_jobs", group) + b.metric("kube_queue_admitted_jobs", group) == 4.0
                && a.metric("kube_queue_pending_jobs", group) + b.metric("kube_queue_pending_jobs", group) == 2.0
                && !b.body("/q/metrics").contains("kube_queue_quota_used{"));
        // the follower's view is current all the same: its read API places the waiting jobs
        // and its read API answers in JSON (records serialized by Jackson, also in the native binary); as shipped,
        // only to a caller with a token the API server accepts
        assertEquals(401, b.statusWithoutToken("/api/v1/jobs/default/job-4"));
        assertTrue(b.body("/api/v1/jobs/default/job-4").matches("(?s).*\"group\":\"root.defaultQuotaGroup\".*\"position\":[12].*"),
                b.body("/api/v1/jobs/default/job-4"));

        // hand-over 1: jobs finish while the leader shuts down (SIGTERM: it releases the Lease on the way out)
        List<String> running = admitted();
        cluster.complete(running.get(0));
        int exit = a.stop();
        assertTrue(exit == 0 || exit == 143, "a SIGTERM ends the JVM by itself (143), not by force; log: " + a.logFile());
        cluster.complete(running.get(1));
        await().atMost(Duration.ofSeconds(20)).until(b::leads);
        await().atMost(Duration.ofSeconds(20)).until(() -> admitted().size() == 6);

        // hand-over 2: a fresh replica follows; the leader dies (SIGKILL: its Lease must run out first)
        PackagedOperator c = replica("replica-c");
        await().atMost(START).until(c::ready);
        assertFalse(c.leads());
        cluster.submitJob("job-6", "1", Map.of(), null);
        cluster.submitJob("job-7", "1", Map.of(), null);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> admitted().size() == 6);
        b.kill();
        await().atMost(Duration.ofSeconds(30)).until(c::leads);
        // the new leader knows the four running jobs it never admitted: the two new ones wait
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> admitted().size() == 6);
        cluster.complete(running.get(2));
        cluster.complete(running.get(3));
        await().atMost(Duration.ofSeconds(20)).until(() -> admitted().size() == 8);

        assertEquals(null, overAdmitted.get(), "over-admission seen");
        assertTrue(mostInUse.get() <= QUOTA_MILLICORES);
        assertEquals(QUOTA_MILLICORES, mostInUse.get(), "the group was full at some point (the watchdog works)");
        // every job admitted exactly once, by whichever replica led at the time (a replica logs an admission
        // just after the API server took it, so the last lines may trail the cluster by a moment)
        await().atMost(Duration.ofSeconds(5)).until(() -> admissionsInLogs().size() == 8);
        Map<String, List<String>> admittedBy = admissionsInLogs();
        admittedBy.forEach((job, by) -> assertEquals(1, by.size(), () -> job + " admitted by " + by));
        assertEquals(2, c.admissions(), "the last leader admitted the two jobs freed by the finished ones");
    }

    private PackagedOperator replica(String name) {
        PackagedOperator replica = PackagedOperator.start(name, client.getConfiguration().getMasterUrl(), SHORT_LEASE);
        replicas.add(replica);
        return replica;
    }

    /** Names of the jobs without a suspend mark, finished or not. */
    private List<String> admitted() {
        return client.batch().v1().jobs().inNamespace("default").list().getItems().stream()
                .filter(j -> !Cluster.suspended(j)).map(j -> j.getMetadata().getName()).sorted().toList();
    }

    private static boolean finished(Job job) {
        return job.getStatus() != null && job.getStatus().getConditions() != null && job.getStatus().getConditions()
                .stream().anyMatch(c -> "Complete".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** Every 20 ms: the cpu the admitted, unfinished jobs ask for; the most seen, and the first over the quota. */
    private void watchOverAdmission() {
        watchdog = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                List<Job> jobs = client.batch().v1().jobs().inNamespace("default").list().getItems();
                int inUse = jobs.stream().filter(j -> !Cluster.suspended(j) && !finished(j)).mapToInt(j -> 1000).sum();
                mostInUse.accumulateAndGet(inUse, Math::max);
                if (inUse > QUOTA_MILLICORES) {
                    overAdmitted.compareAndSet(null, inUse + " millicores in use: " + jobs.stream()
                            .map(j -> j.getMetadata().getName() + (Cluster.suspended(j) ? "" : " admitted")
                                    + (finished(j) ? " finished" : "")).toList());
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "over-admission-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** Job name → the replicas whose log says they admitted it. */
    private Map<String, List<String>> admissionsInLogs() {
        Map<String, List<String>> by = new TreeMap<>();
        for (PackagedOperator r : replicas) {
            Matcher m = ADMITTED.matcher(r.log());
            while (m.find()) {
                by.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(r.name());
            }
        }
        return by;
    }
}
