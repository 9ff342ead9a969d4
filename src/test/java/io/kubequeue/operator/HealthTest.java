package io.kubequeue.operator;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

import io.kubequeue.testing.ManagementPort;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.testing.WithStrictApiServer;

/** Liveness, and readiness that is UP only once start-up recovery is done and the admission loop is open. */
@QuarkusTest
@WithStrictApiServer
class HealthTest {

    @Test
    void readyAndLiveOnceRecoveryIsDone() {
        ManagementPort.given().when().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItem("kube-queue-recovery"));
        ManagementPort.given().when().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    }

    @Test
    void notReadyBeforeRecovery() {
        RecoveryReadiness beforeStart = new RecoveryReadiness(null, null);
        assertEquals(HealthCheckResponse.Status.DOWN, beforeStart.call().getStatus());
        beforeStart.recovered();
        assertEquals(HealthCheckResponse.Status.UP, beforeStart.call().getStatus(), "recovered, no Lease problem");
    }

}
