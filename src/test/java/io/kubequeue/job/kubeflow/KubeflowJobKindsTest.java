package io.kubequeue.job.kubeflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.ShowsQueuingCondition;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.Parse;

/**
 * The Kubeflow kinds' own rules (docs/behaviour.md §1, §2, §5): Σ over replica specs of pod × {@code replicas},
 * their marks, priority and pod labels, and condition {@code Queuing}, shown by TFJob and PyTorchJob only.
 */
class KubeflowJobKindsTest {

    private static final long GI = 1L << 30;

    private static final KubernetesClient client = Parse.client();

    private static TFJob tfJob(String yaml) {
        return (TFJob) Parse.yaml(yaml).get(0);
    }

    @Test
    void theSeedsTFJobRequestsThreeCpuAndThreeGi() {
        TFJob job1 = (TFJob) Parse.resource("/seed/tfjobs.yaml").get(0);
        // PS 1 × (1 cpu, 1Gi) + Worker 2 × (1 cpu, 1Gi), limits equal to requests
        assertEquals(Resources.of("cpu", 3000L, "memory", 3 * GI, "limits.cpu", 3000L, "limits.memory", 3 * GI),
                new TFJobKind(client).request(job1));
        assertEquals(List.of(SuspendMark.ANNOTATION), new TFJobKind(client).suspendMarks(job1));
    }

