package io.kubequeue.job.declared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.job.kubeflow.KubeflowJobKind;
import io.kubequeue.resources.ContainerDefaults;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;

/**
 * The shipped presets ({@code helm/kube-queue/presets/*.yaml}, one {@link QueuedKind} per kind) against the
 * upstream samples (src/test/resources/upstream, see src/test/resources/crds/README.md): each is a valid declaration,
 * and each charges its kind's sample what the kind's pods ask for, figured by hand here (SOURCES of the counts: the
 * "Job kinds" table of shared/crds/SOURCES.md). Most samples set no resources, so they are priced in a namespace
 * whose LimitRange gives each container {@code cpu: 1} ({@link #CPU_1}): one cpu per container is one per pod.
 */
class PresetsTest {

    private static final long GI = 1L << 30;
    private static final Path PRESETS = Path.of("helm", "kube-queue", "presets");
    private static final List<String> NAMES = List.of("appwrapper", "jaxjob", "jobset", "paddlejob", "raycluster",
            "rayjob", "trainjob", "xgboostjob");
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    /** A namespace whose LimitRange gives each container a request of one cpu. */
    private static final PodDefaults CPU_1 = new PodDefaults(
            new ContainerDefaults(Map.of("cpu", new Quantity("1")), Map.of()), Map.of());

