package io.kubequeue.testing;

import org.eclipse.microprofile.config.ConfigProvider;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;

/**
 * Requests to Quarkus' management interface in a {@code @QuarkusTest}: health and metrics are served there
 * ({@code quarkus.management.enabled}), on {@code quarkus.management.test-port} while testing (0 in application.properties: Quarkus picks a free port
 * and writes it back there), not on the HTTP port
 * RestAssured points at by default.
 */
public final class ManagementPort {

    private ManagementPort() {
    }

    /** A RestAssured request to the management port (health: {@code /q/health/...}, metrics: {@code /q/metrics}). */
    public static RequestSpecification given() {
        return RestAssured.given().port(ConfigProvider.getConfig()
                .getOptionalValue("quarkus.management.test-port", Integer.class).orElse(9001));
    }
}
