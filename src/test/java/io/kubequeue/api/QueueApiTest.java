package io.kubequeue.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.util.List;


import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.kubequeue.testing.SeedTreeFixture;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.testing.WithStrictApiServer;

/** The read API on the seed's tree (4 cpu) with three batch Jobs of 2 cpu: two admitted, one waiting. */
@QuarkusTest
@WithStrictApiServer
class QueueApiTest extends SeedTreeFixture {

    private static final String GROUP = SEED_GROUP;

    /** Two admitted, one waiting; returns the waiting one's name. */
    private String twoAdmittedOneWaiting() {
        cluster.apply("/jobs/batch-2cpu.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.usage(GROUP).get("cpu") == 4000
                && scheduler.pending(GROUP).size() == 1);
        return scheduler.pending(GROUP).get(0).status().key().name();
    }

    @Test
    void queuesShowLimitsUsageCountsAndPolicy() {
        twoAdmittedOneWaiting();
        given().when().get("/api/v1/queues").then().statusCode(200)
                .body("find { it.name == '" + GROUP + "' }.max.cpu", equalTo("4"))
                .body("find { it.name == '" + GROUP + "' }.max.memory", equalTo("4Gi"))
                .body("find { it.name == '" + GROUP + "' }.used.cpu", equalTo("4"))
                .body("find { it.name == '" + GROUP + "' }.used.memory", equalTo("512Mi"))
                .body("find { it.name == '" + GROUP + "' }.pending", equalTo(1))
                .body("find { it.name == '" + GROUP + "' }.admitted", equalTo(2))
                .body("find { it.name == '" + GROUP + "' }.parent", equalTo("root"))
                .body("find { it.name == '" + GROUP + "' }.policy", equalTo("DEFAULT"))
                .body("find { it.name == 'root' }.used.cpu", equalTo("4"));
    }

    @Test
    void aGroupsJobsComeInOrderWithTheReasonInNumbers() {
        String waiting = twoAdmittedOneWaiting();
        given().when().get("/api/v1/queues/" + GROUP + "/jobs").then().statusCode(200)
                .body("size()", equalTo(1))
                .body("[0].name", equalTo(waiting))
                .body("[0].kind", equalTo("Job"))
                .body("[0].position", equalTo(1))
                .body("[0].request.cpu", equalTo("2"))
                .body("[0].reason", startsWith("cpu: request 2, in use 4 of max 4 in quota group " + GROUP + ";"));
        given().when().get("/api/v1/queues/no-such-group/jobs").then().statusCode(404);
    }

    @Test
    void oneJobByNamespaceAndName() {
        String waiting = twoAdmittedOneWaiting();
        given().when().get("/api/v1/jobs/default/" + waiting).then().statusCode(200)
                .body("group", equalTo(GROUP))
                .body("position", equalTo(1))
                .body("state", equalTo("BACKOFF"))
                .body("reason", containsString("in use 4 of max 4"));
        String admitted = client.batch().v1().jobs().inNamespace("default").list().getItems().stream()
                .map(Job::getMetadata).map(m -> m.getName()).filter(n -> !n.equals(waiting)).findFirst().orElseThrow();
        given().when().get("/api/v1/jobs/default/" + admitted).then().statusCode(200)
                .body("state", equalTo("ADMITTED"))
                .body("reason", equalTo("admitted into quota group " + GROUP));
        given().when().get("/api/v1/jobs/default/never-submitted").then().statusCode(404);
        given().when().get("/api/v1/jobs/default/" + waiting + "?kind=TFJob").then().statusCode(404);
    }

    /**
     * Issue 5, item 2: one Pending with the numbers, not one per retry. Issue 27: Queued only on the job still pending
     * after the cycle that first saw it; the two that cycle admitted get Admitted and no Queued.
     */
    @Test
    void theJobThatWaitsIsQueuedAndGetsOnePendingEventWithTheNumbers_theAdmittedOnesAreNotQueued() {
        String waiting = twoAdmittedOneWaiting();
        List<String> admitted = java.util.stream.Stream.of("batch-a", "batch-b", "batch-c")
                .filter(name -> !name.equals(waiting)).toList();
        await().atMost(Duration.ofSeconds(10)).until(() -> events(waiting, "Queued").size() == 1
                && events(waiting, "Pending").size() == 1
                && admitted.stream().allMatch(name -> events(name, "Admitted").size() == 1));
        for (String name : admitted) {
            org.junit.jupiter.api.Assertions.assertEquals(List.of("Admitted"),
                    cluster.events("default", name).stream().map(e -> e.getReason()).toList(), name);
        }
        org.junit.jupiter.api.Assertions.assertEquals("queued in quota group " + GROUP,
                events(waiting, "Queued").get(0).getNote());
        org.junit.jupiter.api.Assertions.assertEquals(
                "cpu: request 2, in use 4 of max 4 in quota group " + GROUP + "; waits in quota group " + GROUP
                        + "; to admit it now: raise max cpu of quota group " + GROUP + " by 2; raise max cpu of quota"
                        + " group root by 2", // issue 30: the unblock hint; no job is named, none ran before
                events(waiting, "Pending").get(0).getNote());
        // three more tries (after 1, 2 and 4 s of backoff) add no Pending event
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6))
                .until(() -> events(waiting, "Pending").size() == 1);
    }

    private List<io.fabric8.kubernetes.api.model.events.v1.Event> events(String job, String reason) {
        return cluster.events("default", job).stream().filter(e -> reason.equals(e.getReason())).toList();
    }

    @Test
    void theApiIsDescribedByOpenApi() {
        // on the management interface, with health and metrics: no token needed to read the description
        io.kubequeue.testing.ManagementPort.given().when().get("/q/openapi?format=json").then().statusCode(200)
                .body("paths", org.hamcrest.Matchers.hasKey("/api/v1/queues"))
                .body("paths", org.hamcrest.Matchers.hasKey("/api/v1/queues/{group}/jobs"))
                .body("paths", org.hamcrest.Matchers.hasKey("/api/v1/jobs/{namespace}/{name}"));
    }
}
