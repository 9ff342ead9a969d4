package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.job.argo.WorkflowKind;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.job.kubeflow.KubeflowJobKind;
import io.kubequeue.job.kubeflow.MPIJob;
import io.kubequeue.job.kubeflow.MPIJobV2beta1;
import io.kubequeue.job.kubeflow.PyTorchJob;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.Parse;
import io.kubequeue.testing.StrictApiServer;
import io.kubequeue.resources.PodRequests;

/**
 * The informer caches keep {@link JobKind#pruned} copies: every read kube-queue and JOSDK make of a job answers the
 * same on the copy (and on a JSON round trip of it, JOSDK's default copy, should it be turned back on) as on the
 * job, for every job the tests' fixtures hold (the YAML under src/test/resources, the manifests written in the
 * tests' text blocks, and ../shared/examples where present), each also as a real API server stores it and in the
 * states its controller moves it through; and the copy of a realistic job is a small fraction of it.
 */
class PruningTest {

    private static final KubernetesClient CLIENT = Parse.client();
    private static final KubernetesSerialization JSON = CLIENT.getKubernetesSerialization();
    private static final List<JobKind<?>> KINDS = JobKinds.all(CLIENT);
    /** LimitRange defaults and a RuntimeClass overhead: a copy must be priced as its job is (runtimeClassName kept). */
    private static final io.kubequeue.resources.PodDefaults PRICED = new io.kubequeue.resources.PodDefaults(
            new io.kubequeue.resources.ContainerDefaults(
                    Map.of("cpu", new io.fabric8.kubernetes.api.model.Quantity("1"),
                            "memory", new io.fabric8.kubernetes.api.model.Quantity("1Gi")),
                    Map.of("cpu", new io.fabric8.kubernetes.api.model.Quantity("2"))),
            Map.of("kata", Map.of("cpu", new io.fabric8.kubernetes.api.model.Quantity("250m"))));
    private static final Pattern TEXT_BLOCK = Pattern.compile("\"\"\"\\n(.*?)\"\"\"", Pattern.DOTALL);

    // ---- the fixtures ---------------------------------------------------------------------------------------

