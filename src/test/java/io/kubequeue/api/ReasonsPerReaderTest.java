package io.kubequeue.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 25, sequence 6: the read API filters jobs by the caller's {@code list} rights, but the reasons (and the
 * {@code Pending} events in the tenant's own namespace) named other tenants' jobs: the head of a blocking queue in a
 * group two teams share, and a job of unknown use that holds a shared ancestor. Every reason now names only jobs the
 * reader may see; another tenant's job is "a job in quota group G". alice may list Jobs in {@code team-a} only
 * ({@link ReadApiAccessTest.Reviews}); admin everywhere.
 */
@QuarkusTest
@WithStrictApiServer(setup = ReadApiAccessTest.Reviews.class)
@TestProfile(ReasonsPerReaderTest.BlockingQueueWithAuthentication.class)
class ReasonsPerReaderTest {

    /** Tokens and access reviews on, and the blocking queue (only a group's head is tried). */
    public static class BlockingQueueWithAuthentication implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.read-api.authentication", "kubernetes", "StrictPriority", "true");
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @BeforeEach
    void sharedGroupWithAnotherTeamsHeadAndARootHeldForMemory() {
        if (!scheduler.find("team-a", "a-labelled").isEmpty()) {
            return;
        }
        for (String team : List.of("team-a", "team-b", "team-c")) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(team).endMetadata()
                    .build()).createOr(r -> r.update());
        }
        if (scheduler.tree().node("root.a-labelled").isEmpty()) {
            new Cluster(client).apply("/quota/shared-groups.yaml");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.a-labelled").isPresent());
        // root.shared: team-b runs 1 cpu, and its 4-cpu job heads the queue; team-a's job waits behind it
        submit("team-b", "b-runs", "1", null);
        await().atMost(Duration.ofSeconds(10)).until(() -> admitted("team-b", "b-runs"));
        // a higher priority makes it the head whatever the creation times (the mock's have seconds only)
        client.batch().v1().jobs().inNamespace("team-b").resource(new JobBuilder(job("b-head", "4", null)).editSpec()
                .editTemplate().editSpec().withPriority(100).endSpec().endTemplate().endSpec().build())
                .createOr(r -> r.update());
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("team-b", "b-head").size() == 1);
        submit("team-a", "a-behind", "1", null);
        // team-c: a job running with kube-queue's record whose request cannot be read: its memory use is unbounded
        // below root, since team-c limits cpu only
        if (client.batch().v1().jobs().inNamespace("team-c").withName("c-broken").get() == null) {
            TrustedRecords.createSigned(client, new JobBuilder(job("c-broken", "1", null))
                    .editMetadata().withNamespace("team-c").addToAnnotations("kube-queue/quota-group", "root.team-c")
                    .addToAnnotations("kube-queue/admitted-at", "2026-01-01T00:00:00.000Z").endMetadata()
                    .editSpec().withSuspend(false).editTemplate().editSpec().editFirstContainer().editResources()
                    .addToRequests("memory", new Quantity("lots")).endResources().endContainer().endSpec().endTemplate()
                    .endSpec().build());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("team-c", "c-broken").size() == 1);
        // alice's job in a group of its own (by label) asks for memory: root is held for memory
        Job labelled = new JobBuilder(job("a-labelled", "1", "root.a-labelled")).editSpec().editTemplate().editSpec()
                .editFirstContainer().editResources().addToRequests("memory", new Quantity("1Gi")).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
        client.batch().v1().jobs().inNamespace("team-a").resource(labelled).createOr(r -> r.update());
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("team-a", "a-labelled").size() == 1
                && scheduler.find("team-a", "a-behind").size() == 1);
    }

    private boolean admitted(String namespace, String name) {
        return scheduler.find(namespace, name).stream().anyMatch(v -> v.status().state() == JobState.ADMITTED);
    }

    private void submit(String namespace, String name, String cpu, String group) {
        client.batch().v1().jobs().inNamespace(namespace).resource(job(name, cpu, group)).createOr(r -> r.update());
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find(namespace, name).size() == 1);
    }

    private static Job job(String name, String cpu, String group) {
        JobBuilder job = new JobBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withSuspend(true)
                .withNewTemplate().withNewSpec().withRestartPolicy("Never").addNewContainer().withName("work")
                .withImage("busybox:stable").withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources()
                .endContainer().endSpec().endTemplate().endSpec();
        if (group != null) {
            job.editMetadata().addToLabels("quota.scheduling.alibabacloud.com/name", group).endMetadata();
        }
        return job.build();
    }

    @Test
    void theHeadOfASharedBlockingQueueIsNamedOnlyToThoseWhoMaySeeIt() {
        given().auth().oauth2("alice-token").when().get("/api/v1/jobs/team-a/a-behind").then().statusCode(200)
                .body("reason", allOf(containsString("waits behind the head of quota group root.shared, a job in quota"
                        + " group root.shared"), not(containsString("team-b")), not(containsString("b-head"))));
        given().auth().oauth2("alice-token").when().get("/api/v1/queues/root.shared/jobs").then().statusCode(200)
                .body("name", equalTo(List.of("a-behind")))
                .body("[0].reason", not(containsString("b-head")));
        given().auth().oauth2("admin-token").when().get("/api/v1/jobs/team-a/a-behind").then().statusCode(200)
                .body("reason", containsString("waits behind the head of quota group root.shared, Job team-b/b-head"));
    }

    @Test
    void aJobOfUnknownUseHoldingASharedAncestorIsNamedOnlyToThoseWhoMaySeeIt() {
        given().auth().oauth2("alice-token").when().get("/api/v1/jobs/team-a/a-labelled").then().statusCode(200)
                .body("reason", allOf(containsString("memory: quota group root admits no more memory now: admitted job"
                        + " a job in quota group root.team-c"), not(containsString("c-broken"))));
        given().auth().oauth2("admin-token").when().get("/api/v1/jobs/team-a/a-labelled").then().statusCode(200)
                .body("reason", containsString("admitted job Job team-c/c-broken of quota group root.team-c"));
    }

    @Test
    void thePendingEventInTheTenantsNamespaceNamesNoOtherTenantsJob() {
        await().atMost(Duration.ofSeconds(10)).until(() -> pendingEvent("a-labelled") != null);
        String message = pendingEvent("a-labelled");
        assertTrue(message.contains("a job in quota group root.team-c"), message);
        assertFalse(message.contains("c-broken"), message);
    }

    private String pendingEvent(String job) {
        return client.events().v1().events().inNamespace("team-a").list().getItems().stream()
                .filter(e -> "Pending".equals(e.getReason()) && job.equals(e.getRegarding().getName()))
                .map(io.fabric8.kubernetes.api.model.events.v1.Event::getNote).findFirst().orElse(null);
    }
}
