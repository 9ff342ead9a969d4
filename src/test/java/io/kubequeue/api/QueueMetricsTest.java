package io.kubequeue.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.ManagementPort;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.testing.Cluster;
import io.kubequeue.quota.elastic.ElasticQuotaTree;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.testing.WithStrictApiServer;

/**
 * Metric values after a scripted sequence on the seed's tree (4 cpu): submit three 2-cpu Jobs, two are admitted,
 * one finishes and the third is admitted; then the tree is deleted and the group's gauges go with it.
 */
@QuarkusTest
@WithStrictApiServer
class QueueMetricsTest {

    private static final String GROUP = "quota_group=\"root.defaultQuotaGroup\"";

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    /** The management port's Prometheus text, as a scraper reads it. */
    static String metrics() {
        return ManagementPort.given().when().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    private static boolean has(String line) {
        return metrics().lines().anyMatch(l -> l.equals(line));
    }

    /** docs/grafana/kube-queue-dashboard.json and the chart's alerts must only ask for series /q/metrics serves. */
    private static void everyMetricTheDashboardQueriesIsServed(String served) {
        try {
            com.fasterxml.jackson.databind.JsonNode dashboard = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(java.nio.file.Path.of("docs/grafana/kube-queue-dashboard.json").toFile());
            // and the chart's PrometheusRule: its alerts must not watch a series that never exists
            String alerts = java.nio.file.Files.readString(
                    java.nio.file.Path.of("helm/kube-queue/templates/prometheusrule.yaml"));
            java.util.regex.Matcher names = java.util.regex.Pattern.compile("kube_queue_[a-z_]+").matcher(
                    dashboard.findValuesAsText("expr").toString() + dashboard.findValuesAsText("query") + alerts);
            int seen = 0;
            while (names.find()) {
                seen++;
                String name = names.group();
                assertTrue(served.lines().anyMatch(l -> l.startsWith(name + "{") || l.startsWith(name + " ")
                                || l.startsWith("# TYPE " + name + " histogram")),
                        "the dashboard or an alert queries " + name + ", which /q/metrics does not serve");
            }
            assertTrue(seen >= 20, "the dashboard's queries and the alerts were read");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void submitThreeAdmitTwoFinishOneThenDeleteTheGroup() {
        new Cluster(client).apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.defaultQuotaGroup").isPresent());
        new Cluster(client).apply("/jobs/batch-2cpu.yaml");

        // the gauges follow the decisions, the admission counters the API server's answers: wait for both
        await().atMost(Duration.ofSeconds(10)).until(() -> has("kube_queue_admitted_jobs{" + GROUP + "} 2.0")
                && has("kube_queue_pending_jobs{" + GROUP + ",state=\"backoff\"} 1.0")
                && has("kube_queue_admissions_total{" + GROUP + "} 2.0"));
        String m = metrics();
        assertTrue(m.contains("kube_queue_quota_used{" + GROUP + ",resource=\"cpu\"} 4.0"), m);
        assertTrue(m.contains("kube_queue_quota_max{" + GROUP + ",resource=\"memory\"} 4.294967296E9"), m);
        assertTrue(m.contains("kube_queue_quota_max{quota_group=\"root\",resource=\"cpu\"} 4.0"), m);
        assertTrue(m.contains("kube_queue_admissions_total{" + GROUP + "} 2.0"), m);
        assertTrue(m.contains("kube_queue_schedule_attempts_total{result=\"admitted\"} 2.0"), m);
        assertTrue(m.contains("kube_queue_admission_wait_seconds_count{" + GROUP + "} 2"), m);
        assertTrue(m.contains("kube_queue_admission_wait_seconds_bucket{" + GROUP + ",le=\"0.01\"}"),
                "the wait's buckets start at 10 ms: " + m);
        assertTrue(m.contains("kube_queue_admission_wait_seconds_bucket{" + GROUP + ",le=\"86400.0\"} 2"), m);
        assertTrue(m.contains("kube_queue_admission_patches_total{outcome=\"applied\"} 2.0"), m);
        assertTrue(m.contains("kube_queue_admission_patch_seconds_count 2"), m);
        assertTrue(m.contains("kube_queue_quota_groups 2.0"), "root and root.defaultQuotaGroup: " + m);
        assertTrue(m.lines().anyMatch(l -> l.startsWith("kube_queue_build_info{version=\"") && l.endsWith("} 1.0")), m);
        assertTrue(m.contains("kube_queue_scheduling_cycle_seconds_count"), m);
        assertTrue(m.contains("kube_queue_admissions_waiting_to_be_sent 0.0"), m);
        await().atMost(Duration.ofSeconds(5)).until(() -> has("kube_queue_admissions_in_flight 0.0"));
        everyMetricTheDashboardQueriesIsServed(m);

        // the estimates replay the waiting third job (issue 30); with the run times said, it is estimated
        client.batch().v1().jobs().inNamespace("default").list().getItems().forEach(j -> client.batch().v1().jobs()
                .inNamespace("default").withName(j.getMetadata().getName()).edit(e -> {
                    java.util.Map<String, String> said = e.getMetadata().getAnnotations() == null
                            ? new java.util.HashMap<>() : new java.util.HashMap<>(e.getMetadata().getAnnotations());
                    said.put("kube-queue/expected-duration", "30s");
                    e.getMetadata().setAnnotations(said);
                    return e;
                }));
        String waiting = client.batch().v1().jobs().inNamespace("default").list().getItems().stream()
                .filter(j -> Boolean.TRUE.equals(j.getSpec().getSuspend())).findFirst().orElseThrow()
                .getMetadata().getName();
        await().atMost(Duration.ofSeconds(20)).until(() -> scheduler.estimate(
                        new io.kubequeue.scheduler.model.JobKey("Job", "default", waiting))
                .filter(e -> e.state() == io.kubequeue.scheduler.model.Estimate.State.ESTIMATED).isPresent());
        assertTrue(metrics().lines().anyMatch(l ->
                l.startsWith("kube_queue_estimate_refresh_seconds_count ") && !l.endsWith(" 0.0")), "timed");
        assertTrue(metrics().lines().anyMatch(l -> l.startsWith("kube_queue_estimate_refresh_cpu_seconds_total ")
                && !l.endsWith(" 0.0")), "its CPU counted");
        assertTrue(has("kube_queue_estimate_error_samples 0.0"), "no admission measured yet");
        Job first = client.batch().v1().jobs().inNamespace("default").list().getItems().stream()
                .filter(j -> Boolean.FALSE.equals(j.getSpec().getSuspend())).findFirst().orElseThrow();
        first.setStatus(new JobStatusBuilder().withConditions(new JobConditionBuilder().withType("Complete")
                .withStatus("True").build()).build());
        client.batch().v1().jobs().inNamespace("default").resource(first).updateStatus();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            // on a timeout the message shows the group's series as they were, so a failure says which one was off
            String now = metrics();
            assertTrue(now.lines().anyMatch(l -> l.equals("kube_queue_admissions_total{" + GROUP + "} 3.0"))
                    && now.lines().anyMatch(l -> l.equals("kube_queue_admitted_jobs{" + GROUP + "} 2.0"))
                    && now.lines().anyMatch(l -> l.equals("kube_queue_pending_jobs{" + GROUP + ",state=\"backoff\"} 0.0")),
                    now.lines().filter(l -> l.contains(GROUP) && !l.contains("quota_m")).toList().toString());
        });

        // its first estimate is scored against its admission by the next refresh (at most the interval later)
        await().atMost(Duration.ofSeconds(20)).until(() -> has("kube_queue_estimate_error_samples 1.0"));
        assertTrue(metrics().lines().anyMatch(l -> l.startsWith("kube_queue_estimate_error_ratio{quantile=\"0.5\"} ")
                && !l.endsWith("NaN")), "a figure once an admission was measured");

        client.batch().v1().jobs().inAnyNamespace().delete();
        client.resources(ElasticQuotaTree.class).inAnyNamespace().delete();
        await().atMost(Duration.ofSeconds(15)).until(() -> !metrics().contains("kube_queue_quota_max{" + GROUP));
        m = metrics();
        assertTrue(m.contains("kube_queue_quota_groups 0.0"), "no quota groups in force: " + m);
        assertFalse(m.contains("kube_queue_pending_jobs{" + GROUP), m);
        assertFalse(m.contains("kube_queue_admitted_jobs{" + GROUP), m);
    }
}
