package io.kubequeue.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.zjsonpatch.CompatibilityFlags;
import io.fabric8.zjsonpatch.JsonPatch;

/**
 * The webhook against AdmissionReviews a careless or hostile tenant's object makes (issue 29, item 2): every field
 * the decision reads ({@code operation}, {@code kind}, {@code namespace}, the object's metadata, owner references,
 * annotations, {@code spec}, {@code runPolicy}, {@code suspend}) of any JSON type, present or not. The answer is always
 * an allowed review for the request's uid, or an {@link IllegalArgumentException} when there is no request or uid
 * (400); and a patch, when there is one, applies to the object by RFC 6902 as the API server applies it (strictly:
 * no parent created) and leaves the job held by the mark its kind obeys, and only on a create in a selected namespace.
 */
class HostileAdmissionReviewsPropertiesTest {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> SELECTED = Set.of("team-a");
    private final SuspendAtCreation webhook = new SuspendAtCreation((kind, namespace) -> SELECTED.contains(namespace));

    @Property(tries = 3000)
    void anyReviewIsAllowedAndAnyPatchAppliesAndHolds(@ForAll("reviews") ObjectNode review) throws Exception {
        JsonNode request = review.path("request");
        boolean hasUid = request.path("uid").isTextual();
        String outcome = outcome(review);
        Statistics.label("outcome").collect(outcome);
        // coverage: enough tries reach each branch of the decision, or the property proves little
        Statistics.label("outcome").coverage(c -> {
            c.check("patched Job").count(n -> n >= 20);
            c.check("patched Kubeflow, runPolicy added").count(n -> n >= 5);
            c.check("patched Kubeflow, into its runPolicy").count(n -> n >= 5);
            c.check("refused").count(n -> n >= 20);
        });
        ObjectNode answer;
        try {
            answer = webhook.answer(review);
        } catch (IllegalArgumentException e) {
            assertTrue(!hasUid, "refused a review with a request and its uid: " + review);
            return;
        }
        assertTrue(hasUid, "answered a review without a uid: " + review);
        JsonNode response = answer.path("response");
        assertEquals(request.path("uid").asText(), response.path("uid").asText());
        assertTrue(response.path("allowed").asBoolean(), "the webhook never refuses");
        if (!response.has("patch")) {
            return;
        }
        assertEquals("CREATE", request.path("operation").asText());
        assertTrue(SELECTED.contains(request.path("namespace").asText(request.path("object").path("metadata")
                .path("namespace").asText())), review.toString());
        JsonNode patch = MAPPER.readTree(new String(Base64.getDecoder().decode(response.path("patch").asText()),
                StandardCharsets.UTF_8));
        JsonNode patched = JsonPatch.apply(patch, request.path("object"), java.util.EnumSet.noneOf(CompatibilityFlags.class));
        boolean batch = "batch".equals(request.path("kind").path("group").asText());
        JsonNode mark = batch ? patched.path("spec").path("suspend") : patched.path("spec").path("runPolicy").path("suspend");
        assertTrue(mark.isBoolean() && mark.booleanValue(), "held after the patch: " + patched);
    }

