package io.kubequeue.webhook;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The decision of kube-queue's mutating admission webhook (issue 29, item 2): a job of a managed kind created
 * without its suspend mark, in a namespace whose jobs go through the queue, is created suspended instead, so that
 * kube-queue queues it like any other and nobody skips the quota by leaving the mark out.
 *
 * <p>Input and output are {@code admission.k8s.io/v1 AdmissionReview}s as JSON (Kubernetes docs, "Dynamic
 * Admission Control": the response echoes the request's {@code uid}, {@code allowed: true}, and for a change a
 * base64 JSON Patch with {@code patchType: JSONPatch}). The webhook never refuses: a job it leaves alone is
 * allowed unchanged. It suspends, on {@code CREATE} only (kube-queue's own admission is an update):
 * <ul>
 *   <li>{@code batch/v1} Job: {@code spec.suspend: true};</li>
 *   <li>{@code kubeflow.org} TFJob, PyTorchJob, MPIJob (v1, and mpi-operator's v2beta1):
 *       {@code spec.runPolicy.suspend: true}, the mark training-operator ≥ 1.7 and mpi-operator obey (an
 *       ack-arena operator reads the annotation {@code scheduling.x-k8s.io/suspend} instead: a job carrying it is
 *       already held and left as it is).</li>
 * </ul>
 * Not suspended: an Argo Workflow (kube-queue queues only those with {@code kube-queue/min-resources}: a
 * Workflow suspended without it would never run), a job already held, and a job whose controller holds and releases
 * it (a JobSet's Jobs, an MPIJob's launcher). Any other {@code controller: true} owner reference (a CronJob's, or one
 * a tenant writes naming an object of theirs) exempts nothing.
 */
public final class SuspendAtCreation {

    /**
     * A kind the webhook holds and where its mark goes.
     *
     * @param group  API group ({@code ""} is never one here)
     * @param kind   kind
     * @param parent the JSON path of the object holding the mark ({@code spec}, {@code spec.runPolicy})
     */
    record Held(String group, String kind, List<String> parent) {
    }

    static final List<Held> KINDS = List.of(
            new Held("batch", "Job", List.of("spec")),
            new Held("kubeflow.org", "TFJob", List.of("spec", "runPolicy")),
            new Held("kubeflow.org", "PyTorchJob", List.of("spec", "runPolicy")),
            new Held("kubeflow.org", "MPIJob", List.of("spec", "runPolicy")));

    /** The annotation ack-arena's operators read as their suspend mark. */
    static final String ARENA_SUSPEND = "scheduling.x-k8s.io/suspend";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final BiPredicate<String, String> queues;

    /**
     * @param queues whether jobs of this kind (its name, e.g. {@code TFJob}) in this namespace go through the queue:
     *               the kind is enabled, the namespace watched and selected for suspension
     */
    public SuspendAtCreation(BiPredicate<String, String> queues) {
        this.queues = queues;
    }

    /**
     * The namespaces {@code kube-queue.serving.suspend-at-creation-in} selects.
     *
     * @param names          the setting's names; {@code *} stands for every namespace a quota group lists
     * @param listedByGroup  whether a quota group in force lists a namespace (asked only for {@code *})
     * @return whether the webhook suspends in a namespace (empty setting: nowhere)
     */
    public static java.util.function.Predicate<String> selected(java.util.Set<String> names,
                                                                 java.util.function.Predicate<String> listedByGroup) {
        boolean everyListed = names.contains(io.kubequeue.config.KubeQueueConfig.EVERY_QUOTA_GROUP);
        return namespace -> names.contains(namespace) || everyListed && listedByGroup.test(namespace);
    }

    /**
     * The answer to one review.
     *
     * @param review an {@code AdmissionReview} with a {@code request}
     * @return the {@code AdmissionReview} with its {@code response}: allowed, with a patch if the job is suspended
     * @throws IllegalArgumentException if {@code review} has no {@code request} with a {@code uid} (answered 400)
     */
    public ObjectNode answer(JsonNode review) {
        JsonNode request = review == null ? null : review.get("request");
        if (request == null || !request.path("uid").isTextual()) {
            throw new IllegalArgumentException("not an AdmissionReview with a request and its uid");
        }
        ObjectNode answer = JSON.objectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
        ObjectNode response = answer.putObject("response").put("uid", request.get("uid").asText()).put("allowed", true);
        patch(request).ifPresent(patch -> {
            response.put("patchType", "JSONPatch");
            response.put("patch", Base64.getEncoder().encodeToString(patch.toString().getBytes(StandardCharsets.UTF_8)));
            response.putArray("warnings").add("kube-queue: created suspended; it is admitted when its quota group has"
                    + " room (kubectl queue job " + request.path("namespace").asText() + "/"
                    + request.path("object").path("metadata").path("name").asText(
                            request.path("name").asText("")) + ")");
        });
        return answer;
    }

    /**
     * The JSON Patch that suspends the job of this request, if the webhook suspends it (see the class comment).
     *
     * @param request an {@code AdmissionReview}'s {@code request}
     */
    Optional<ArrayNode> patch(JsonNode request) {
        if (!"CREATE".equals(request.path("operation").asText())) {
            return Optional.empty();
        }
        String group = request.path("kind").path("group").asText();
        String kind = request.path("kind").path("kind").asText();
        Optional<Held> held = KINDS.stream().filter(k -> k.group().equals(group) && k.kind().equals(kind)).findFirst();
        JsonNode object = request.path("object");
        String namespace = request.path("namespace").asText(object.path("metadata").path("namespace").asText(""));
        if (held.isEmpty() || namespace.isEmpty() || !object.isObject() || !queues.test(kind, namespace)
                || ownedByAnotherController(object)
                || "true".equals(object.path("metadata").path("annotations").path(ARENA_SUSPEND).asText())) {
            return Optional.empty();
        }
        JsonNode spec = object.path("spec");
        if (!spec.isObject()) {
            return Optional.empty(); // the API server refuses it anyway
        }
        ArrayNode patch = JSON.arrayNode();
        if (held.get().parent().size() == 1) {
            if (spec.path("suspend").asBoolean(false)) {
                return Optional.empty();
            }
            patch.addObject().put("op", "add").put("path", "/spec/suspend").put("value", true);
        } else {
            JsonNode runPolicy = spec.path("runPolicy");
            if (runPolicy.path("suspend").asBoolean(false)) {
                return Optional.empty();
            }
            if (runPolicy.isObject()) {
                patch.addObject().put("op", "add").put("path", "/spec/runPolicy/suspend").put("value", true);
            } else {
                ObjectNode add = patch.addObject().put("op", "add").put("path", "/spec/runPolicy");
                add.putObject("value").put("suspend", true);
            }
        }
        return Optional.of(patch);
    }

    /**
     * Whether the object's controller holds and releases it itself (a JobSet, an MPIJob its launcher:
     * {@link io.kubequeue.job.JobFeed#heldByController}); any other owner reference, which its creator writes, holds
     * nothing.
     */
    private static boolean ownedByAnotherController(JsonNode object) {
        String name = object.path("metadata").path("name").asText(null);
        for (JsonNode owner : object.path("metadata").path("ownerReferences")) {
            if (owner.path("controller").asBoolean(false) && io.kubequeue.job.JobFeed.heldByController(name,
                    owner.path("apiVersion").asText(null), owner.path("kind").asText(null),
                    owner.path("name").asText(null))) {
                return true;
            }
        }
        return false;
    }
}
