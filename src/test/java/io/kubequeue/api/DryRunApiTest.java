package io.kubequeue.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;


import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.testing.SeedTreeFixture;
import io.kubequeue.operator.Manifests;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.testing.WithStrictApiServer;

/** Dry-run admission of the seed's examples and of jobs that cannot fit, with reasons checked to the number. */
@QuarkusTest
@WithStrictApiServer
class DryRunApiTest extends SeedTreeFixture {

    private static final String GROUP = SEED_GROUP;

    private static String resource(String name) {
        try (InputStream in = DryRunApiTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** YAML as bytes: RestAssured cannot encode a String as application/yaml. */
    private static byte[] yaml(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The first TFJob of a seed file, as its own YAML document. */
    private String firstTfJob(String file) {
        List<HasMetadata> jobs = Manifests.read(client, DryRunApiTest.class.getResourceAsStream(file));
        return client.getKubernetesSerialization().asYaml(jobs.get(0));
    }

    @Test
    void theSeedsTfJobFitsAnEmptyGroup() {
        given().contentType("application/yaml").body(yaml(firstTfJob("/seed/tfjobs.yaml")))
                .when().post("/api/v1/dry-run").then().statusCode(200)
                .body("managed", equalTo(true))
                .body("kind", equalTo("TFJob"))
                .body("group", equalTo(GROUP))
                .body("request.cpu", equalTo("3"))
                .body("request.memory", equalTo("3Gi"))
                .body("fitsNow", equalTo(true))
                .body("position", equalTo(1))
                .body("reason", equalTo("fits now"));
        await().during(Duration.ofMillis(500)).until(() -> scheduler.jobs().isEmpty()); // nothing was queued
    }

    @Test
    void theResourceQuotaExamplesTfJobWhileTheOtherRunsDoesNotFitAndSaysWhy() {
        cluster.apply("/seed/tfjobs.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.usage(GROUP).get("cpu") == 3000);
        String json = client.getKubernetesSerialization().asJson(
                Manifests.read(client, DryRunApiTest.class.getResourceAsStream("/seed/tfjobs-resourcequota.yaml")).get(0));
        given().contentType("application/json").body(json.replace("\"job1\"", "\"job3\""))
                .when().post("/api/v1/dry-run").then().statusCode(200)
                .body("managed", equalTo(true))
                .body("fitsNow", equalTo(false))
                .body("position", equalTo(2)) // behind the seed job that waits
                .body("reason", equalTo("cpu: request 3, in use 3 of max 4 in quota group " + GROUP));
    }

    @jakarta.inject.Inject
    io.kubequeue.pricing.PodDefaultsWatch podDefaults;

    /** The dry run prices as admission does: a container without requests costs its LimitRange's defaultRequest. */
    @Test
    void aJobIsPricedWithItsNamespacesLimitRangeDefaults() {
        client.limitRanges().inNamespace("default").resource(new io.fabric8.kubernetes.api.model.LimitRangeBuilder()
                .withNewMetadata().withName("defaults").endMetadata().withNewSpec().addNewLimit().withType("Container")
                .addToDefaultRequest("cpu", new io.fabric8.kubernetes.api.model.Quantity("1")).endLimit().endSpec()
                .build()).create();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> !podDefaults.forNamespace("default").containers()
                    .isEmpty());
            String noRequests = """
                    apiVersion: batch/v1
                    kind: Job
                    metadata: {name: no-requests, namespace: default}
                    spec:
                      suspend: true
                      parallelism: 3
                      template:
                        spec:
                          restartPolicy: Never
                          containers: [{name: c, image: x}]
                    """;
            given().contentType("application/yaml").body(yaml(noRequests)).when().post("/api/v1/dry-run").then()
                    .statusCode(200)
                    .body("request.cpu", equalTo("3"))
                    .body("fitsNow", equalTo(true));
        } finally {
            client.limitRanges().inNamespace("default").withName("defaults").delete();
        }
    }

    @Test
    void aJobLargerThanTheGroupCanNeverFit() {
        String big = """
                apiVersion: batch/v1
                kind: Job
                metadata: {name: big, namespace: default}
                spec:
                  suspend: true
                  parallelism: 3
                  template:
                    spec:
                      restartPolicy: Never
                      containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
                """;
        given().contentType("application/yaml").body(yaml(big)).when().post("/api/v1/dry-run").then().statusCode(200)
                .body("request.cpu", equalTo("6"))
                .body("fitsNow", equalTo(false))
                .body("position", equalTo(0))
                .body("reason", equalTo("cpu: request 6 exceeds max 4 of quota group " + GROUP
                        + "; it could never be admitted"));
    }

    @Test
    void aJobWithoutSuspendMarkIsNotManagedAndBadInputIsRefusedNamingTheField() {
        String unsuspended = resource("/jobs/batch-2cpu.yaml").split("---")[0].replace("suspend: true", "suspend: false");
        given().contentType("application/yaml").body(yaml(unsuspended)).when().post("/api/v1/dry-run").then().statusCode(200)
                .body("managed", equalTo(false))
                .body("reason", containsString("no suspend mark"));
        given().contentType("application/yaml").body(yaml(resource("/jobs/invalid-quantity.yaml")))
                .when().post("/api/v1/dry-run").then().statusCode(422)
                .body("error", containsString("spec.template.spec.containers[0].resources.requests.cpu"));
        given().contentType("application/yaml").body(yaml("kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n"))
                .when().post("/api/v1/dry-run").then().statusCode(422);
    }

    /**
     * Hostile manifests get a 400 or a 422 naming the bound, never a 500 or a stack overflow of the request thread:
     * fabric8 reads YAML into maps and converts them recursively, without a bound on depth.
     */
    @Test
    void hostileManifestsAreRefusedNamingTheBound() {
        given().contentType("application/yaml").body(yaml("a: " + "[".repeat(200_000) + "]".repeat(200_000)))
                .when().post("/api/v1/dry-run").then().statusCode(400).body(containsString("levels deep"));
        given().contentType("application/json").body("{\"a\":".repeat(20_000) + "1" + "}".repeat(20_000))
                .when().post("/api/v1/dry-run").then().statusCode(400).body(containsString("nesting depth"));
        given().contentType("application/yaml").body(yaml("""
                a: &a [x, x, x, x, x, x, x, x, x]
                b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
                c: [*b, *b, *b, *b, *b, *b, *b, *b, *b]
                """)).when().post("/api/v1/dry-run").then().statusCode(400).body(containsString("aliases"));
        given().contentType("application/yaml").body(yaml("""
                apiVersion: argoproj.io/v1alpha1
                kind: Workflow
                metadata:
                  name: huge
                  annotations:
                    kube-queue/min-resources: "cpu: 1e999999999"
                spec: {suspend: true}
                """)).when().post("/api/v1/dry-run").then().statusCode(422).body(containsString("exponent"));
    }
}
