package io.kubequeue.api;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 29, item 4: every series exists, at 0, before the first event it counts; a quota group's as soon as the tree
 * is read. Before, a counter appeared with its first event, so {@code rate()} missed that event and a p95 was NaN
 * after every restart and for every new group.
 */
@QuarkusTest
@WithStrictApiServer
class MetricsFromTheStartTest {

    private static final String GROUP = "quota_group=\"root.defaultQuotaGroup\"";

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    private static String metrics() {
        return QueueMetricsTest.metrics();
    }

    @Test
    void everyCounterOfAGroupIsThereAtZeroBeforeAnyJob() {
        String before = metrics();
        for (String line : List.of(
                "kube_queue_schedule_attempts_total{result=\"admitted\"} 0.0",
                "kube_queue_schedule_attempts_total{result=\"held\"} 0.0",
                "kube_queue_schedule_attempts_total{result=\"unschedulable\"} 0.0",
                "kube_queue_admission_patches_total{outcome=\"applied\"} 0.0",
                "kube_queue_admission_patches_total{outcome=\"refused\"} 0.0",
                "kube_queue_admission_patches_total{outcome=\"unconfirmed\"} 0.0",
                "kube_queue_admission_patch_seconds_count 0.0")) {
            assertTrue(before.lines().anyMatch(line::equals), "not served before any job: " + line + " in "
                    + before.lines().filter(l -> l.startsWith(line.substring(0, 20))).toList());
        }

        new Cluster(client).apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.defaultQuotaGroup").isPresent());
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String m = metrics();
            for (String line : List.of(
                    "kube_queue_admissions_total{" + GROUP + "} 0.0",
                    "kube_queue_admission_wait_seconds_count{" + GROUP + "} 0.0",
                    "kube_queue_admission_wait_seconds_bucket{" + GROUP + ",le=\"86400.0\"} 0.0",
                    "kube_queue_reclaims_total{" + GROUP + "} 0.0",
                    "kube_queue_reclaim_victims_count{" + GROUP + "} 0.0",
                    "kube_queue_evictions_total{" + GROUP + ",reason=\"reclaim\"} 0.0",
                    "kube_queue_evictions_total{" + GROUP + ",reason=\"timeout\"} 0.0",
                    "kube_queue_admissions_total{quota_group=\"root\"} 0.0")) {
                assertTrue(m.lines().anyMatch(line::equals), "not served once the tree is read: " + line);
            }
        });
    }

    @Test
    void readApiAnswersAreCountedByRouteAndCode() {
        String before = metrics();
        assertTrue(before.contains("kube_queue_read_api_answers_total{code=\"403\",route=\"job\"} 0.0"), before);
        io.restassured.RestAssured.given().get("/api/v1/queues").then().statusCode(200);
        io.restassured.RestAssured.given().get("/api/v1/jobs/team-a/nobody").then().statusCode(404);
        io.restassured.RestAssured.given().get("/api/v1/jobs/team-a/nobody").then().statusCode(404);
        String after = metrics();
        assertTrue(after.contains("kube_queue_read_api_answers_total{code=\"404\",route=\"job\"} 2.0"), after);
        assertTrue(after.lines().anyMatch(l -> l.startsWith("kube_queue_read_api_answers_total{code=\"200\",route=\"queues\"}")
                && !l.endsWith(" 0.0")), after);
    }

    @Test
    void aPathIsCountedByItsRouteNotItsNames() {
        assertEquals("queues", ReadApiAnswers.route("/api/v1/queues"));
        assertEquals("group_jobs", ReadApiAnswers.route("/api/v1/queues/root.team-a/jobs"));
        assertEquals("job", ReadApiAnswers.route("/api/v1/jobs/team-a/train-1"));
        assertEquals("dry_run", ReadApiAnswers.route("/api/v1/dry-run"));
        assertEquals("other", ReadApiAnswers.route("/api/v1/jobs/team-a/train-1/extra"));
        assertEquals("other", ReadApiAnswers.route("/api/v1"));
    }

    @Test
    void everyServedSeriesHasHelpAndTheOperatorSdksAreOurs() {
        String m = metrics();
        List<String> noHelp = m.lines().filter(l -> l.startsWith("# HELP ") && l.split(" ", 4).length == 4
                        && l.split(" ", 4)[3].isBlank())
                .map(l -> l.split(" ")[2])
                .filter(name -> name.startsWith("kube_queue_"))
                .toList();
        assertEquals(List.of(), noHelp, "series of ours with no help");
        List<String> sdkUnprefixed = m.lines().filter(l -> !l.startsWith("#"))
                .filter(l -> l.contains("controller_name=") && !l.startsWith("kube_queue_"))
                .toList();
        assertEquals(List.of(), sdkUnprefixed, "the Java Operator SDK's series carry kube-queue's prefix");
        assertTrue(m.contains("kube_queue_operator_sdk_reconciliations_queue{controller_name=\"job\"}"), m);
        assertTrue(m.lines().anyMatch(l -> l.startsWith("# HELP kube_queue_operator_sdk_custom_resources ")
                && l.length() > "# HELP kube_queue_operator_sdk_custom_resources ".length() + 10), m);
    }
}