    @Provide
    Arbitrary<ObjectNode> reviews() {
        Arbitrary<JsonNode> any = anyValue();
        // mostly well-formed, so that every branch of the decision is reached; the rest of any shape
        Arbitrary<JsonNode> operation = Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.of("CREATE", "CREATE", "CREATE", "CREATE", "UPDATE", "DELETE").map(JSON::textNode)),
                Tuple.of(2, any));
        Arbitrary<JsonNode> kind = Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.of(
                kind("batch", "Job"), kind("batch", "Job"), kind("kubeflow.org", "TFJob"),
                kind("kubeflow.org", "PyTorchJob"), kind("kubeflow.org", "MPIJob"), kind("argoproj.io", "Workflow"),
                kind("", "Pod"))), Tuple.of(2, any));
        Arbitrary<JsonNode> namespace = Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.of("team-a", "team-a", "team-a", "team-b", "").map(JSON::textNode)), Tuple.of(2, any));
        Arbitrary<JsonNode> uid = Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.just(JSON.textNode("uid-1"))),
                Tuple.of(1, any));
        Arbitrary<JsonNode> object = object(any);
        // the shapes without edge cases: jqwik would draw their bounds (no uid, no spec) far more often than 1 in 5
        return Combinators.combine(operation, kind, namespace, uid, object, Arbitraries.integers().between(0, 19).withoutEdgeCases())
                .as((op, k, ns, u, o, drop) -> {
                    ObjectNode request = JSON.objectNode();
                    request.set("uid", u);
                    request.set("operation", op);
                    request.set("kind", k);
                    request.set("namespace", ns);
                    request.set("object", o);
                    if (drop == 0) {
                        request.remove("uid");
                    }
                    ObjectNode review = JSON.objectNode().put("apiVersion", "admission.k8s.io/v1")
                            .put("kind", "AdmissionReview");
                    if (drop == 1) {
                        review.set("request", u); // a request that is no object
                    } else if (drop != 2) {
                        review.set("request", request);
                    }
                    return review;
                });
    }

    /** Which branch of the decision a review takes, for the coverage check. */
    private String outcome(ObjectNode review) {
        try {
            ObjectNode answer = webhook.answer(review);
            if (!answer.path("response").has("patch")) {
                return "allowed unchanged";
            }
            if ("batch".equals(review.path("request").path("kind").path("group").asText())) {
                return "patched Job";
            }
            return review.path("request").path("object").path("spec").path("runPolicy").isObject()
                    ? "patched Kubeflow, into its runPolicy" : "patched Kubeflow, runPolicy added";
        } catch (IllegalArgumentException e) {
            return "refused";
        }
    }

    private static JsonNode kind(String group, String kind) {
        return JSON.objectNode().put("group", group).put("version", "v1").put("kind", kind);
    }

    /** A job-like object whose every field read may be missing or of the wrong type. */
    private static Arbitrary<JsonNode> object(Arbitrary<JsonNode> any) {
        Arbitrary<JsonNode> suspend = Arbitraries.oneOf(Arbitraries.of(true, false).map(JSON::booleanNode),
                Arbitraries.of("true", "false").map(JSON::textNode), any);
        Arbitrary<JsonNode> runPolicy = Arbitraries.oneOf(suspend.map(v -> JSON.objectNode().set("suspend", v)),
                Arbitraries.just(JSON.objectNode()), any);
        Arbitrary<JsonNode> spec = Combinators.combine(suspend, runPolicy, Arbitraries.integers().between(0, 3).withoutEdgeCases())
                .as((s, r, shape) -> switch (shape) {
                    case 0 -> JSON.objectNode().set("suspend", s);
                    case 1 -> JSON.objectNode().set("runPolicy", r);
                    case 2 -> JSON.objectNode().putObject("template");
                    default -> s; // not an object
                });
        Arbitrary<JsonNode> owners = Arbitraries.oneOf(Arbitraries.of(
                (JsonNode) JSON.arrayNode().add(JSON.objectNode().put("apiVersion", "v1").put("kind", "ConfigMap")
                        .put("name", "mine").put("controller", true)),
                JSON.arrayNode().add(JSON.objectNode().put("apiVersion", "jobset.x-k8s.io/v1alpha2")
                        .put("kind", "JobSet").put("name", "js").put("controller", true)),
                JSON.arrayNode().add(JSON.objectNode().put("apiVersion", "batch/v1").put("kind", "CronJob")
                        .put("name", "cron").put("controller", true))), any);
        Arbitrary<JsonNode> annotations = Arbitraries.oneOf(Arbitraries.of(
                (JsonNode) JSON.objectNode().put("scheduling.x-k8s.io/suspend", "true"),
                JSON.objectNode().put("scheduling.x-k8s.io/suspend", "false")), any);
        return Combinators.combine(spec, owners, annotations, Arbitraries.integers().between(0, 4).withoutEdgeCases())
                .as((s, o, a, shape) -> {
                    ObjectNode job = JSON.objectNode();
                    ObjectNode metadata = job.putObject("metadata").put("name", "j");
                    if (shape != 0) {
                        job.set("spec", s);
                    }
                    if (shape == 2) {
                        metadata.set("ownerReferences", o);
                    }
                    if (shape == 3) {
                        metadata.set("annotations", a);
                    }
                    return shape == 4 ? a : job; // sometimes not an object at all
                });
    }

    /** Any JSON value: scalars of each type, long strings, nested arrays and objects. */
    private static Arbitrary<JsonNode> anyValue() {
        Arbitrary<JsonNode> scalar = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(20).map(JSON::textNode),
                Arbitraries.strings().ofMinLength(10_000).ofMaxLength(20_000).map(JSON::textNode),
                Arbitraries.longs().map(JSON::numberNode),
                Arbitraries.doubles().map(JSON::numberNode),
                Arbitraries.of(true, false).map(JSON::booleanNode),
                Arbitraries.just(JSON.nullNode()));
        return Arbitraries.lazyOf(() -> scalar,
                () -> anyValue().list().ofMaxSize(3).map(l -> {
                    com.fasterxml.jackson.databind.node.ArrayNode a = JSON.arrayNode();
                    l.forEach(a::add);
                    return a;
                }),
                () -> Combinators.combine(Arbitraries.of("suspend", "runPolicy", "spec", "x"), anyValue())
                        .as((k, v) -> (JsonNode) JSON.objectNode().set(k, v)));
    }
}
