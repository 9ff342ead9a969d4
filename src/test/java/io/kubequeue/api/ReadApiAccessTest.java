package io.kubequeue.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.utils.ResponseProvider;
import io.kubequeue.testing.Cluster;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.testing.StrictApiServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 14, item 2: the read API behind the API server's authentication and authorization. The strict API server
 * answers TokenReviews as a real one does ({@link StrictApiServer.Tokens}: any token it was not told of is
 * {@code authenticated: false} with {@code error: "invalid bearer token"}), and SubjectAccessReviews as an
 * RBAC-enabled one would for three users: alice may list batch Jobs in {@code team-a} only, admin may list them
 * everywhere, and flaky's reviews cannot be evaluated. Two teams of 4 cpu each ({@code quota/two-teams.yaml}), each
 * with one admitted and one waiting Job.
 */
@QuarkusTest
@WithStrictApiServer(setup = ReadApiAccessTest.Reviews.class)
@TestProfile(ReadApiAccessTest.Authenticated.class)
class ReadApiAccessTest {

    /** The read API as shipped: tokens and access reviews on. */
    public static class Authenticated implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.read-api.authentication", "kubernetes");
        }
    }

    static StrictApiServer.Tokens tokens;
    static final AtomicInteger ACCESS_REVIEWS = new AtomicInteger();

    /** The API server's answers: who a token is, and what each user may list. */
    public static final class Reviews implements java.util.function.Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            tokens = StrictApiServer.tokens(server).accept("alice-token", "alice").accept("admin-token", "admin")
                    .accept("flaky-token", "flaky").expired("expired-token").fail("outage-token", 500)
                    .unanswered("no-verdict-token");
            server.expect().post().withPath("/apis/authorization.k8s.io/v1/subjectaccessreviews")
                    .andReply(new Answer(ACCESS_REVIEWS, body -> {
                        SubjectAccessReview review = Serialization.unmarshal(body, SubjectAccessReview.class);
                        ResourceAttributes asked = review.getSpec().getResourceAttributes();
                        boolean listBatchJobs = "list".equals(asked.getVerb()) && "batch".equals(asked.getGroup())
                                && "jobs".equals(asked.getResource());
                        if ("flaky".equals(review.getSpec().getUser())) {
                            review.setStatus(new SubjectAccessReviewStatusBuilder().withAllowed(false)
                                    .withEvaluationError("webhook authorizer timed out").build());
                            return review;
                        }
                        boolean allowed = listBatchJobs && switch (review.getSpec().getUser()) {
                            case "admin" -> asked.getNamespace() == null || asked.getNamespace().isEmpty();
                            case "alice" -> "team-a".equals(asked.getNamespace());
                            default -> false;
                        };
                        review.setStatus(new SubjectAccessReviewStatusBuilder().withAllowed(allowed).build());
                        return review;
                    })).always();
        }
    }

    /**
     * A reply computed from the request's body: 201 with the review the function returns. The body can be read once,
     * so it is read once per request and kept.
     */
    private record Answer(AtomicInteger asked, java.util.function.Function<String, Object> review,
                          Map<RecordedRequest, String> bodies) implements ResponseProvider<Object> {
        Answer(AtomicInteger asked, java.util.function.Function<String, Object> review) {
            this(asked, review, java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>()));
        }

        private Object answer(RecordedRequest request) {
            return review.apply(bodies.computeIfAbsent(request, RecordedRequest::getUtf8Body));
        }

        @Override
        public Object getBody(RecordedRequest request) {
            asked.incrementAndGet();
            return Serialization.asJson(answer(request));
        }

        @Override
        public int getStatusCode(RecordedRequest request) {
            return 201;
        }

        @Override
        public Headers getHeaders() {
            return Headers.builder().add("Content-Type", "application/json").build();
        }

        @Override
        public void setHeaders(Headers headers) {
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @BeforeEach
    void twoTeamsEachWithOneAdmittedAndOneWaiting() {
        if (scheduler.find("team-b", "b-waits").isEmpty()) {
            for (String team : List.of("team-a", "team-b")) {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(team).endMetadata()
                        .build()).createOr(r -> r.update());
            }
            new Cluster(client).apply("/quota/two-teams.yaml");
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.team-b").isPresent());
            for (String name : List.of("a-runs", "a-waits", "b-runs", "b-waits")) {
                client.batch().v1().jobs().inNamespace("team-" + name.charAt(0)).resource(job(name)).create();
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> scheduler.find("team-" + name.charAt(0), name).size() == 1);
            }
        }
    }

    private static io.fabric8.kubernetes.api.model.batch.v1.Job job(String name) {
        return new JobBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withSuspend(true)
                .withNewTemplate().withNewSpec().withRestartPolicy("Never").addNewContainer().withName("work")
                .withImage("busybox:stable").withNewResources().addToRequests("cpu", new Quantity("3")).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    @Test
    void withoutATokenTheAnswerIs401AndSaysHowToSendOne() {
        given().when().get("/api/v1/queues").then().statusCode(401)
                .header("WWW-Authenticate", "Bearer")
                .body("error", containsString("Authorization: Bearer"));
        given().header("Authorization", "Basic YWxpY2U6cHc=").when().get("/api/v1/jobs/team-a/a-waits").then()
                .statusCode(401);
    }

    /**
     * Issue 25, sequence 7: a real API server answers an unknown, malformed or expired token with
     * {@code authenticated: false} and {@code status.error} set; that is a "no" (401), not "try again" (503).
     */
    @Test
    void aTokenTheApiServerRejectsIs401WhateverItsErrorSays() {
        for (String token : List.of("stolen-token", "not.a.jwt", "expired-token")) {
            given().auth().oauth2(token).when().get("/api/v1/queues").then().statusCode(401)
                    .header("WWW-Authenticate", "Bearer")
                    .body("error", containsString("TokenReview"));
        }
    }

    @Test
    void aUserSeesOnlyTheGroupsAndJobsOfNamespacesTheyMayList() {
        given().auth().oauth2("alice-token").when().get("/api/v1/queues").then().statusCode(200)
                .body("name", hasItem("root.team-a"))
                .body("name", hasItem("root")) // the ancestor of a group she sees
                .body("name", not(hasItem("root.team-b")));
        given().auth().oauth2("alice-token").when().get("/api/v1/queues/root.team-a/jobs").then().statusCode(200)
                .body("name", equalTo(List.of("a-waits")));
        // another team's group is as if it did not exist; another namespace's job is refused, with the right named
        given().auth().oauth2("alice-token").when().get("/api/v1/queues/root.team-b/jobs").then().statusCode(404);
        given().auth().oauth2("alice-token").when().get("/api/v1/jobs/team-b/b-waits").then().statusCode(403)
                .body("error", equalTo("user alice may not list any kind of job kube-queue manages in namespace team-b"));
        given().auth().oauth2("alice-token").when().get("/api/v1/jobs/team-b/b-waits?kind=Job").then().statusCode(403)
                .body("error", equalTo("user alice may not list jobs.batch in namespace team-b"));
        given().auth().oauth2("alice-token").when().get("/api/v1/jobs/team-a/a-waits").then().statusCode(200)
                .body("group", equalTo("root.team-a"));
        // a dry run answers with the group's usage: only for a namespace she may list
        given().auth().oauth2("alice-token").contentType("application/yaml").body(Serialization.asYaml(
                new JobBuilder(job("probe")).editMetadata().withNamespace("team-b").endMetadata().build()).getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .when().post("/api/v1/dry-run").then().statusCode(403);
        given().auth().oauth2("alice-token").contentType("application/yaml").body(Serialization.asYaml(
                new JobBuilder(job("probe")).editMetadata().withNamespace("team-a").endMetadata().build()).getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .when().post("/api/v1/dry-run").then().statusCode(200).body("group", equalTo("root.team-a"));
        // her own namespace, labelled into team-b's group: the label is not honoured (issue 25), so no group, and
        // nothing of team-b's numbers
        given().auth().oauth2("alice-token").contentType("application/yaml").body(Serialization.asYaml(
                new JobBuilder(job("probe")).editMetadata().withNamespace("team-a")
                        .addToLabels("quota.scheduling.alibabacloud.com/name", "root.team-b").endMetadata().build())
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .when().post("/api/v1/dry-run").then().statusCode(200)
                .body("group", equalTo(null))
                .body("reason", containsString("quota group root.team-b (label quota.scheduling.alibabacloud.com/name)"
                        + " is not open to namespace team-a"));
    }

    @Test
    void aUserAllowedClusterWideSeesEverything() {
        given().auth().oauth2("admin-token").when().get("/api/v1/queues").then().statusCode(200)
                .body("name", hasItem("root.team-a")).body("name", hasItem("root.team-b"));
        given().auth().oauth2("admin-token").when().get("/api/v1/queues/root.team-b/jobs").then().statusCode(200)
                .body("name", equalTo(List.of("b-waits")));
        given().auth().oauth2("admin-token").when().get("/api/v1/jobs/team-b/b-runs").then().statusCode(200)
                .body("state", equalTo("ADMITTED"));
    }

    /** The API server's service proxy drops Authorization: kubectl queue sends the token in a header of its own. */
    @Test
    void theTokenMayComeInTheHeaderThatPassesTheServiceProxy() {
        given().header(ReadApiAccess.PROXIED_AUTHORIZATION, "Bearer alice-token").when()
                .get("/api/v1/queues/root.team-a/jobs").then().statusCode(200).body("name", equalTo(List.of("a-waits")));
    }

    @Test
    void answersAreReusedSoAPageCostsOneReviewPerTokenNamespaceAndKind() {
        given().header("Authorization", "Bearer admin-token").when().get("/api/v1/queues").then().statusCode(200);
        int reviewed = tokens.reviews();
        int access = ACCESS_REVIEWS.get();
        for (int i = 0; i < 5; i++) {
            given().auth().oauth2("admin-token").when().get("/api/v1/queues").then().statusCode(200);
            given().auth().oauth2("admin-token").when().get("/api/v1/queues/root.team-a/jobs").then().statusCode(200);
        }
        assertEquals(reviewed, tokens.reviews(), "the token's review is remembered");
        assertEquals(access, ACCESS_REVIEWS.get(), "the access reviews are remembered");
    }

    /** An authorizer that fails to evaluate is not a "no": 503, and nothing is kept for the next call. */
    @Test
    void anAccessReviewThatCouldNotBeEvaluatedGives503NotADenial() {
        int asked = ACCESS_REVIEWS.get();
        given().auth().oauth2("flaky-token").when().get("/api/v1/jobs/team-a/a-waits").then().statusCode(503);
        given().auth().oauth2("flaky-token").when().get("/api/v1/jobs/team-a/a-waits").then().statusCode(503);
        assertEquals(asked + 2, ACCESS_REVIEWS.get(), "asked again: the failure was not cached");
    }

    @Test
    void anApiServerThatCannotReviewTheTokenGives503NotAnOpenDoor() {
        given().auth().oauth2("outage-token").when().get("/api/v1/queues").then().statusCode(503);
        given().auth().oauth2("no-verdict-token").when().get("/api/v1/queues").then().statusCode(503);
    }
}