    @Test
    void replicasDefaultToOne() {
        TFJob job = tfJob("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec:
                  runPolicy: {suspend: true}
                  tfReplicaSpecs:
                    Worker:
                      template:
                        spec:
                          containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]
                """);
        assertEquals(Resources.of("cpu", 500L), new TFJobKind(client).request(job));
        assertEquals(List.of(SuspendMark.RUN_POLICY_SUSPEND), new TFJobKind(client).suspendMarks(job));
    }

    /**
     * training-operator ≥ 1.7 and mpi-operator v2beta1 delete a running job's pods when runPolicy.suspend becomes
     * true: a job whose spec has the field (either value) can be evicted. One admitted through the ack-arena
     * annotation alone has none, and its operator does not stop it: never evicted.
     */
    @Test
    void aJobIsStoppableOnlyWithRunPolicySuspendInItsSpec() {
        TFJob admitted = tfJob("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec:
                  runPolicy: {suspend: false, cleanPodPolicy: None}
                  tfReplicaSpecs:
                    Worker: {template: {spec: {containers: [{name: c, image: x}]}}}
                """);
        TFJob annotationOnly = tfJob("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default, annotations: {scheduling.x-k8s.io/suspend: "true"}}
                spec:
                  tfReplicaSpecs:
                    Worker: {template: {spec: {containers: [{name: c, image: x}]}}}
                """);
        TFJob runPolicyWithoutSuspend = tfJob("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec:
                  runPolicy: {cleanPodPolicy: None}
                  tfReplicaSpecs:
                    Worker: {template: {spec: {containers: [{name: c, image: x}]}}}
                """);
        TFJobKind kind = new TFJobKind(client);
        assertEquals(Optional.of(SuspendMark.RUN_POLICY_SUSPEND), kind.stopMark(admitted));
        assertEquals(Optional.of(SuspendMark.RUN_POLICY_SUSPEND),
                kind.stopMark(tfJob("""
                        apiVersion: kubeflow.org/v1
                        kind: TFJob
                        metadata: {name: t, namespace: default}
                        spec: {runPolicy: {suspend: true}, tfReplicaSpecs: {Worker: {}}}
                        """)));
        assertEquals(Optional.empty(), kind.stopMark(annotationOnly));
        assertEquals(Optional.empty(), kind.stopMark(runPolicyWithoutSuspend));
        assertEquals(Optional.empty(), kind.stopMark(kind.pruned(annotationOnly)), "the cached copy reads the same");
        assertEquals(Optional.of(SuspendMark.RUN_POLICY_SUSPEND), kind.stopMark(kind.pruned(admitted)));
    }

    @Test
    void negativeReplicasAreRefusedNamingTheField() {
        TFJob job = tfJob("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec:
                  tfReplicaSpecs:
                    Worker:
                      replicas: -2
                      template: {spec: {containers: [{name: c, image: x}]}}
                """);
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> new TFJobKind(client).request(job));
        assertTrue(e.getMessage().startsWith("spec.tfReplicaSpecs.Worker.replicas:"), e.getMessage());
        assertTrue(e.getMessage().contains("-2"), e.getMessage());
    }

    @Test
    void thePyTorchSampleRequestsOneGpuPerReplica() {
        PyTorchJob job = (PyTorchJob) Parse.resource("/upstream/training-operator_pytorch_job_mnist_gloo.yaml").get(0);
        // Master 1 × (gpu limit 1) + Worker 1 × (gpu limit 1)
        assertEquals(Resources.of("nvidia.com/gpu", 2L), new PyTorchJobKind(client).request(job));
    }

    @Test
    void theMpiPiSampleRequestsThreeCpuAndThreeGiInEitherVersion() {
        MPIJobV2beta1 v2 = (MPIJobV2beta1) Parse.resource("/upstream/mpi-operator_pi.yaml").get(0);
        // Launcher 1 × (limits 1 cpu, 1Gi) + Worker 2 × (limits 1 cpu, 1Gi)
        Resources expected = Resources.of("cpu", 3000L, "memory", 3 * GI, "limits.cpu", 3000L, "limits.memory", 3 * GI);
        assertEquals(expected, new MPIJobV2beta1Kind(client).request(v2));
        v2.setApiVersion("kubeflow.org/v1");
        MPIJob v1 = client.getKubernetesSerialization().convertValue(v2, MPIJob.class);
        assertEquals(expected, new MPIJobKind(client).request(v1));
    }

    @Test
    void readsPriorityFromTheFirstReplicaSpecThatNamesOne() {
        TFJob tf = tfJob("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec:
                  tfReplicaSpecs:
                    PS: {replicas: 1, template: {spec: {containers: [{name: c, image: x}]}}}
                    Worker: {replicas: 2, template: {spec: {priorityClassName: high, containers: [{name: c, image: x}]}}}
                """);
        assertEquals(JobPriority.ofClass("high"), new TFJobKind(client).priority(tf));
    }

    @Test
    void namesItsPodsByTheTrainingOperatorsJobNameLabel() {
        TFJob tf = (TFJob) Parse.resource("/seed/tfjobs.yaml").get(0);
        assertEquals(Map.of("training.kubeflow.org/job-name", "job1"), new TFJobKind(client).podLabels(tf));
    }

    @Test
    void onlyTFJobAndPyTorchJobShowQueuingAndOnlyWhenQueuedByTheAnnotation() {
        assertTrue(new TFJobKind(client) instanceof ShowsQueuingCondition<?>);
        assertTrue(new PyTorchJobKind(client) instanceof ShowsQueuingCondition<?>);
        assertFalse(new MPIJobKind(client) instanceof ShowsQueuingCondition<?>, "mpi-operator expects no Queuing");
        assertFalse(new MPIJobV2beta1Kind(client) instanceof ShowsQueuingCondition<?>);

        TFJob annotated = (TFJob) Parse.resource("/seed/tfjobs.yaml").get(0);
        assertTrue(new TFJobKind(client).showsQueuing(annotated));
        TFJob byRunPolicy = tfJob("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec:
                  runPolicy: {suspend: true}
                  tfReplicaSpecs: {Worker: {template: {spec: {containers: [{name: c, image: x}]}}}}
                """);
        assertFalse(new TFJobKind(client).showsQueuing(byRunPolicy), "training-operator writes its own conditions");
    }

    @Test
    void theQueuingConditionReplacesAnEarlierOneAndKeepsTheOthers() {
        TFJobKind kind = new TFJobKind(client);
        TFJob job = tfJob("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec: {tfReplicaSpecs: {Worker: {template: {spec: {containers: [{name: c, image: x}]}}}}}
                status:
                  conditions:
                    - {type: Queuing, status: "True", reason: JobEnqueued}
                    - {type: Created, status: "True", reason: TFJobCreated}
                """);
        assertEquals("True", kind.queuingStatus(job));
        Instant at = Instant.parse("2026-01-02T03:04:05Z");
        kind.setQueuingCondition(job, "False", "JobAdmitted", "Job admitted by kube-queue", at);

        assertEquals("False", kind.queuingStatus(job));
        JsonNode conditions = job.getStatus().path("conditions");
        assertEquals(2, conditions.size());
        assertEquals("Created", conditions.get(0).path("type").asText(), "the others stay, in their order");
        JsonNode queuing = conditions.get(1);
        assertEquals("JobAdmitted", queuing.path("reason").asText());
        assertEquals("Job admitted by kube-queue", queuing.path("message").asText());
        assertEquals("2026-01-02T03:04:05Z", queuing.path("lastUpdateTime").asText());
        assertEquals("2026-01-02T03:04:05Z", queuing.path("lastTransitionTime").asText());

        TFJob fresh = tfJob("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec: {tfReplicaSpecs: {Worker: {template: {spec: {containers: [{name: c, image: x}]}}}}}
                """);
        assertNull(kind.queuingStatus(fresh));
        kind.setQueuingCondition(fresh, "True", "JobEnqueued", "Job Enqueued", at);
        assertEquals("True", kind.queuingStatus(fresh), "a job without status gets one");
    }

    /**
     * Issue 30: spec.runPolicy.activeDeadlineSeconds (training-operator RunPolicy, int64) and status.completionTime,
     * else the last Succeeded/Failed=True condition's lastTransitionTime, for every Kubeflow kind. The operator's CRD
     * types them, but the kind reads them as JSON: a field of another type, negative, absurd or unparsable reads as
     * absent.
     */
    @Test
    void runTimeIsRunPolicysActiveDeadlineSecondsAndCompletionTime() throws Exception {
        for (KubeflowJobKind<?> kind : List.of(new TFJobKind(client), new PyTorchJobKind(client), new MPIJobKind(client),
                new MPIJobV2beta1Kind(client))) {
            assertEquals(Optional.of(Duration.ofSeconds(7200)), deadline(kind, "{\"activeDeadlineSeconds\": 7200}"),
                    kind.kind());
            assertEquals(Optional.empty(), deadline(kind, "{}"), kind.kind() + ": none");
            assertEquals(Optional.empty(), deadline(kind, "7200"), kind.kind() + ": runPolicy not an object");
            for (String bad : List.of("\"7200\"", "7200.5", "1e999999999", "-7200", "0", "true", "[7200]",
                    "{\"s\": 7200}", "null", "99999999999999999999999999999", "31708800", "\"" + "9".repeat(10_000) + "\"")) {
                assertEquals(Optional.empty(), deadline(kind, "{\"activeDeadlineSeconds\": " + bad + "}"),
                        kind.kind() + ": " + bad.substring(0, Math.min(bad.length(), 20)));
            }

            assertEquals(Optional.of(Instant.parse("2024-06-14T10:13:01Z")), ended(kind, """
                    {"completionTime": "2024-06-14T10:13:01Z",
                     "conditions": [{"type": "Succeeded", "status": "True", "lastTransitionTime": "2024-06-14T10:13:05Z"}]}
                    """), kind.kind());
            assertEquals(Optional.of(Instant.parse("2024-06-14T09:40:00Z")), ended(kind, """
                    {"completionTime": 12,
                     "conditions": [{"type": "Running", "status": "True", "lastTransitionTime": "2024-06-14T09:13:00Z"},
                                    {"type": "Failed", "status": "True", "lastTransitionTime": "2024-06-14T09:40:00Z"},
                                    {"type": "Restarting", "status": "True", "lastTransitionTime": "2024-06-14T09:41:00Z"}]}
                    """), kind.kind() + ": no completionTime that reads: the Failed condition's time");
            for (String bad : List.of("{}", "{\"completionTime\": \"soon\"}", "{\"completionTime\": [1]}",
                    "{\"completionTime\": \"" + "2".repeat(10_000) + "\"}",
                    "{\"conditions\": {\"type\": \"Failed\"}}",
                    "{\"conditions\": [{\"type\": \"Failed\", \"status\": \"True\", \"lastTransitionTime\": 1e999999999}]}",
                    "{\"conditions\": [{\"type\": \"Succeeded\", \"status\": \"False\", \"lastTransitionTime\": \"2024-06-14T09:40:00Z\"}]}")) {
                assertEquals(Optional.empty(), ended(kind, bad), kind.kind() + ": " + bad.substring(0, Math.min(bad.length(), 60)));
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Optional<Duration> deadline(KubeflowJobKind kind, String runPolicy) throws Exception {
        var job = (CustomResource<JsonNode, JsonNode>) kind.type().getDeclaredConstructor().newInstance();
        job.setSpec(new com.fasterxml.jackson.databind.ObjectMapper().readTree("{\"runPolicy\": " + runPolicy + "}"));
        return kind.activeDeadline(job);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Optional<Instant> ended(KubeflowJobKind kind, String status) throws Exception {
        var job = (CustomResource<JsonNode, JsonNode>) kind.type().getDeclaredConstructor().newInstance();
        job.setStatus(new com.fasterxml.jackson.databind.ObjectMapper().readTree(status));
        return kind.completionTime(job);
    }
}
