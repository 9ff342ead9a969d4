package io.kubequeue.operator;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.ManagementPort;
import io.quarkus.test.junit.QuarkusTest;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.WithStrictApiServer;

/**
 * A cluster that never installs Argo (the Workflow API answers 404 for good): the pod must still become Ready
 * once recovery is done, or a Deployment on such a cluster would never serve its API, its metrics nor
 * `kubectl queue`, and a rolling update would stall. A kind that is not served is logged once and picked up
 * when its CRD appears (MissingCrdTest); it is not a reason to take the replica out of its Service.
 */
@QuarkusTest
@WithStrictApiServer(setup = ReadinessWithoutArgoTest.NoArgo.class)
class ReadinessWithoutArgoTest {

    public static class NoArgo implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            String notFound = "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\"}";
            server.expect().get().withPath("/apis/argoproj.io/v1alpha1/workflows").andReturn(404, notFound).always();
            server.expect().get().withPath("/apis/argoproj.io/v1alpha1/workflows?resourceVersion=0")
                    .andReturn(404, notFound).always();
        }
    }

    @Test
    void readyAlthoughOneKindIsNotServed() {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> ManagementPort.given().get("/q/health/ready").statusCode() == 200);
        // and stays ready while the informer keeps retrying
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> ManagementPort.given().get("/q/health/ready").statusCode() == 200);
    }
}
