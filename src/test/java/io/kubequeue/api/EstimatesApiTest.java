package io.kubequeue.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.FinishedRun;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;

/**
 * Issue 30 through the read API: each pending job's {@code estimate} and {@code unblock}, the dry run's
 * {@code estimate}, and {@code POST /api/v1/what-if}. Quota groups of {@code quota/shared-groups.yaml}: team-a and
 * team-b share root.shared (max 4 cpu); team-b's 4-cpu job runs, team-a's 1-cpu job waits for it. Jobs of kind Job in
 * root.shared ran 5 minutes before (taught to the history), so the estimates are dated. alice may list Jobs in team-a
 * only ({@link ReadApiAccessTest.Reviews}), admin everywhere: alice never reads team-b's job's name.
 */
@QuarkusTest
@WithStrictApiServer(setup = ReadApiAccessTest.Reviews.class)
@TestProfile(ReadApiAccessTest.Authenticated.class)
class EstimatesApiTest {

    private static final Set<String> ESTIMATE_FIELDS = Set.of("state", "eta", "etaLate", "runsForSeconds",
            "assumptions", "computedAt", "ageSeconds");

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @BeforeEach
    void teamBRunsAndTeamAWaitsInASharedGroup() {
        if (scheduler.find("team-a", "a-waits").isEmpty()) {
            for (String team : List.of("team-a", "team-b", "team-c")) {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(team).endMetadata()
                        .build()).createOr(r -> r.update());
            }
            new Cluster(client).apply("/quota/shared-groups.yaml");
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.shared").isPresent());
            Instant now = Instant.now();
            scheduler.learn(new FinishedRun(new JobKey("Job", "team-b", "earlier"), "root.shared",
                    Resources.of(Map.of("cpu", 1000L)), now.minus(Duration.ofMinutes(15)),
                    now.minus(Duration.ofMinutes(10))));
            submit("team-b", "b-runs", "4");
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("team-b", "b-runs").stream()
                    .anyMatch(v -> v.status().state() == JobState.ADMITTED));
            submit("team-a", "a-waits", "1");
        }
        ReadApiAccessTest.tokens.accept("nobody-token", "nobody"); // a user with no rights at all
        scheduler.refreshEstimates();
    }

    private void submit(String namespace, String name, String cpu) {
        client.batch().v1().jobs().inNamespace(namespace).resource(job(name, cpu)).createOr(r -> r.update());
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find(namespace, name).size() == 1);
    }

    private static Job job(String name, String cpu) {
        return new JobBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withSuspend(true)
                .withNewTemplate().withNewSpec().withRestartPolicy("Never").addNewContainer().withName("work")
                .withImage("busybox:stable").withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    private static JsonPath get(String token, String path) {
        return given().auth().oauth2(token).when().get(path).then().statusCode(200).extract().jsonPath();
    }

    @Test
    void aPendingJobHasItsEstimateAndUnblockInExactlyTheAgreedShape() {
        JsonPath job = get("admin-token", "/api/v1/jobs/team-a/a-waits");
        Map<String, Object> estimate = job.getMap("estimate");
        assertEquals(ESTIMATE_FIELDS, estimate.keySet());
        assertEquals("ESTIMATED", estimate.get("state"));
        Instant eta = Instant.parse((String) estimate.get("eta"));
        Instant etaLate = Instant.parse((String) estimate.get("etaLate"));
        assertFalse(etaLate.isBefore(eta), estimate.toString());
        // b-runs was just admitted and such jobs ran 5 minutes: a-waits starts about then
        assertTrue(eta.isAfter(Instant.now().plus(Duration.ofMinutes(3)))
                && eta.isBefore(Instant.now().plus(Duration.ofMinutes(6))), estimate.toString());
        assertEquals(300, ((Number) estimate.get("runsForSeconds")).intValue());
        assertNotNull(Instant.parse((String) estimate.get("computedAt")));
        assertTrue(((Number) estimate.get("ageSeconds")).longValue() >= 0);
        List<String> assumptions = job.getList("estimate.assumptions", String.class);
        assertTrue(assumptions.stream().anyMatch(a -> a.contains("starts once Job team-b/b-runs ends")), assumptions
                .toString());
        List<String> unblock = job.getList("unblock", String.class);
        assertTrue(unblock.contains("raise max cpu of quota group root.shared by 1"), unblock.toString());
        assertTrue(unblock.stream().anyMatch(u -> u.startsWith("Job team-b/b-runs ending (expected ")),
                unblock.toString());
    }

    @Test
    void aCallerWhoMayNotListTeamBNeverReadsItsJobInAssumptionsOrUnblock() {
        for (JsonPath job : List.of(get("alice-token", "/api/v1/jobs/team-a/a-waits"),
                JsonPath.from(get("alice-token", "/api/v1/queues/root.shared/jobs").prettify()).setRootPath("[0]"))) {
            String estimate = String.join("\n", job.getList("estimate.assumptions", String.class));
            String unblock = String.join("\n", job.getList("unblock", String.class));
            for (String text : List.of(estimate, unblock)) {
                assertFalse(text.contains("team-b") || text.contains("b-runs"), text);
            }
            assertTrue(estimate.contains("starts once a job in quota group root.shared ends"), estimate);
            assertTrue(unblock.contains("a job in quota group root.shared ending (expected "), unblock);
            assertEquals("ESTIMATED", job.getString("estimate.state"));
        }
    }

    @Test
    void anAdmittedJobHasNeitherEstimateNorUnblock() {
        given().auth().oauth2("admin-token").when().get("/api/v1/jobs/team-b/b-runs").then().statusCode(200)
                .body("state", equalTo("ADMITTED"))
                .body("$", org.hamcrest.Matchers.hasKey("estimate"))
                .body("estimate", equalTo(null))
                .body("unblock", equalTo(null));
    }

    @Test
    void theDryRunSaysWhenTheJobWouldStartRenderedForTheCaller() {
        String manifest = """
                apiVersion: batch/v1
                kind: Job
                metadata: {name: would-wait, namespace: team-a, annotations: {kube-queue/expected-duration: 42m}}
                spec:
                  suspend: true
                  template:
                    spec:
                      restartPolicy: Never
                      containers: [{name: work, image: busybox:stable, resources: {requests: {cpu: "1"}}}]
                """;
        JsonPath alice = given().auth().oauth2("alice-token").contentType("application/yaml")
                .body(manifest.getBytes(StandardCharsets.UTF_8)).when().post("/api/v1/dry-run").then()
                .statusCode(200).extract().jsonPath();
        assertEquals(ESTIMATE_FIELDS, alice.getMap("estimate").keySet());
        assertEquals("ESTIMATED", alice.getString("estimate.state"));
        assertNotNull(Instant.parse(alice.getString("estimate.eta")));
        assertEquals(42 * 60, alice.getInt("estimate.runsForSeconds"), "the manifest's own expected duration");
        assertFalse(alice.getList("estimate.assumptions", String.class).toString().contains("team-b"),
                alice.prettify());
        assertTrue(scheduler.find("team-a", "would-wait").isEmpty(), "nothing was queued");
    }

    private static final String MAX_MOVED = """
            apiVersion: scheduling.sigs.k8s.io/v1beta1
            kind: ElasticQuotaTree
            metadata: {name: elasticquotatree, namespace: kube-system}
            spec:
              root:
                name: root
                max: {cpu: "16", memory: 64Gi}
                min: {cpu: "0"}
                children:
                  - name: root.shared
                    namespaces: [team-a, team-b]
                    max: {cpu: "5", memory: 16Gi}
                  - name: root.team-c
                    namespaces: [team-c]
                    max: {cpu: "3"}
            """;

    private static JsonPath whatIf(String token, String body, int status) {
        return given().auth().oauth2(token).contentType("application/yaml")
                .body(body.getBytes(StandardCharsets.UTF_8)).when().post("/api/v1/what-if").then()
                .statusCode(status).extract().jsonPath();
    }

    @Test
    void aTreeThatMovesMaxIntoTheSharedGroupStartsItsWaitingJobEarlier() {
        JsonPath answer = whatIf("admin-token", MAX_MOVED, 200);
        assertNotNull(Instant.parse(answer.getString("computedAt")));
        Map<String, Object> job = answer.getMap("jobs.find { it.name == 'a-waits' }");
        assertEquals(Set.of("kind", "namespace", "name", "group", "position", "eta", "state", "groupAfter",
                "positionAfter", "etaAfter", "stateAfter"), job.keySet());
        assertEquals("root.shared", job.get("group"));
        assertEquals("root.shared", job.get("groupAfter"));
        assertEquals("ESTIMATED", job.get("stateAfter"));
        Instant eta = Instant.parse((String) job.get("eta"));
        Instant etaAfter = Instant.parse((String) job.get("etaAfter"));
        assertTrue(etaAfter.isBefore(eta.minus(Duration.ofMinutes(3))), job.toString());
        Map<String, Object> group = answer.getMap("groups.find { it.group == 'root.shared' }");
        assertEquals(Set.of("group", "earlier", "later", "shiftSeconds"), group.keySet());
        assertEquals(1, group.get("earlier"));
        assertEquals(0, group.get("later"));
        assertTrue(((Number) group.get("shiftSeconds")).longValue() < -180, group.toString());
        // nothing was written: the tree in force is as it was
        assertEquals("4", scheduler.tree().node("root.shared").orElseThrow().max().asQuantities().get("cpu"));
    }

    @Test
    void aTreeWithoutTheSharedGroupLeavesItsJobInNoGroup() {
        String removed = MAX_MOVED.replace("""
                  - name: root.shared
                    namespaces: [team-a, team-b]
                    max: {cpu: "5", memory: 16Gi}
            """, "");
        JsonPath answer = whatIf("admin-token", removed, 200);
        Map<String, Object> job = answer.getMap("jobs.find { it.name == 'a-waits' }");
        assertEquals("ESTIMATED", job.get("state"));
        assertEquals("NO_QUOTA_GROUP", job.get("stateAfter"));
        assertNull(job.get("groupAfter"));
        assertNull(job.get("etaAfter"));
        assertEquals(1, answer.getInt("groups.find { it.group == 'root.shared' }.later"));
    }

    @Test
    void theAnswerListsOnlyJobsTheCallerMayListButEveryGroup() {
        submit("team-b", "b-waits", "1");
        scheduler.refreshEstimates();
        JsonPath admin = whatIf("admin-token", MAX_MOVED, 200);
        assertTrue(admin.getList("jobs.name", String.class).contains("b-waits"), admin.prettify());
        JsonPath alice = whatIf("alice-token", MAX_MOVED, 200);
        assertEquals(List.of("a-waits"), alice.getList("jobs.name", String.class));
        assertEquals(admin.getList("groups.group"), alice.getList("groups.group"));
        assertFalse(alice.prettify().contains("team-b"), alice.prettify());
    }

    @Test
    void anInvalidTreeIs400NamingTheProblem() {
        given().auth().oauth2("admin-token").contentType("application/yaml")
                .body(MAX_MOVED.replace("max: {cpu: \"5\", memory: 16Gi}", "max: {cpu: \"5\", memory: 16Gi}\n"
                        + "        min: {cpu: \"6\"}").getBytes(StandardCharsets.UTF_8))
                .when().post("/api/v1/what-if").then().statusCode(400)
                .body("error", containsString("root.shared"))
                .body("error", containsString("min cpu 6 is above max 5"));
        given().auth().oauth2("admin-token").contentType("application/yaml")
                .body("kind: [unclosed".getBytes(StandardCharsets.UTF_8)).when().post("/api/v1/what-if").then()
                .statusCode(400).body("error", containsString("not a Kubernetes manifest"));
        given().auth().oauth2("admin-token").contentType("application/yaml")
                .body(client.getKubernetesSerialization().asYaml(job("x", "1")).getBytes(StandardCharsets.UTF_8))
                .when().post("/api/v1/what-if").then().statusCode(400)
                .body("error", containsString("no quota object"));
        given().auth().oauth2("admin-token").contentType("application/yaml").queryParam("StrictPriority", "yes")
                .body(MAX_MOVED.getBytes(StandardCharsets.UTF_8)).when().post("/api/v1/what-if").then()
                .statusCode(400).body("error", containsString("StrictPriority: invalid value 'yes'; valid values: "
                        + "true, false"));
    }

    /** With no body, only the switches change: the groups stay as they are. */
    @Test
    void theSwitchesAloneMayChange() {
        given().auth().oauth2("admin-token").contentType("application/yaml").queryParam("StrictPriority", "true")
                .body(new byte[0]).when().post("/api/v1/what-if").then().statusCode(200)
                .body("jobs.find { it.name == 'a-waits' }.groupAfter", equalTo("root.shared"))
                .body("jobs.find { it.name == 'a-waits' }.stateAfter", equalTo("ESTIMATED"));
    }

    @Test
    void callersAreRefusedAsTheDryRunRefusesThem() {
        given().contentType("application/yaml").body(MAX_MOVED.getBytes(StandardCharsets.UTF_8))
                .when().post("/api/v1/what-if").then().statusCode(401);
        given().contentType("application/yaml").body(MAX_MOVED.getBytes(StandardCharsets.UTF_8))
                .when().post("/api/v1/dry-run").then().statusCode(401);
        given().auth().oauth2("expired-token").contentType("application/yaml")
                .body(MAX_MOVED.getBytes(StandardCharsets.UTF_8)).when().post("/api/v1/what-if").then()
                .statusCode(401);
        given().auth().oauth2("nobody-token").contentType("application/yaml")
                .body(MAX_MOVED.getBytes(StandardCharsets.UTF_8)).when().post("/api/v1/what-if").then()
                .statusCode(403).body("error", containsString("nobody"));
    }
}
