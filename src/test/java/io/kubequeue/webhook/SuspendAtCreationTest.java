package io.kubequeue.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.JobKinds;
import io.kubequeue.testing.Parse;

/**
 * Issue 29, item 2: the webhook's answer for each kind (an AdmissionReview in, a patch out), applied to the
 * upstream samples: the patched job is one kube-queue's own kind adapter sees as held. And what it leaves alone.
 */
class SuspendAtCreationTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final KubernetesClient CLIENT = Parse.client();
    private static final Set<String> SELECTED = Set.of("team-a");
    private final SuspendAtCreation webhook = new SuspendAtCreation((kind, namespace) -> SELECTED.contains(namespace));

    static Stream<Arguments> samples() {
        return Stream.of(
                Arguments.of("/upstream/kueue_sample-job.yaml", "batch", "v1", "Job"),
                Arguments.of("/upstream/training-operator_tf_job_mnist.yaml", "kubeflow.org", "v1", "TFJob"),
                Arguments.of("/upstream/training-operator_simple.yaml", "kubeflow.org", "v1", "PyTorchJob"),
                Arguments.of("/upstream/mpi-operator_pi.yaml", "kubeflow.org", "v2beta1", "MPIJob"));
    }

    @ParameterizedTest
    @MethodSource("samples")
    void aJobCreatedUnsuspendedComesOutHeldAsItsKindReadsIt(String sample, String group, String version, String kind) {
        ObjectNode object = sample(sample);
        assertFalse(held(object), "the sample is not held as written: " + sample);
        ObjectNode answer = webhook.answer(review("CREATE", group, version, kind, "team-a", object));
        JsonNode response = answer.get("response");
        assertEquals("uid-1", response.get("uid").asText());
        assertTrue(response.get("allowed").asBoolean());
        assertEquals("JSONPatch", response.get("patchType").asText());
        JsonNode patched = JsonPatch.apply(decode(response), object);
        assertTrue(held(patched), "held after the patch: " + patched.path("spec"));
        // nothing else of the job changed
        ObjectNode unpatched = patched.deepCopy();
        if ("Job".equals(kind)) {
            ((ObjectNode) unpatched.get("spec")).remove("suspend");
        } else if (object.path("spec").has("runPolicy")) {
            ((ObjectNode) unpatched.get("spec").get("runPolicy")).remove("suspend");
        } else {
            ((ObjectNode) unpatched.get("spec")).remove("runPolicy");
        }
        assertEquals(object, unpatched);
        assertTrue(response.get("warnings").get(0).asText().contains("created suspended"), response.toString());
    }

    @Test
    void whatTheWebhookLeavesAlone() {
        ObjectNode job = sample("/upstream/kueue_sample-job.yaml");
        assertFalse(patched(webhook.answer(review("CREATE", "batch", "v1", "Job", "team-b", job))),
                "a namespace not selected");
        assertFalse(patched(webhook.answer(review("UPDATE", "batch", "v1", "Job", "team-a", job))),
                "an update: kube-queue's own admission is one");
        ObjectNode suspended = job.deepCopy();
        ((ObjectNode) suspended.get("spec")).put("suspend", true);
        assertFalse(patched(webhook.answer(review("CREATE", "batch", "v1", "Job", "team-a", suspended))),
                "already held");
        ObjectNode owned = job.deepCopy();
        ((ObjectNode) owned.get("metadata")).putArray("ownerReferences").addObject()
                .put("apiVersion", "jobset.x-k8s.io/v1alpha2").put("kind", "JobSet").put("name", "js")
                .put("uid", "u").put("controller", true);
        assertFalse(patched(webhook.answer(review("CREATE", "batch", "v1", "Job", "team-a", owned))),
                "a JobSet's Job: its controller holds it");
        ObjectNode cron = job.deepCopy();
        ((ObjectNode) cron.get("metadata")).putArray("ownerReferences").addObject()
                .put("apiVersion", "batch/v1").put("kind", "CronJob").put("name", "nightly")
                .put("uid", "u").put("controller", true);
        assertTrue(patched(webhook.answer(review("CREATE", "batch", "v1", "Job", "team-a", cron))),
                "a CronJob's Job is its users' job: held");
        ObjectNode arena = sample("/upstream/training-operator_tf_job_mnist.yaml");
        ((ObjectNode) arena.get("metadata")).putObject("annotations").put(SuspendAtCreation.ARENA_SUSPEND, "true");
        assertFalse(patched(webhook.answer(review("CREATE", "kubeflow.org", "v1", "TFJob", "team-a", arena))),
                "held by ack-arena's annotation already");
        ObjectNode workflow = sample("/upstream/argo-workflows_hello-world.yaml");
        assertFalse(patched(webhook.answer(review("CREATE", "argoproj.io", "v1alpha1", "Workflow", "team-a",
                workflow))), "a Workflow is queued only with kube-queue/min-resources: never suspended here");
    }

    /**
     * A tenant writes the owner references of the jobs they create: naming one of their own objects as the job's
     * controller (a ConfigMap, a side job under their MPIJob) must not let the job skip the queue. Only the owners
     * that hold their jobs themselves exempt it: a JobSet, and an MPIJob for its launcher ({@code <name>-launcher},
     * which mpi-operator suspends with the MPIJob).
     */
    @Test
    void aControllerReferenceATenantWritesDoesNotExemptTheirJob() {
        ObjectNode job = sample("/upstream/kueue_sample-job.yaml");
        assertTrue(patched(webhook.answer(review("CREATE", "batch", "v1", "Job", "team-a",
                ownedBy(job, "v1", "ConfigMap", "mine")))), "a ConfigMap holds no job");
        assertTrue(patched(webhook.answer(review("CREATE", "batch", "v1", "Job", "team-a",
                ownedBy(job, "kubeflow.org/v2beta1", "MPIJob", "pi")))),
                "a job under the tenant's MPIJob that is not its launcher: nobody holds it");
        ObjectNode launcher = ownedBy(job, "kubeflow.org/v2beta1", "MPIJob", "pi");
        ((ObjectNode) launcher.get("metadata")).put("name", "pi-launcher");
        assertFalse(patched(webhook.answer(review("CREATE", "batch", "v1", "Job", "team-a", launcher))),
                "an MPIJob's launcher: mpi-operator holds it with the MPIJob");
    }

    private static ObjectNode ownedBy(ObjectNode job, String apiVersion, String kind, String name) {
        ObjectNode owned = job.deepCopy();
        ((ObjectNode) owned.get("metadata")).putArray("ownerReferences").addObject().put("apiVersion", apiVersion)
                .put("kind", kind).put("name", name).put("uid", "u").put("controller", true);
        return owned;
    }

    @Test
    void aReviewWithoutARequestIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> webhook.answer(JSON.createObjectNode()));
        assertThrows(IllegalArgumentException.class, () -> webhook.answer(
                JSON.createObjectNode().set("request", JSON.createObjectNode().put("operation", "CREATE"))));
    }

    private static boolean patched(ObjectNode answer) {
        return answer.get("response").has("patch");
    }

    private static JsonNode decode(JsonNode response) {
        try {
            return JSON.readTree(new String(Base64.getDecoder().decode(response.get("patch").asText()),
                    StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether kube-queue's adapter for the object's kind sees it held (queued), as the job feed reads it. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static boolean held(JsonNode object) {
        HasMetadata typed = Parse.yaml(object.toString()).get(0);
        List<JobKind<?>> kinds = JobKinds.all(CLIENT);
        JobKind kind = kinds.stream().filter(k -> k.type().isInstance(typed)).findFirst().orElseThrow();
        return kind.held(typed);
    }

    private static ObjectNode sample(String resource) {
        try (InputStream in = SuspendAtCreationTest.class.getResourceAsStream(resource)) {
            ObjectNode object = (ObjectNode) new YAMLMapper().readTree(in);
            ((ObjectNode) object.get("metadata")).put("name", "sample").remove("generateName");
            ((ObjectNode) object.get("metadata")).put("namespace", "team-a");
            return object;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode review(String operation, String group, String version, String kind, String namespace,
                                     JsonNode object) {
        ObjectNode review = JSON.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
        ObjectNode request = review.putObject("request").put("uid", "uid-1").put("operation", operation)
                .put("namespace", namespace).put("name", "sample");
        request.putObject("kind").put("group", group).put("version", version).put("kind", kind);
        request.set("object", object);
        return review;
    }

    /** kube-queue.serving.suspend-at-creation-in: names, or * for every namespace a quota group lists; unset: none. */
    @Test
    void theSettingSelectsNamedNamespacesOrEveryOneAQuotaGroupLists() {
        java.util.function.Predicate<String> listed = java.util.Set.of("team-a", "team-b")::contains;
        java.util.function.Predicate<String> named = SuspendAtCreation.selected(java.util.Set.of("team-a", "lab"), listed);
        assertTrue(named.test("team-a"));
        assertTrue(named.test("lab"), "named, though no group lists it");
        assertFalse(named.test("team-b"), "listed by a group, but not named");
        java.util.function.Predicate<String> every = SuspendAtCreation.selected(java.util.Set.of("*"), listed);
        assertTrue(every.test("team-b"));
        assertFalse(every.test("lab"), "no quota group lists it: nothing would queue it");
        assertFalse(SuspendAtCreation.selected(java.util.Set.of(), listed).test("team-a"), "unset: nowhere");
    }
}