    private static QueuedKind declaration(String name) {
        try {
            return SERIALIZATION.unmarshal(Files.readString(PRESETS.resolve(name + ".yaml")), QueuedKind.class);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static DeclaredJobKind kind(String name) {
        QueuedKind declaration = declaration(name);
        return DeclaredJobKind.of(declaration.getMetadata().getName(), declaration.getSpec(), SERIALIZATION);
    }

    /** The first object of an upstream sample (trainer_03's second document holds only comments). */
    static GenericKubernetesResource sample(String file) {
        try (InputStream in = PresetsTest.class.getResourceAsStream("/upstream/" + file)) {
            assertTrue(in != null, "no sample " + file);
            String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Object read = SERIALIZATION.unmarshal(yaml);
            if (read instanceof List<?> list) {
                read = list.get(0);
            }
            return (GenericKubernetesResource) read;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** A copy of {@code job} changed as JSON. */
    static GenericKubernetesResource edit(GenericKubernetesResource job, Consumer<ObjectNode> change) {
        ObjectNode json = SERIALIZATION.convertValue(job, ObjectNode.class);
        change.accept(json);
        return SERIALIZATION.convertValue(json, GenericKubernetesResource.class);
    }

    private static GenericKubernetesResource withStatus(GenericKubernetesResource job, String status) {
        return edit(job, json -> json.set("status", SERIALIZATION.unmarshal(status, JsonNode.class)));
    }

    private static ObjectNode spec(ObjectNode json) {
        return (ObjectNode) json.get("spec");
    }

    // ---- every preset -------------------------------------------------------------------------------------------

    @Test
    void thePresetsAreExactlyTheFilesTheChartReads() throws IOException {
        try (Stream<Path> files = Files.list(PRESETS)) {
            assertEquals(new TreeSet<>(NAMES.stream().map(n -> n + ".yaml").toList()),
                    new TreeSet<>(files.map(p -> p.getFileName().toString()).toList()),
                    "the chart reads presets/<name>.yaml by these names; LeaderWorkerSet has no suspend field");
        }
    }

    @Test
    void everyPresetIsOneValidQueuedKindNamedPluralDotGroup() throws IOException {
        for (String name : NAMES) {
            String text = Files.readString(PRESETS.resolve(name + ".yaml"));
            assertTrue(text.startsWith("# "), name + ": opens with a comment saying what it cannot express");
            Object read = SERIALIZATION.unmarshal(text);
            assertTrue(read instanceof GenericKubernetesResource, name + ": one object, not " + read.getClass());
            QueuedKind declaration = SERIALIZATION.unmarshal(text, QueuedKind.class);
            assertEquals("kube-queue.io/v1alpha1", declaration.getApiVersion(), name);
            assertEquals("QueuedKind", declaration.getKind(), name);
            QueuedKindSpec spec = declaration.getSpec();
            assertEquals(spec.plural + "." + spec.group, declaration.getMetadata().getName(), name);
            assertEquals(Map.of("app.kubernetes.io/part-of", "kube-queue"), declaration.getMetadata().getLabels(),
                    name);
            DeclaredJobKind kind = DeclaredJobKind.of(declaration.getMetadata().getName(), spec, SERIALIZATION);
            assertEquals(name, kind.kind().toLowerCase(java.util.Locale.ROOT), "presets/<kind in lower case>.yaml");
            assertTrue(kind.stopMark(new GenericKubernetesResource()).isPresent(),
                    name + ": each of these controllers stops a running job held again");
        }
    }

    @Test
    void thePresetsDeclareTheKindsOfTheSamples() {
        assertEquals("jobset.x-k8s.io/v1alpha2 JobSet", id(kind("jobset")));
        assertEquals("ray.io/v1 RayJob", id(kind("rayjob")));
        assertEquals("ray.io/v1 RayCluster", id(kind("raycluster")));
        assertEquals("trainer.kubeflow.org/v1alpha1 TrainJob", id(kind("trainjob")));
        assertEquals("workload.codeflare.dev/v1beta2 AppWrapper", id(kind("appwrapper")));
        assertEquals("kubeflow.org/v1 PaddleJob", id(kind("paddlejob")));
        assertEquals("kubeflow.org/v1 XGBoostJob", id(kind("xgboostjob")));
        assertEquals("kubeflow.org/v1 JAXJob", id(kind("jaxjob")));
        for (var entry : Map.of("jobset", "jobset_paralleljobs.yaml", "rayjob", "kuberay_ray-job.kueue-toy-sample.yaml",
                "raycluster", "kuberay_ray-cluster.sample.yaml", "trainjob", "trainer_03-kueue-integration.yaml",
                "appwrapper", "appwrapper_wrapped-job.yaml", "paddlejob", "training-operator_paddlepaddle_simple-cpu.yaml",
                "xgboostjob", "training-operator_xgboostjob_v1_rabit_test.yaml",
                "jaxjob", "training-operator_jax_demo.yaml").entrySet()) {
            GenericKubernetesResource sample = sample(entry.getValue());
            assertEquals(id(kind(entry.getKey())), sample.getApiVersion() + " " + sample.getKind(), entry.getKey());
        }
    }

    private static String id(DeclaredJobKind kind) {
        return kind.apiVersion() + " " + kind.kind();
    }

    // ---- JobSet -------------------------------------------------------------------------------------------------

    @Test
    void jobSet() {
        DeclaredJobKind kind = kind("jobset");
        GenericKubernetesResource parallel = sample("jobset_paralleljobs.yaml");
        // workers: replicas 1 (default) × parallelism 4 (completions 4) × (cpu 1) + driver: 1 × 1 × (cpu 1) = 5 cpu
        assertEquals(Resources.of("cpu", 5000L), kind.request(parallel, CPU_1));
        assertEquals(Resources.NONE, kind.request(parallel), "the sample sets no resources");
        // leader: replicas 1 × parallelism 1 × (cpu 1) + workers: 1 × 2 (completions 2) × (cpu 1) = 3 cpu
        assertEquals(Resources.of("cpu", 3000L), kind.request(sample("jobset_success-policy.yaml"), CPU_1));

        GenericKubernetesResource capped = edit(parallel, json -> {
            ObjectNode workers = (ObjectNode) spec(json).get("replicatedJobs").get(0);
            workers.put("replicas", 3);
            ((ObjectNode) workers.get("template").get("spec")).put("parallelism", 8).put("completions", 2);
        });
        // workers: replicas 3 × min(parallelism 8, completions 2) × (cpu 1) + driver 1 × 1 × (cpu 1) = 7 cpu
        assertEquals(Resources.of("cpu", 7000L), kind.request(capped, CPU_1));
        GenericKubernetesResource noCompletions = edit(parallel, json -> ((ObjectNode) spec(json).get("replicatedJobs")
                .get(0).get("template").get("spec")).put("parallelism", 6).remove("completions"));
        // workers: 1 × parallelism 6 (no completions: no cap) + driver 1 = 7 cpu
        assertEquals(Resources.of("cpu", 7000L), kind.request(noCompletions, CPU_1));

        assertHeldBy(kind, parallel, json -> spec(json).put("suspend", true), "/spec/suspend");
        assertFinished(kind, parallel, "{\"conditions\": [{\"type\": \"Completed\", \"status\": \"True\"}]}",
                "{\"conditions\": [{\"type\": \"Failed\", \"status\": \"True\"}]}");
        assertNotFinished(kind, parallel, "{\"conditions\": [{\"type\": \"Completed\", \"status\": \"False\"}]}",
                "{\"conditions\": [{\"type\": \"Suspended\", \"status\": \"True\"}]}",
                "{\"terminalState\": \"Running\"}");
        assertEquals("jobset.sigs.k8s.io/jobset-name", kind.podLabelKey());
        assertFalse(kind.ownsItsPods(), "a JobSet's pods are its Jobs'");
    }

    // ---- RayJob, RayCluster -------------------------------------------------------------------------------------

    @Test
    void rayJob() {
        DeclaredJobKind kind = kind("rayjob");
        GenericKubernetesResource toy = sample("kuberay_ray-job.kueue-toy-sample.yaml");
        // head × 1: requests cpu 1, memory 2Gi, limits cpu 1, memory 5Gi
        // + small-group: replicas 1 × numOfHosts 1 (default) × (requests cpu 1, 1Gi; limits cpu 1, 1Gi)
        // + no submitterPodTemplate: nothing
        assertEquals(Resources.of("cpu", 2000L, "memory", 3 * GI, "limits.cpu", 2000L, "limits.memory", 6 * GI),
                kind.request(toy));

        GenericKubernetesResource bigger = edit(toy, json -> {
            ObjectNode worker = (ObjectNode) spec(json).get("rayClusterSpec").get("workerGroupSpecs").get(0);
            worker.put("replicas", 3).put("numOfHosts", 2);
            spec(json).set("submitterPodTemplate", SERIALIZATION.unmarshal(
                    "{\"spec\": {\"containers\": [{\"name\": \"s\", \"resources\": {\"requests\": {\"cpu\": \"500m\"}}}]}}",
                    JsonNode.class));
        });
        // head 1 cpu, 2Gi (limits 1, 5Gi) + workers 3 × 2 × (1 cpu, 1Gi; limits 1, 1Gi) + submitter 1 × 500m
        assertEquals(Resources.of("cpu", 7500L, "memory", 8 * GI, "limits.cpu", 7000L, "limits.memory", 11 * GI),
                kind.request(bigger));
        GenericKubernetesResource noReplicas = edit(toy, json -> ((ObjectNode) spec(json).get("rayClusterSpec")
                .get("workerGroupSpecs").get(0)).remove("replicas"));
        assertEquals(kind.request(toy), kind.request(noReplicas), "replicas default to 1, as Kueue counts them");

        assertHeldBy(kind, toy, json -> spec(json).put("suspend", true), "/spec/suspend");
        assertFinished(kind, toy, "{\"jobDeploymentStatus\": \"Complete\"}", "{\"jobDeploymentStatus\": \"Failed\"}");
        assertNotFinished(kind, toy, "{\"jobDeploymentStatus\": \"Running\"}",
                "{\"jobDeploymentStatus\": \"Suspended\", \"jobStatus\": \"SUCCEEDED\"}",
                "{\"conditions\": [{\"type\": \"Complete\", \"status\": \"True\"}]}");
        assertEquals("ray.io/originated-from-cr-name", kind.podLabelKey());
    }

    @Test
    void rayCluster() {
        DeclaredJobKind kind = kind("raycluster");
        GenericKubernetesResource cluster = sample("kuberay_ray-cluster.sample.yaml");
        // head × 1: requests = limits = cpu 1, memory 5Gi; workergroup: replicas 1 × numOfHosts 1 × (cpu 1, 1Gi)
        assertEquals(Resources.of("cpu", 2000L, "memory", 6 * GI, "limits.cpu", 2000L, "limits.memory", 6 * GI),
                kind.request(cluster));
        assertHeldBy(kind, cluster, json -> spec(json).put("suspend", true), "/spec/suspend");
        assertNotFinished(kind, cluster, "{\"state\": \"failed\"}", "{\"state\": \"ready\"}",
                "{\"conditions\": [{\"type\": \"Failed\", \"status\": \"True\"},"
                        + " {\"type\": \"Complete\", \"status\": \"True\"}]}");
        assertTrue(kind.ownsItsPods());
    }

    // ---- TrainJob -----------------------------------------------------------------------------------------------

    @Test
    void trainJob() {
        DeclaredJobKind kind = kind("trainjob");
        GenericKubernetesResource train = sample("trainer_03-kueue-integration.yaml");
        // numNodes 3 × resourcesPerNode (requests cpu 2, memory 4Gi; limits cpu 4, memory 8Gi)
        assertEquals(Resources.of("cpu", 6000L, "memory", 12 * GI, "limits.cpu", 12000L, "limits.memory", 24 * GI),
                kind.request(train));
        GenericKubernetesResource oneNode = edit(train, json -> ((ObjectNode) spec(json).get("trainer"))
                .remove("numNodes"));
        // numNodes absent: 1 × (cpu 2, 4Gi; limits 4, 8Gi)
        assertEquals(Resources.of("cpu", 2000L, "memory", 4 * GI, "limits.cpu", 4000L, "limits.memory", 8 * GI),
                kind.request(oneNode));

        assertEquals(List.of(SuspendMark.SPEC_SUSPEND), kind.suspendMarks(train), "the sample is created suspended");
        GenericKubernetesResource running = edit(train, json -> spec(json).put("suspend", false));
        assertEquals(List.of(), kind.suspendMarks(running));
        assertFinished(kind, running, "{\"conditions\": [{\"type\": \"Complete\", \"status\": \"True\"}]}",
                "{\"conditions\": [{\"type\": \"Failed\", \"status\": \"True\"}]}");
        assertNotFinished(kind, running, "{\"conditions\": [{\"type\": \"Completed\", \"status\": \"True\"}]}",
                "{\"conditions\": [{\"type\": \"Suspended\", \"status\": \"True\"}]}");
        assertEquals("jobset.sigs.k8s.io/jobset-name", kind.podLabelKey());
    }

    // ---- AppWrapper ---------------------------------------------------------------------------------------------

    @Test
    void appWrapper() {
        DeclaredJobKind kind = kind("appwrapper");
        GenericKubernetesResource job = sample("appwrapper_wrapped-job.yaml");
        assertEquals(Resources.NONE, kind.request(job),
                "a component without declared podSets is charged nothing (the preset's comment says so)");
        GenericKubernetesResource declared = edit(job, json -> ((ObjectNode) spec(json).get("components").get(0))
                .set("podSets", SERIALIZATION.unmarshal("[{\"path\": \"template.spec.template\"}]", JsonNode.class)));
        // the Job's template (requests cpu 1) × replicas 1 (default)
        assertEquals(Resources.of("cpu", 1000L), kind.request(declared));

        GenericKubernetesResource pytorch = sample("appwrapper_wrapped-pytorch-job.yaml");
        assertEquals(Resources.NONE, kind.request(pytorch));
        GenericKubernetesResource pytorchDeclared = edit(pytorch, json -> ((ObjectNode) spec(json).get("components")
                .get(0)).set("podSets", SERIALIZATION.unmarshal("""
                        [{"replicas": 1, "path": "template.spec.pytorchReplicaSpecs.Master.template"},
                         {"replicas": 2, "path": "template.spec.pytorchReplicaSpecs.Worker.template"}]
                        """, JsonNode.class)));
        // Master 1 × (cpu 1) + Worker 2 × (cpu 1)
        assertEquals(Resources.of("cpu", 3000L), kind.request(pytorchDeclared));
        GenericKubernetesResource two = edit(pytorchDeclared, json -> {
            ArrayNode components = (ArrayNode) spec(json).get("components");
            components.add(components.get(0).deepCopy());
        });
        // two such components: 2 × 3 cpu
        assertEquals(Resources.of("cpu", 6000L), kind.request(two));

        assertHeldBy(kind, job, json -> spec(json).put("suspend", true), "/spec/suspend");
        assertFinished(kind, job, "{\"phase\": \"Succeeded\"}", "{\"phase\": \"Failed\"}");
        assertNotFinished(kind, job, "{\"phase\": \"Running\"}", "{\"phase\": \"Suspended\"}",
                "{\"conditions\": [{\"type\": \"Succeeded\", \"status\": \"True\"}]}");
        assertEquals("workload.codeflare.dev/appwrapper", kind.podLabelKey());
    }

    // ---- PaddleJob, XGBoostJob, JAXJob --------------------------------------------------------------------------

    @Test
    void kubeflowKinds() {
        record Case(String preset, String sample, long cpu) {
        }
        for (Case c : List.of(
                new Case("paddlejob", "training-operator_paddlepaddle_simple-cpu.yaml", 2000L), // Worker 2 × (cpu 1)
                new Case("xgboostjob", "training-operator_xgboostjob_v1_rabit_test.yaml", 3000L), // Master 1 + Worker 2
                new Case("jaxjob", "training-operator_jax_demo.yaml", 2000L))) { // Worker 2 × (cpu 1)
            DeclaredJobKind kind = kind(c.preset());
            GenericKubernetesResource job = sample(c.sample());
            assertEquals(Resources.of("cpu", c.cpu()), kind.request(job, CPU_1), c.preset());
            assertEquals(Resources.NONE, kind.request(job), c.preset() + ": the sample sets no resources");
            assertHeldBy(kind, job, json -> spec(json).putObject("runPolicy").put("suspend", true),
                    "/spec/runPolicy/suspend");
            assertEquals(SuspendMark.RUN_POLICY_SUSPEND, kind.suspendMarks(edit(job, json -> spec(json)
                    .putObject("runPolicy").put("suspend", true))).get(0), "the built-in kinds' mark");
            assertFinished(kind, job, "{\"conditions\": [{\"type\": \"Succeeded\", \"status\": \"True\"}]}",
                    "{\"conditions\": [{\"type\": \"Running\", \"status\": \"False\"},"
                            + " {\"type\": \"Failed\", \"status\": \"True\"}]}");
            assertNotFinished(kind, job, "{\"conditions\": [{\"type\": \"Running\", \"status\": \"True\"}]}",
                    "{\"conditions\": [{\"type\": \"Succeeded\", \"status\": \"False\"}]}");
            assertEquals("training.kubeflow.org/job-name", kind.podLabelKey(), c.preset());
            assertTrue(kind.ownsItsPods(), c.preset());

            GenericKubernetesResource prioritized = edit(job, json -> spec(json).putObject("runPolicy")
                    .putObject("schedulingPolicy").put("priorityClass", "high"));
            assertEquals(JobPriority.ofClass("high"), kind.priority(prioritized), c.preset());
        }
    }

    /** The PaddleJob preset is the built-in Kubeflow rule ({@link KubeflowJobKind#podSets}) written as pod sets. */
    @Test
    void aDeclaredPaddleJobChargesWhatTheBuiltInKubeflowRuleCharges() {
        DeclaredJobKind declared = kind("paddlejob");
        GenericKubernetesResource simple = sample("training-operator_paddlepaddle_simple-cpu.yaml");
        GenericKubernetesResource rich = edit(simple, json -> spec(json).set("paddleReplicaSpecs",
                SERIALIZATION.unmarshal("""
                        {"Master": {"template": {"spec": {
                            "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "3"}}}],
                            "containers": [{"name": "m", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"},
                                                                       "limits": {"nvidia.com/gpu": 1}}}]}}},
                         "Worker": {"replicas": 4, "template": {"spec": {
                            "containers": [{"name": "w", "resources": {"limits": {"cpu": "2", "memory": "3Gi"}}},
                                           {"name": "x"}]}}},
                         "Idle": {"replicas": 0, "template": {"spec": {"containers": [{"name": "z",
                            "resources": {"requests": {"cpu": "64"}}}]}}}}
                        """, JsonNode.class)));
        // Master 1 × (max(init 3, 500m) = 3 cpu, 1Gi, 1 gpu) + Worker 4 × (2 cpu + x: 1 cpu by the LimitRange, 3Gi;
        // limits 2 cpu, 3Gi) + Idle 0 × 64 cpu
        assertEquals(Resources.of("cpu", 15000L, "memory", 13 * GI, "nvidia.com/gpu", 1L, "limits.cpu", 8000L,
                "limits.memory", 12 * GI), declared.request(rich, CPU_1));
        for (GenericKubernetesResource job : List.of(simple, rich)) {
            for (PodDefaults defaults : List.of(PodDefaults.NONE, CPU_1)) {
                assertEquals(KubeflowJobKind.podSets("paddleReplicaSpecs").request(declared.json(job), defaults,
                        SERIALIZATION), declared.request(job, defaults));
            }
        }
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /** Unset, the sample is not held; set by {@code hold}, it is, by the mark at {@code pointer}. */
    private static void assertHeldBy(DeclaredJobKind kind, GenericKubernetesResource sample, Consumer<ObjectNode> hold,
                                     String pointer) {
        assertEquals(List.of(), kind.suspendMarks(sample), kind.kind() + ": the sample is not held");
        GenericKubernetesResource held = edit(sample, hold);
        List<SuspendMark> marks = kind.suspendMarks(held);
        assertEquals(1, marks.size(), kind.kind());
        assertEquals(pointer, marks.get(0).pointer(), kind.kind());
        assertEquals(Optional.of(marks.get(0)), kind.stopMark(held), kind.kind());
        assertEquals(marks, kind.suspendMarks(kind.pruned(held)), kind.kind() + ": the cached copy reads the same");
    }

    private static void assertFinished(DeclaredJobKind kind, GenericKubernetesResource sample, String... statuses) {
        assertFalse(kind.finished(sample), kind.kind() + ": the sample, without status, is not finished");
        for (String status : statuses) {
            GenericKubernetesResource job = withStatus(sample, status);
            assertTrue(kind.finished(job), kind.kind() + ": " + status);
            assertTrue(kind.finished(kind.pruned(job)), kind.kind() + " cached: " + status);
        }
    }

    private static void assertNotFinished(DeclaredJobKind kind, GenericKubernetesResource sample, String... statuses) {
        assertFalse(kind.finished(sample), kind.kind());
        for (String status : statuses) {
            assertFalse(kind.finished(withStatus(sample, status)), kind.kind() + ": " + status);
        }
    }
}