    /** Every job of a managed kind in the fixtures, named by where it was found. */
    static Stream<Arguments> samples() {
        Map<String, HasMetadata> found = new LinkedHashMap<>();
        yamlFiles(Path.of("src/test/resources")).forEach(file -> add(found, file.toString(), read(file)));
        Path shared = Path.of("../shared/examples");
        if (Files.isDirectory(shared)) {
            yamlFiles(shared).forEach(file -> add(found, file.toString(), read(file)));
        }
        textBlocks().forEach((where, objects) -> add(found, where, objects));
        // the training operator's v1 MPIJob reads the same replica specs as the mpi-operator's v2beta1 samples
        new ArrayList<>(found.entrySet()).stream().filter(e -> e.getValue() instanceof MPIJobV2beta1)
                .forEach(e -> found.put(e.getKey() + " as v1", toV1((MPIJobV2beta1) e.getValue())));
        // a Kubeflow job's pod templates are JSON, pruned apart from a batch Job's: each batch Job's template (the
        // request rules of RequestsTest among them) also as a PyTorchJob's replica
        new ArrayList<>(found.entrySet()).stream().filter(e -> e.getValue() instanceof Job j && j.getSpec() != null
                        && j.getSpec().getTemplate() != null)
                .forEach(e -> found.put(e.getKey() + " as a PyTorchJob", asPyTorchJob((Job) e.getValue())));
        assertTrue(found.size() >= 40, "the fixtures hold jobs of every kind: " + found.keySet());
        assertTrue(found.keySet().stream().filter(k -> k.startsWith("RequestsTest.java")).count() >= 20,
                "RequestsTest's jobs, one rule of docs/behaviour.md §2 each, are read: " + found.keySet());
        for (JobKind<?> kind : KINDS) {
            assertTrue(found.values().stream().anyMatch(kind.type()::isInstance), "a fixture of " + kind.type());
        }
        return found.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    private static void add(Map<String, HasMetadata> found, String where, List<HasMetadata> objects) {
        for (int i = 0; i < objects.size(); i++) {
            HasMetadata o = objects.get(i);
            if (o != null && kindOf(o).isPresent()) {
                found.put(where + (objects.size() > 1 ? " #" + i : ""), o);
            }
        }
    }

    private static List<Path> yamlFiles(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<HasMetadata> read(Path file) {
        try {
            return Parse.yaml(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            return List.of(); // CRDs, quota objects and other files that are no jobs
        }
    }

    /**
     * The manifests written in the tests' text blocks; a block that is a batch Job's spec (RequestsTest writes its
     * Jobs so) is read as the spec of a Job.
     */
    private static Map<String, List<HasMetadata>> textBlocks() {
        Map<String, List<HasMetadata>> blocks = new LinkedHashMap<>();
        for (Path source : javaFiles(Path.of("src/test/java"))) {
            String text;
            try {
                text = Files.readString(source);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Matcher m = TEXT_BLOCK.matcher(text);
            int n = 0;
            while (m.find()) {
                String block = m.group(1).stripIndent();
                String where = source.getFileName() + " text block " + n++;
                List<HasMetadata> objects = parse(block);
                if (objects.stream().noneMatch(o -> o != null && kindOf(o).isPresent())) {
                    objects = parse("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default}\nspec:\n"
                            + block.indent(2));
                    objects = objects.stream().filter(o -> o instanceof Job j && j.getSpec() != null
                            && j.getSpec().getTemplate() != null).toList();
                }
                blocks.put(where, objects);
            }
        }
        return blocks;
    }

    private static List<Path> javaFiles(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<HasMetadata> parse(String yaml) {
        try {
            return Parse.yaml(yaml);
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    private static PyTorchJob asPyTorchJob(Job job) {
        ObjectNode node = JSON.convertValue(job, ObjectNode.class);
        node.put("apiVersion", "kubeflow.org/v1").put("kind", "PyTorchJob");
        JsonNode jobSpec = node.remove("spec");
        ObjectNode worker = node.putObject("spec").putObject("pytorchReplicaSpecs").putObject("Worker");
        if (jobSpec.has("parallelism")) {
            worker.set("replicas", jobSpec.get("parallelism"));
        }
        worker.set("template", jobSpec.get("template"));
        return JSON.convertValue(node, PyTorchJob.class);
    }

    private static MPIJob toV1(MPIJobV2beta1 v2) {
        ObjectNode node = JSON.convertValue(v2, ObjectNode.class);
        node.put("apiVersion", "kubeflow.org/v1");
        return JSON.convertValue(node, MPIJob.class);
    }

    @SuppressWarnings("unchecked")
    private static Optional<JobKind<HasMetadata>> kindOf(HasMetadata job) {
        return KINDS.stream().filter(k -> k.type() == job.getClass()).map(k -> (JobKind<HasMetadata>) k).findFirst();
    }

    // ---- a job as a real API server stores it, and as its controller moves it along -----------------------------

    /** Signs the record and history the object carries, as kube-queue writes them (over its uid). */
    private static void sign(ObjectNode o) {
        ObjectNode annotations = o.withObjectProperty("metadata").withObjectProperty("annotations");
        Map<String, String> values = new java.util.HashMap<>();
        annotations.fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asText()));
        annotations.put(Annotations.RECORD_SIGNATURE, TrustedRecords.signatures().sign(
                o.path("metadata").path("uid").asText(null), RecordFields.of(values)));
    }

    /** The job as written, then in the states a cluster shows it in; each a new object. */
    private static Map<String, HasMetadata> states(HasMetadata job) {
        Map<String, HasMetadata> states = new LinkedHashMap<>();
        states.put("as written", job);
        HasMetadata stored = edit(job, PruningTest::asStored);
        states.put("as stored", stored);
        states.put("annotated by kubectl apply only", edit(stored, o -> {
            ObjectNode annotations = o.withObjectProperty("metadata").putObject("annotations");
            annotations.put(Pruning.LAST_APPLIED, "{\"apiVersion\":\"v1\"}\n");
        }));
        states.put("without annotations or labels", edit(stored, o -> {
            o.withObjectProperty("metadata").remove("annotations");
            o.withObjectProperty("metadata").remove("labels");
        }));
        states.put("with empty annotations", edit(stored, o -> o.withObjectProperty("metadata").putObject("annotations")));
        states.put("admitted, running", edit(stored, o -> {
            o.withObjectProperty("metadata").withObjectProperty("annotations").put(Annotations.QUOTA_GROUP, "root.a")
                    .put(Annotations.ADMITTED_AT, "2024-06-14T09:13:00Z");
            sign(o);
            o.set("status", status(job.getKind(), "running"));
        }));
        states.put("admitted, a pod ran", edit(stored, o -> {
            o.withObjectProperty("metadata").withObjectProperty("annotations").put(Annotations.QUOTA_GROUP, "root.a")
                    .put(Annotations.ADMITTED_AT, "2024-06-14T09:13:00Z")
                    .put(Annotations.POD_RAN, "2024-06-14T09:13:00Z v1.c2lnbmF0dXJl");
            sign(o);
            o.set("status", status(job.getKind(), "running"));
        }));
        states.put("evicted for a reclaim", edit(stored, o -> {
            o.withObjectProperty("metadata").withObjectProperty("annotations").put(Annotations.QUOTA_GROUP, "root.a")
                    .put(Annotations.ADMITTED_AT, "2024-06-14T09:13:00Z").put(Annotations.EVICTED, "reclaim")
                    .put(Annotations.EVICTED_FOR, "TFJob/team-a/train-1")
                    .put(Annotations.RECLAIMED_AT, "2024-06-14T09:20:00Z,2024-06-14T09:40:00Z")
                    .put(Annotations.TIMED_OUT_AT, "");
            sign(o);
            if (o.get("spec") instanceof ObjectNode spec) {
                // as the eviction patch leaves it: the kind's stop mark set (a Kubeflow job's runPolicy.suspend)
                (job instanceof CustomResource<?, ?> && !"Workflow".equals(job.getKind())
                        ? spec.withObjectProperty("runPolicy") : spec).put("suspend", true);
            }
            o.set("status", status(job.getKind(), "running"));
        }));
        states.put("with run-time fields", edit(stored, o -> {
            // issue 30: what the start-time estimates read, and a finished run's end
            o.withObjectProperty("metadata").withObjectProperty("annotations").put(Annotations.EXPECTED_DURATION, "1h30m");
            deadline(job, o, com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.numberNode(3600));
            o.set("status", status(job.getKind(), "failed"));
        }));
        states.put("with run-time fields that do not read", edit(stored, o -> {
            o.withObjectProperty("metadata").withObjectProperty("annotations")
                    .put(Annotations.EXPECTED_DURATION, "9".repeat(10_000) + "h");
            deadline(job, o, com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.textNode("3600"));
            o.set("status", status(job.getKind(), "succeeded"));
            if (o.get("status") instanceof ObjectNode status) {
                status.put("completionTime", "x".repeat(10_000)).put("finishedAt", "yesterday");
            }
        }));
        states.put("with a bad expected duration and a huge deadline", edit(stored, o -> {
            o.withObjectProperty("metadata").withObjectProperty("annotations").put(Annotations.EXPECTED_DURATION, "-1h");
            deadline(job, o, com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.numberNode(new java.math.BigInteger("9".repeat(40))));
        }));
        states.put("queued, started before", edit(stored, o -> o.set("status", status(job.getKind(), "running"))));
        states.put("queued, status written", edit(stored, o -> o.set("status", status(job.getKind(), "queued"))));
        states.put("succeeded", edit(stored, o -> o.set("status", status(job.getKind(), "succeeded"))));
        states.put("failed", edit(stored, o -> o.set("status", status(job.getKind(), "failed"))));
        states.put("being deleted", edit(stored, o -> o.withObjectProperty("metadata").put("deletionTimestamp", "2024-06-14T10:00:00Z")
                .putArray("finalizers").add("example.com/keep")));
        states.put("non-preemptible in a named group", edit(stored, o -> o.withObjectProperty("metadata").withObjectProperty("labels")
                .put(Annotations.PREEMPTIBLE_LABEL, "false").put(Annotations.QUOTA_NAME_LABEL, "team-b")));
        return states;
    }

    /** Sets the kind's activeDeadlineSeconds: a Kubeflow job's in {@code spec.runPolicy}, else in {@code spec}. */
    private static void deadline(HasMetadata job, ObjectNode o, JsonNode value) {
        if (job instanceof Job && !value.isNumber()) {
            return; // a batch Job's is typed: the API server takes an integer only
        }
        if (o.get("spec") instanceof ObjectNode spec) {
            (job instanceof CustomResource<?, ?> && !"Workflow".equals(job.getKind())
                    ? spec.withObjectProperty("runPolicy") : spec).set("activeDeadlineSeconds",
                    job instanceof Job && !value.canConvertToLong() ? com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.numberNode(-5)
                            : value);
        }
    }

    private static HasMetadata edit(HasMetadata job, java.util.function.Consumer<ObjectNode> change) {
        ObjectNode node = JSON.convertValue(job, ObjectNode.class);
        change.accept(node);
        return JSON.convertValue(node, job.getClass());
    }

    /** What a real API server adds: identity, version, managedFields, kubectl's annotation, labels, an owner. */
    private static void asStored(ObjectNode o) {
        ObjectNode applied = o.deepCopy();
        ObjectNode meta = o.withObjectProperty("metadata");
        meta.put("uid", "0e6a3f58-5b0c-4f5e-9d55-" + String.format("%012d", Math.abs(o.toString().hashCode())));
        meta.put("resourceVersion", "4711");
        meta.put("generation", 2);
        meta.put("creationTimestamp", "2024-06-14T09:12:33Z");
        if (!meta.hasNonNull("namespace")) {
            meta.put("namespace", "default");
        }
        if (!meta.hasNonNull("name")) {
            meta.put("name", "generated-x7k2p");
        }
        meta.withObjectProperty("annotations").put(Pruning.LAST_APPLIED, applied.toString() + "\n").put("owner", "alice@example.com");
        meta.withObjectProperty("labels").put("app.kubernetes.io/name", "train").put(Annotations.QUOTA_NAME_LABEL, "team-a");
        meta.putArray("ownerReferences").addObject().put("apiVersion", "example.com/v1").put("kind", "Pipeline")
                .put("name", "p").put("uid", "1234").put("controller", true);
        ObjectNode entry = meta.putArray("managedFields").addObject();
        entry.put("manager", "kubectl-client-side-apply").put("operation", "Update").put("fieldsType", "FieldsV1")
                .put("time", "2024-06-14T09:12:33Z").set("fieldsV1", applied.path("spec").deepCopy());
    }

    /** A status as the kind's controller writes it: queued (not started), running, succeeded or failed. */
    private static JsonNode status(String kind, String state) {
        String yaml = switch (kind) {
            case "Job" -> switch (state) {
                case "queued" -> """
                        terminating: 1
                        conditions:
                          - {type: Suspended, status: "True", reason: JobSuspended, message: Job suspended,
                             lastProbeTime: "2024-06-14T09:12:34Z", lastTransitionTime: "2024-06-14T09:12:34Z"}
                        """;
                case "running" -> """
                        startTime: "2024-06-14T09:13:01Z"
                        active: 2
                        ready: 1
                        terminating: 0
                        uncountedTerminatedPods: {}
                        conditions:
                          - {type: Suspended, status: "False", reason: JobResumed, message: Job resumed,
                             lastProbeTime: "2024-06-14T09:13:01Z", lastTransitionTime: "2024-06-14T09:13:01Z"}
                          - {type: Complete, status: "False", lastProbeTime: "2024-06-14T09:13:01Z"}
                        """;
                case "succeeded" -> """
                        startTime: "2024-06-14T09:13:01Z"
                        completionTime: "2024-06-14T10:13:01Z"
                        succeeded: 4
                        conditions:
                          - {type: SuccessCriteriaMet, status: "True", lastTransitionTime: "2024-06-14T10:13:01Z"}
                          - {type: Complete, status: "True", lastTransitionTime: "2024-06-14T10:13:01Z"}
                        """;
                default -> """
                        startTime: "2024-06-14T09:13:01Z"
                        failed: 4
                        conditions:
                          - {type: FailureTarget, status: "True", reason: BackoffLimitExceeded}
                          - {type: Failed, status: "True", reason: BackoffLimitExceeded, message: too many failures,
                             lastTransitionTime: "2024-06-14T09:40:00Z"}
                        """;
            };
            case "Workflow" -> switch (state) {
                // Argo marks a new workflow Running, start time included, before it honours spec.suspend
                case "queued" -> """
                        phase: Running
                        startedAt: "2024-06-14T09:12:34Z"
                        progress: 0/0
                        """;
                case "running" -> """
                        phase: Running
                        startedAt: "2024-06-14T09:12:34Z"
                        progress: 0/2
                        nodes:
                          w-1: {id: w-1, name: w, type: DAG, phase: Running, children: [w-2], startedAt: "2024-06-14T09:13:00Z"}
                          w-2: {id: w-2, name: w.A, type: Pod, phase: Pending, templateName: echo}
                        """;
                case "succeeded" -> """
                        phase: Succeeded
                        finishedAt: "2024-06-14T10:00:00Z"
                        nodes: {w-1: {phase: Succeeded}}
                        """;
                default -> """
                        phase: Error
                        message: pod deleted
                        finishedAt: "2024-06-14T09:40:00Z"
                        nodes: [{phase: Error}]
                        """;
            };
            default -> switch (state) {
                case "queued" -> """
                        conditions:
                          - {type: Created, status: "True", reason: JobCreated, message: created, lastUpdateTime: "2024-06-14T09:12:34Z"}
                          - {type: Queuing, status: "True", reason: JobEnqueued, message: Job Enqueued}
                        replicaStatuses: {}
                        """;
                case "running" -> """
                        startTime: "2024-06-14T09:13:01Z"
                        conditions:
                          - {type: Created, status: "True", reason: JobCreated}
                          - {type: Queuing, status: "False", reason: JobAdmitted, message: Job admitted by kube-queue}
                          - {type: Running, status: "True", reason: JobRunning}
                        replicaStatuses: {Worker: {active: 2}, PS: {active: 1}}
                        """;
                case "succeeded" -> """
                        startTime: "2024-06-14T09:13:01Z"
                        completionTime: "2024-06-14T10:13:01Z"
                        conditions:
                          - {type: Running, status: "False"}
                          - {type: Succeeded, status: "True", reason: JobSucceeded}
                        """;
                default -> """
                        startTime: "2024-06-14T09:13:01Z"
                        conditions:
                          - {type: Failed, status: "True", reason: JobFailed, message: worker 1 failed,
                             lastTransitionTime: "2024-06-14T09:40:00Z"}
                        """;
            };
        };
        return JSON.unmarshal(yaml, JsonNode.class);
    }

    // ---- what is read ------------------------------------------------------------------------------------------

    /**
     * Every answer kube-queue and JOSDK read off a job: each {@link JobKind} method, the {@link JobDirectory.Entry},
     * the metadata {@link JobFeed} and {@link io.kubequeue.events.EventRecorder} read, and what JOSDK checks before
     * it reconciles (deletion, finalizers). A read that throws answers with its exception.
     */
    private static Map<String, Object> reads(JobKind<HasMetadata> kind, HasMetadata job) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("suspendMarks", answer(() -> kind.suspendMarks(job)));
        r.put("held", answer(() -> kind.held(job)));
        r.put("started", answer(() -> kind.started(job)));
        r.put("finished", answer(() -> kind.finished(job)));
        r.put("request", answer(() -> kind.request(job)));
        r.put("request priced with pod defaults", answer(() -> kind.request(job, PRICED)));
        r.put("podLabels", answer(() -> kind.podLabels(job)));
        r.put("priority", answer(() -> kind.priority(job)));
        r.put("entry", answer(() -> JobDirectory.Entry.of(kind, job, kind.suspendMarks(job))));
        r.put("ignoredMarkReason", answer(() -> JobFeed.ignoredMarkReason(kind, kind.suspendMarks(job))));
        var meta = job.getMetadata();
        Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
        Map<String, String> annotations = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
        r.put("apiVersion/kind", job.getApiVersion() + " " + job.getKind());
        r.put("namespace/name/uid/resourceVersion", List.of(String.valueOf(meta.getNamespace()), String.valueOf(meta.getName()),
                String.valueOf(meta.getUid()), String.valueOf(meta.getResourceVersion())));
        r.put("creationTimestamp", String.valueOf(meta.getCreationTimestamp()));
        r.put("quota name label", String.valueOf(labels.get(Annotations.QUOTA_NAME_LABEL)));
        r.put("preemptible label", String.valueOf(labels.get(Annotations.PREEMPTIBLE_LABEL)));
        r.put("admission record", List.of(annotations.containsKey(Annotations.QUOTA_GROUP),
                String.valueOf(annotations.get(Annotations.QUOTA_GROUP)),
                String.valueOf(annotations.get(Annotations.ADMITTED_AT))));
        r.put("annotation keys", new java.util.TreeSet<>(annotations.keySet()));
        r.put("signed set", answer(() -> TrustedRecords.signatures().read(meta.getUid(), meta.getAnnotations())));
        r.put("eviction marks", Stream.of(Annotations.EVICTED, Annotations.EVICTED_FOR, Annotations.RECLAIMED_AT,
                Annotations.TIMED_OUT_AT).map(k -> String.valueOf(annotations.get(k))).toList());
        if (kind instanceof StopsWhenSuspended<?>) {
            @SuppressWarnings("unchecked")
            StopsWhenSuspended<HasMetadata> stops = (StopsWhenSuspended<HasMetadata>) kind;
            r.put("stopMark", answer(() -> stops.stopMark(job)));
        }
        if (kind instanceof CountsActivePods<?>) {
            @SuppressWarnings("unchecked")
            CountsActivePods<HasMetadata> counts = (CountsActivePods<HasMetadata>) kind;
            r.put("podsActive", answer(() -> counts.podsActive(job)));
        }
        r.put("pod-ran mark", String.valueOf(annotations.get(Annotations.POD_RAN)));
        r.put("expected duration", RunTimeFields.expectedDuration(annotations.get(Annotations.EXPECTED_DURATION)));
        if (kind instanceof TellsRunTime<?>) {
            @SuppressWarnings("unchecked")
            TellsRunTime<HasMetadata> tells = (TellsRunTime<HasMetadata>) kind;
            r.put("activeDeadline", answer(() -> tells.activeDeadline(job)));
            r.put("completionTime", answer(() -> tells.completionTime(job)));
        }
        r.put("JOSDK: marked for deletion", job.isMarkedForDeletion());
        r.put("JOSDK: finalizers", job.getFinalizers());
        r.put("JOSDK: generation", String.valueOf(meta.getGeneration()));
        if (kind instanceof KubeflowJobKind<?>) {
            @SuppressWarnings("unchecked")
            CustomResource<JsonNode, JsonNode> cr = (CustomResource<JsonNode, JsonNode>) job;
            r.put("queuingCondition", answer(() -> String.valueOf(KubeflowJobKind.queuingCondition(cr))));
        }
        if (kind instanceof ShowsQueuingCondition<?> shows) {
            @SuppressWarnings({"unchecked", "rawtypes"})
            ShowsQueuingCondition<CustomResource<JsonNode, JsonNode>> k = (ShowsQueuingCondition) shows;
            @SuppressWarnings("unchecked")
            CustomResource<JsonNode, JsonNode> cr = (CustomResource<JsonNode, JsonNode>) job;
            r.put("showsQueuing", answer(() -> k.showsQueuing(cr)));
            r.put("queuingStatus", answer(() -> String.valueOf(k.queuingStatus(cr))));
        }
        return r;
    }

    private static Object answer(Supplier<?> read) {
        try {
            return read.get();
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    // ---- the tests ---------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void everyReadAnswersTheSameOnTheCachedCopy(String where, HasMetadata sample) {
        JobKind<HasMetadata> kind = kindOf(sample).orElseThrow();
        states(sample).forEach((state, job) -> {
            String before = JSON.asJson(job);
            HasMetadata copy = kind.pruned(job);
            assertEquals(before, JSON.asJson(job), state + ": pruning changed the job it was given");
            Map<String, Object> expected = reads(kind, job);
            assertEquals(expected, reads(kind, copy), state + ": the cached copy reads differently");
            // JOSDK's default copy before a reconcile is a JSON round trip (kube-queue turns it off: NoCopyOperatorProducer)
            assertEquals(expected, reads(kind, JSON.clone(copy)), state + ": the clone of the copy reads differently");
            assertEquals(expected, reads(kind, kind.pruned(copy)), state + ": pruning a copy again changes it");
        });
    }

    @Test
    void theCopyOfARealisticJobIsASmallFractionOfIt() {
        Job job = (Job) Parse.resource("/jobs/realistic-suspended-job.yaml").get(0);
        Job copy = new BatchJobKind().pruned(job);
        int full = JSON.asJson(job).length();
        int pruned = JSON.asJson(copy).length();
        assertTrue(pruned * 10 < full, "copy " + pruned + " B of " + full + " B of JSON: " + JSON.asJson(copy));
        assertNull(copy.getMetadata().getManagedFields());
        assertEquals("", copy.getMetadata().getAnnotations().get(Pruning.LAST_APPLIED), "the key stays, not its value");
        assertEquals("true", copy.getMetadata().getAnnotations().get(SuspendMark.ANNOTATION_KEY));
        assertEquals(Map.of(Annotations.QUOTA_NAME_LABEL, "team-a-gpu"), copy.getMetadata().getLabels());
        var container = copy.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertNull(container.getImage());
        assertNull(container.getEnv());
        assertNull(container.getCommand());
        assertNull(copy.getSpec().getTemplate().getSpec().getVolumes());
        assertNull(copy.getStatus(), "a Suspended condition is not read");
    }

    @Test
    void aWorkflowsNodesAreKeptAsOneEmptyEntry() {
        HasMetadata running = states(Parse.resource("/upstream/argo-workflows_steps.yaml").get(0)).get("admitted, running");
        JsonNode nodes = JSON.convertValue(new WorkflowKind().pruned((io.kubequeue.job.argo.Workflow) running),
                JsonNode.class).path("status").path("nodes");
        assertEquals(1, nodes.size());
        assertEquals(0, nodes.elements().next().size());
    }

    @Test
    void aPodIsCachedWithWhatItsUsageAndOwnerNeed() {
        Job job = (Job) Parse.resource("/jobs/realistic-suspended-job.yaml").get(0);
        Pod pod = new PodBuilder().withMetadata(job.getSpec().getTemplate().getMetadata()).editMetadata()
                .withName("train-resnet-0042-0-x2k9").withNamespace("team-a").withUid("9f1c").withResourceVersion("8")
                .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName("train-resnet-0042")
                .withUid(job.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata()
                .withSpec(job.getSpec().getTemplate().getSpec())
                .withNewStatus().withPhase("Running").withHostIP("10.0.0.4").addNewContainerStatus().withName("trainer")
                .withImage("registry.example.com/vision/resnet-trainer:2024.06.1").withReady(true).endContainerStatus()
                .endStatus().build();
        Set<String> keys = Set.of("controller-uid", "training.kubeflow.org/job-name");
        Pod copy = Pruning.pod(pod, keys);
        assertEquals(PodRequests.of(pod.getSpec(), "spec"), PodRequests.of(copy.getSpec(), "spec"));
        assertEquals(Map.of("controller-uid", job.getMetadata().getUid()), copy.getMetadata().getLabels());
        assertEquals(pod.getMetadata().getOwnerReferences(), copy.getMetadata().getOwnerReferences());
        assertEquals(List.of(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), pod.getMetadata().getUid(),
                        pod.getMetadata().getResourceVersion(), "Running"),
                List.of(copy.getMetadata().getNamespace(), copy.getMetadata().getName(), copy.getMetadata().getUid(),
                        copy.getMetadata().getResourceVersion(), copy.getStatus().getPhase()));
        assertNull(copy.getStatus().getContainerStatuses());
        assertTrue(JSON.asJson(copy).length() * 4 < JSON.asJson(pod).length());
    }

    /** The admission timeout's read of a pod (whether it ran) answers the same on the cached copy. */
    @Test
    void whetherAPodRanReadsTheSameOnItsCopy() {
        for (String phase : java.util.Arrays.asList("Pending", "Running", "Succeeded", "Failed", "Unknown", null)) {
            for (boolean deleting : List.of(false, true)) {
                Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("team")
                        .withDeletionTimestamp(deleting ? "2026-12-01T08:00:00Z" : null).endMetadata()
                        .withNewStatus().withPhase(phase).withHostIP("10.0.0.4").endStatus().build();
                assertEquals(JobPods.ran(pod), JobPods.ran(Pruning.pod(pod, Set.of())), phase + ", deleting " + deleting);
            }
        }
        assertTrue(JobPods.ran(Pruning.pod(new PodBuilder().withNewMetadata().withName("p").endMetadata()
                .withNewStatus().withPhase("Running").endStatus().build(), Set.of())));
    }

    @Test
    void theStoreKeepsCopiesAndAnObjectItCannotPruneWhole() {
        Job job = (Job) Parse.resource("/jobs/realistic-suspended-job.yaml").get(0);
        PruningItemStore<Job> store = new PruningItemStore<>(new BatchJobKind()::pruned);
        String key = store.getKey(job);
        assertEquals("team-a/train-resnet-0042", key);
        assertNull(store.put(key, job));
        Job cached = store.get(key);
        assertNull(cached.getMetadata().getManagedFields());
        assertEquals(job.getMetadata().getResourceVersion(), cached.getMetadata().getResourceVersion());
        assertSame(cached, store.put(key, job), "put answers the copy it replaces");
        assertEquals(List.of(key), store.keySet().toList());
        assertEquals(1, store.size());
        assertTrue(store.isFullState(), "initial adds wait for the whole list and carry the copies");
        assertFalse(store.values().toList().isEmpty());

        UnaryOperator<Job> broken = j -> {
            throw new IllegalStateException("cannot");
        };
        PruningItemStore<Job> failing = new PruningItemStore<>(broken);
        failing.put(key, job);
        assertSame(job, failing.get(key));
        assertSame(job, failing.remove(key));
        assertEquals(0, failing.size());
    }

    /**
     * The store holds copies by namespace and name (no key string of its own, issue 27): namesakes in two namespaces
     * stay apart, a removal leaves the other, and the keys it lists are fabric8's {@code namespace/name}.
     */
    @Test
    void theStoreHoldsNamesakesOfTwoNamespacesApart() {
        PruningItemStore<Job> store = new PruningItemStore<>(new BatchJobKind()::pruned);
        Job a = new JobBuilder().withNewMetadata().withNamespace("team-a").withName("j").withResourceVersion("1")
                .endMetadata().build();
        Job b = new JobBuilder().withNewMetadata().withNamespace("team-b").withName("j").withResourceVersion("2")
                .endMetadata().build();
        store.put(store.getKey(a), a);
        store.put(store.getKey(b), b);
        assertEquals(2, store.size());
        assertEquals(Set.of("team-a/j", "team-b/j"), store.keySet().collect(java.util.stream.Collectors.toSet()));
        assertEquals("1", store.get("team-a/j").getMetadata().getResourceVersion());
        assertEquals("2", store.get("team-b/j").getMetadata().getResourceVersion());
        assertNull(store.get("team-c/j"));
        assertEquals("1", store.remove("team-a/j").getMetadata().getResourceVersion());
        assertNull(store.remove("team-a/j"), "gone");
        assertNull(store.get("team-a/j"));
        assertEquals("2", store.get("team-b/j").getMetadata().getResourceVersion());
        assertEquals(List.of("team-b/j"), store.keySet().toList());
        assertEquals(1, store.values().count());
    }

    /**
     * Each read of a job is a new parse with strings of its own: the store's key and the delivered object's name and
     * namespace are the one interned instance whatever read delivered them (fabric8's namespace index keeps the key of
     * each update, the store the first: issue 27), and the object reads the same.
     */
    @Test
    void theKeyAndTheDeliveredIdentityAreOneInstancePerJob() {
        PruningItemStore<Job> store = new PruningItemStore<>(new BatchJobKind()::pruned);
        Job first = (Job) Parse.resource("/jobs/realistic-suspended-job.yaml").get(0);
        Job second = (Job) Parse.resource("/jobs/realistic-suspended-job.yaml").get(0);
        String before = JSON.asJson(second);
        assertNotSame(first.getMetadata().getNamespace(), second.getMetadata().getNamespace(), "two parses");
        assertSame(store.getKey(first), store.getKey(second));
        store.put(store.getKey(first), first);
        store.put(store.getKey(second), second);
        assertSame(first.getMetadata().getNamespace(), second.getMetadata().getNamespace());
        assertSame(first.getMetadata().getName(), second.getMetadata().getName());
        assertSame("team-a".intern(), second.getMetadata().getNamespace());
        assertEquals(before, JSON.asJson(second), "the delivered object reads the same");
    }

    /**
     * Why a controller that watches several namespaces keeps fabric8's stores: JOSDK gives its one configured store to
     * each namespace's informer, and an informer's (re-)list removes from its store, as deleted, whatever that list
     * does not show, the other namespace's jobs included.
     */
    @Test
    void twoInformersSharingOneStoreDeleteEachOthersJobs() throws Exception {
        KubernetesMockServer server = StrictApiServer.started();
        try (KubernetesClient client = server.createClient()) {
            for (String ns : List.of("team-a", "team-c")) {
                client.batch().v1().jobs().inNamespace(ns).resource(new JobBuilder().withNewMetadata().withName("j")
                        .endMetadata().withNewSpec().withSuspend(true).endSpec().build()).create();
            }
            PruningItemStore<Job> shared = new PruningItemStore<>(new BatchJobKind()::pruned);
            List<String> deleted = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<SharedIndexInformer<Job>> informers = new ArrayList<>();
            for (String ns : List.of("team-a", "team-c")) {
                SharedIndexInformer<Job> informer = client.batch().v1().jobs().inNamespace(ns).runnableInformer(0);
                informer.itemStore(shared);
                informer.addEventHandler(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Job job) {
                    }

                    @Override
                    public void onUpdate(Job before, Job job) {
                    }

                    @Override
                    public void onDelete(Job job, boolean finalStateUnknown) {
                        deleted.add(Cache.metaNamespaceKeyFunc(job));
                    }
                });
                informers.add(informer);
                informer.start().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> !deleted.isEmpty());
            // a delete event for a job that exists: kube-queue would release its quota
            assertEquals(List.of("team-a/j"), deleted, "team-a/j exists, yet team-c's list deleted it from the store");
            informers.forEach(SharedIndexInformer::stop);
        } finally {
            server.destroy();
        }
    }

    @Test
    void onlyAnInformerOfItsOwnPrunes() {
        assertTrue(JobReconciler.prunesCache(Set.of()), "every namespace: one informer");
        assertTrue(JobReconciler.prunesCache(Set.of("team-a")), "one namespace: one informer");
        assertFalse(JobReconciler.prunesCache(Set.of("team-a", "team-c")), "JOSDK would share one store between two");
    }

    /**
     * Two reads of one job (start-up's list and the informer's, or a re-list) are two parses: every string is its
     * own instance. The cached copy keeps the job's name, uid and creation time interned, so that kube-queue's state
     * built from either read (its keys, its records of the job) and the cache hold one instance of each (issue 27,
     * memory per pending job: three copies of a name, two of a uid, before).
     */
    @Test
    void copiesOfTwoReadsShareTheJobsIdentityStrings() {
        Supplier<Job> read = () -> new JobBuilder().withNewMetadata()
                .withName(new String("train-0001".toCharArray())).withNamespace(new String("team-a".toCharArray()))
                .withUid(new String("3f1b2c4d-0000-4000-8000-000000000001".toCharArray()))
                .withResourceVersion(new String("41".toCharArray()))
                .withCreationTimestamp(new String("2026-12-02T03:25:10Z".toCharArray())).endMetadata()
                .withNewSpec().withSuspend(true).endSpec().build();
        Job first = new BatchJobKind().pruned(read.get());
        Job second = new BatchJobKind().pruned(read.get());
        assertSame(first.getMetadata().getName(), second.getMetadata().getName());
        assertSame(first.getMetadata().getUid(), second.getMetadata().getUid());
        assertSame(first.getMetadata().getCreationTimestamp(), second.getMetadata().getCreationTimestamp());
        assertSame(first.getMetadata().getNamespace(), second.getMetadata().getNamespace());
        assertEquals("41", second.getMetadata().getResourceVersion());
    }

    /**
     * A finished Job's copy stays cached while the Job exists: jobs that finished alike share their kept conditions,
     * and jobs started in the same second their start time (issue 27: memory per job), and read as before.
     */
    @Test
    void finishedJobsShareTheirConditionsAndStartTime() {
        Supplier<Job> finished = () -> new JobBuilder().withNewMetadata().withName("done").withNamespace("team-a")
                .endMetadata().withNewSpec().endSpec().withNewStatus()
                .withStartTime(new String("2026-12-02T03:25:10Z".toCharArray())).withSucceeded(1)
                .addNewCondition().withType("SuccessCriteriaMet").withStatus("True").endCondition()
                .addNewCondition().withType(new String("Complete".toCharArray()))
                .withStatus(new String("True".toCharArray()))
                .withLastTransitionTime(new String("2026-12-02T03:26:00Z".toCharArray())).endCondition()
                .endStatus().build();
        BatchJobKind kind = new BatchJobKind();
        Job first = kind.pruned(finished.get());
        Job second = kind.pruned(finished.get());
        assertSame(first.getStatus().getConditions(), second.getStatus().getConditions());
        assertSame(first.getStatus().getStartTime(), second.getStatus().getStartTime());
        assertEquals("2026-12-02T03:25:10Z", second.getStatus().getStartTime());
        assertEquals(1, second.getStatus().getConditions().size());
        assertTrue(kind.finished(second));
        assertTrue(kind.started(second));
    }

    /** A Job of one container asking for {@code cpu}, with a template label of its own (not kept). */
    private static Job jobAsking(String name, String cpu) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace("team-a").endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewMetadata().addToLabels("run", name)
                .endMetadata().withNewSpec().addNewContainer().withName("main").withImage("trainer:" + name)
                .withNewResources().addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity(cpu))
                .addToRequests("memory", new io.fabric8.kubernetes.api.model.Quantity("1Gi")).endResources()
                .endContainer().withRestartPolicy("Never").endSpec().endTemplate().endSpec().build();
    }

    @Test
    void jobsOfOneTemplateShareOnePrunedTemplate() {
        Job first = new BatchJobKind().pruned(jobAsking("train-a", "1500m"));
        Job second = new BatchJobKind().pruned(jobAsking("train-b", "1500m"));
        Job other = new BatchJobKind().pruned(jobAsking("train-c", "2500m"));
        assertSame(first.getSpec().getTemplate(), second.getSpec().getTemplate());
        assertSame(first.getSpec().getTemplate().getSpec(), second.getSpec().getTemplate().getSpec());
        assertFalse(first.getSpec().getTemplate() == other.getSpec().getTemplate());
        assertEquals("2500m", other.getSpec().getTemplate().getSpec().getContainers().get(0).getResources()
                .getRequests().get("cpu").toString());
        // so is the spec of jobs of one template and size (issue 27); the jobs' own parts stay their own
        assertSame(first.getSpec(), second.getSpec());
        assertFalse(first.getSpec() == other.getSpec());
        assertFalse(first.getMetadata() == second.getMetadata());
        assertEquals("train-b", second.getMetadata().getName());
        Job larger = jobAsking("train-d", "1500m");
        larger.getSpec().setParallelism(3);
        Job largerCopy = new BatchJobKind().pruned(larger);
        assertFalse(first.getSpec() == largerCopy.getSpec(), "another size");
        assertEquals(3, largerCopy.getSpec().getParallelism());
        assertSame(first.getSpec().getTemplate(), largerCopy.getSpec().getTemplate());
    }

    @Test
    void aTemplateWithAQuantityThatCannotBeReadIsNotShared() {
        Job first = new BatchJobKind().pruned(jobAsking("bad-a", "lots"));
        Job second = new BatchJobKind().pruned(jobAsking("bad-b", "lots"));
        assertFalse(first.getSpec().getTemplate().getSpec() == second.getSpec().getTemplate().getSpec());
        assertFalse(first.getSpec() == second.getSpec(), "nor is the job's spec that holds it");
        assertEquals("lots", second.getSpec().getTemplate().getSpec().getContainers().get(0).getResources()
                .getRequests().get("cpu").toString());
    }

    /**
     * Issue 29, item 2: the cache keeps a job's controller (its kind and name: an MPIJob holds only the launcher named
     * after it), and nothing else of its owners.
     */
    @Test
    void aJobsControllerKindIsKeptAndNothingElseOfItsOwners() {
        io.fabric8.kubernetes.api.model.ObjectMeta meta = new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName("pi-launcher").addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap")
                .withName("other").withUid("u1").endOwnerReference()
                .addNewOwnerReference().withApiVersion("kubeflow.org/v2beta1").withKind("MPIJob").withName("pi")
                .withUid("u2").withController(true).withBlockOwnerDeletion(true).endOwnerReference().build();
        List<io.fabric8.kubernetes.api.model.OwnerReference> kept = Pruning.jobMetadata(meta).getOwnerReferences();
        assertEquals(1, kept.size());
        assertEquals("MPIJob", kept.get(0).getKind());
        assertEquals("kubeflow.org/v2beta1", kept.get(0).getApiVersion());
        assertEquals(Boolean.TRUE, kept.get(0).getController());
        assertEquals("pi", kept.get(0).getName());
        assertNull(kept.get(0).getUid(), "uids are not kept");
        assertNull(Pruning.jobMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("alone")
                .build()).getOwnerReferences(), "no owner, no list");
    }
}
