package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.testing.Parse;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.argo.WorkflowKind;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.job.kubeflow.MPIJob;
import io.kubequeue.job.kubeflow.MPIJobKind;
import io.kubequeue.job.kubeflow.MPIJobV2beta1;
import io.kubequeue.job.kubeflow.MPIJobV2beta1Kind;
import io.kubequeue.job.kubeflow.PyTorchJob;
import io.kubequeue.job.kubeflow.PyTorchJobKind;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.job.kubeflow.TFJobKind;
import io.kubequeue.scheduler.JobPriority;
import io.kubequeue.scheduler.Resources;

/** A job's request by docs/behaviour.md §2, each rule with its expected quantity written out. */
class RequestsTest {

    private static final long MI = 1L << 20;
    private static final long GI = 1L << 30;

    private static final KubernetesClient client = Parse.client();

    private static List<HasMetadata> read(String yaml) {
        return Parse.yaml(yaml);
    }

    private static Job job(String spec) {
        return (Job) read("""
                apiVersion: batch/v1
                kind: Job
                metadata: {name: j, namespace: default}
                spec:
                """ + spec.indent(2)).get(0);
    }

    @Test
    void theSeedsTFJobRequestsThreeCpuAndThreeGi() {
        List<HasMetadata> jobs = Parse.resource("/seed/tfjobs.yaml");
        TFJob job1 = (TFJob) jobs.get(0);
        // PS 1 × (1 cpu, 1Gi) + Worker 2 × (1 cpu, 1Gi), limits equal to requests
        assertEquals(Resources.of("cpu", 3000L, "memory", 3 * GI, "limits.cpu", 3000L, "limits.memory", 3 * GI),
                new TFJobKind(client).request(job1));
        assertEquals(List.of(SuspendMark.ANNOTATION), new TFJobKind(client).suspendMarks(job1));
    }

    @Test
    void replicasDefaultToOne() {
        TFJob job = (TFJob) read("""
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
                """).get(0);
        assertEquals(Resources.of("cpu", 500L), new TFJobKind(client).request(job));
        assertEquals(List.of(SuspendMark.RUN_POLICY_SUSPEND), new TFJobKind(client).suspendMarks(job));
    }

    @Test
    void negativeReplicasAreRefusedNamingTheField() {
        TFJob job = (TFJob) read("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec:
                  tfReplicaSpecs:
                    Worker:
                      replicas: -2
                      template: {spec: {containers: [{name: c, image: x}]}}
                """).get(0);
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> new TFJobKind(client).request(job));
        assertTrue(e.getMessage().startsWith("spec.tfReplicaSpecs.Worker.replicas:"), e.getMessage());
        assertTrue(e.getMessage().contains("-2"), e.getMessage());
    }

    @Test
    void batchJobCountsMinOfParallelismAndCompletions() {
        String pod = """
                template:
                  spec:
                    containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 200Mi}}}]
                """;
        BatchJobKind kind = new BatchJobKind();
        assertEquals(Resources.of("cpu", 1000L, "memory", 200 * MI), kind.request(job(pod)), "parallelism defaults to 1");
        assertEquals(Resources.of("cpu", 3000L, "memory", 600 * MI), kind.request(job("parallelism: 3\n" + pod)),
                "no completions: parallelism");
        assertEquals(Resources.of("cpu", 2000L, "memory", 400 * MI),
                kind.request(job("parallelism: 5\ncompletions: 2\n" + pod)));
        assertEquals(Resources.of("cpu", 3000L, "memory", 600 * MI),
                kind.request(job("parallelism: 3\ncompletions: 10\n" + pod)));
    }

    @Test
    void initContainersCountByTheMaxRule() {
        Job job = job("""
                template:
                  spec:
                    initContainers:
                      - {name: big-init, image: x, resources: {requests: {cpu: "2"}}}
                    containers:
                      - {name: a, image: x, resources: {requests: {cpu: 500m, memory: 128Mi}}}
                """);
        // cpu: max(0.5, 2) = 2; memory: max(128Mi, 0) = 128Mi
        assertEquals(Resources.of("cpu", 2000L, "memory", 128 * MI), new BatchJobKind().request(job));
    }

    @Test
    void podOverheadIsAdded() {
        Job job = job("""
                template:
                  spec:
                    overhead: {cpu: 250m, memory: 64Mi}
                    containers:
                      - {name: a, image: x, resources: {requests: {cpu: 500m, memory: 128Mi}}}
                """);
        assertEquals(Resources.of("cpu", 750L, "memory", 192 * MI), new BatchJobKind().request(job));
    }

    @Test
    void initContainersAndOverheadTogether() {
        Job job = job("""
                template:
                  spec:
                    overhead: {cpu: 250m, memory: 64Mi}
                    initContainers:
                      - {name: big-init, image: x, resources: {requests: {cpu: "2", memory: 64Mi}}}
                      - {name: small-init, image: x, resources: {requests: {cpu: 100m, memory: 1Gi}}}
                    containers:
                      - {name: a, image: x, resources: {requests: {cpu: 500m, memory: 128Mi}}}
                      - {name: b, image: x, resources: {requests: {cpu: 500m, memory: 128Mi}}}
                """);
        // cpu: max(0.5 + 0.5, 2, 0.1) + 0.25 = 2.25; memory: max(256Mi, 64Mi, 1Gi) + 64Mi = 1088Mi
        assertEquals(Resources.of("cpu", 2250L, "memory", 1088 * MI), new BatchJobKind().request(job));
    }

    @Test
    void aLimitWithoutARequestRequestsTheLimit() {
        Job job = job("""
                template:
                  spec:
                    containers:
                      - name: c
                        image: x
                        resources:
                          requests: {cpu: 100m}
                          limits: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "2", aliyun.com/gpu-mem: "8"}
                """);
        assertEquals(Resources.of("cpu", 100L, "memory", GI, "nvidia.com/gpu", 2L, "aliyun.com/gpu-mem", 8L,
                "limits.cpu", 1000L, "limits.memory", GI), new BatchJobKind().request(job));
    }

    @Test
    void sidecarInitContainersRunBesideTheRegularOnesAndAreAdded() {
        Job job = job("""
                template:
                  spec:
                    initContainers:
                      - {name: setup, image: x, resources: {requests: {cpu: "4"}}}
                      - {name: proxy, image: x, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
                      - {name: late-setup, image: x, resources: {requests: {cpu: "2"}}}
                    containers:
                      - {name: main, image: x, resources: {requests: {cpu: "2"}}}
                """);
        // Kubernetes (sidecar containers): max(regular 2 + sidecar 1, setup 4, proxy 1 + late-setup 2) = 4
        assertEquals(4000, new BatchJobKind().request(job).get("cpu"));
        Job small = job("""
                template:
                  spec:
                    initContainers:
                      - {name: proxy, image: x, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
                    containers:
                      - {name: main, image: x, resources: {requests: {cpu: "2"}}}
                """);
        assertEquals(3000, new BatchJobKind().request(small).get("cpu"), "the sidecar runs beside main: 1 + 2");
    }

    @Test
    void cpuAndMemoryLimitsAreCarriedForResourceQuotaLimitsKeysByTheSameRuleAsRequests() {
        Job job = job("""
                parallelism: 2
                template:
                  spec:
                    overhead: {cpu: 50m, memory: 1Mi}
                    initContainers:
                      - {name: i, image: x, resources: {limits: {cpu: "3"}}}
                    containers:
                      - {name: a, image: x, resources: {requests: {cpu: 100m}, limits: {cpu: "1", memory: 1Gi}}}
                      - {name: b, image: x, resources: {limits: {cpu: 500m}}}
                """);
        Resources request = new BatchJobKind().request(job);
        // per pod: limits.cpu = max(1 + 0.5, 3) + 0.05 overhead; limits.memory = 1Gi + 1Mi; two pods
        assertEquals(2 * 3050L, request.get("limits.cpu"));
        assertEquals(2 * (GI + (1L << 20)), request.get("limits.memory"));
        assertEquals(2 * (3000L + 50), request.get("cpu"), "requests: max(0.1 + 0.5, 3 from the init limit) + overhead");
    }

    @Test
    void podLevelRequestsAloneAreCharged() {
        Job job = job("""
                template:
                  spec:
                    resources: {requests: {cpu: "2", memory: 1Gi}}
                    overhead: {cpu: 100m}
                    containers: [{name: a, image: x}, {name: b, image: x}]
                """);
        // Kubernetes "Assign Pod-level CPU and memory resources": the pod-level request is the pod's request;
        // overhead is added on top (component-helpers PodRequests)
        assertEquals(Resources.of("cpu", 2100L, "memory", GI), new BatchJobKind().request(job));
    }

    @Test
    void podLevelRequestsReplaceTheContainerAggregateOnlyForSupportedResources() {
        Job job = job("""
                template:
                  spec:
                    resources: {requests: {cpu: "3", hugepages-2Mi: 4Mi, ephemeral-storage: 5Gi}}
                    initContainers:
                      - {name: i, image: x, resources: {requests: {cpu: "8", memory: 2Gi}}}
                    containers:
                      - {name: a, image: x, resources: {requests: {cpu: 500m, memory: 128Mi, nvidia.com/gpu: "1"}}}
                      - {name: b, image: x, resources: {requests: {cpu: 500m, memory: 128Mi}}}
                """);
        // cpu and hugepages-2Mi from the pod level (the init container's 8 cpu no longer counts); memory and the
        // gpu keep the container rule max(256Mi, 2Gi); pod-level ephemeral-storage is not a pod-level resource
        assertEquals(Resources.of("cpu", 3000L, "hugepages-2Mi", 4 * MI, "memory", 2 * GI, "nvidia.com/gpu", 1L),
                new BatchJobKind().request(job));
    }

    @Test
    void podLevelLimitsReplaceTheAggregatedLimits() {
        Job job = job("""
                template:
                  spec:
                    resources: {requests: {cpu: "1"}, limits: {cpu: "4"}}
                    overhead: {cpu: 50m}
                    containers:
                      - {name: a, image: x, resources: {limits: {cpu: "1", memory: 1Gi}}}
                      - {name: b, image: x, resources: {limits: {cpu: "1", memory: 1Gi}}}
                """);
        // limits.cpu: pod level 4 + overhead; limits.memory: containers 2Gi (no pod-level memory limit)
        assertEquals(Resources.of("cpu", 1050L, "memory", 2 * GI, "limits.cpu", 4050L, "limits.memory", 2 * GI),
                new BatchJobKind().request(job));
    }

    @Test
    void aPodLevelLimitWithoutARequestRequestsTheLimitUnlessContainersRequestThatResource() {
        Job job = job("""
                template:
                  spec:
                    resources: {limits: {cpu: "2", memory: 1Gi, hugepages-2Mi: 8Mi}}
                    containers:
                      - {name: a, image: x, resources: {requests: {cpu: 500m, hugepages-2Mi: 2Mi}}}
                """);
        // Kubernetes defaulting (KEP-2837): memory, requested by no container, defaults to the pod-level limit;
        // cpu, requested by a container, defaults to the containers' aggregate 500m; hugepages (not overcommitted)
        // always default to the pod-level limit
        assertEquals(Resources.of("cpu", 500L, "memory", GI, "hugepages-2Mi", 8 * MI,
                "limits.cpu", 2000L, "limits.memory", GI), new BatchJobKind().request(job));
    }

    @Test
    void theEphemeralStorageLimitIsCarriedForTheResourceQuotaKey() {
        Job job = job("""
                parallelism: 2
                template:
                  spec:
                    containers:
                      - {name: a, image: x, resources: {requests: {ephemeral-storage: 1Gi}, limits: {ephemeral-storage: 2Gi}}}
                      - {name: b, image: x, resources: {limits: {ephemeral-storage: 512Mi}}}
                """);
        // ResourceQuota limits.ephemeral-storage is checked against the pod's limit (Kubernetes "Resource Quotas")
        assertEquals(Resources.of("ephemeral-storage", 2 * (GI + 512 * MI), "limits.ephemeral-storage",
                2 * (2 * GI + 512 * MI)), new BatchJobKind().request(job));
    }

    @Test
    void aRequestTooLargeToCountSaturatesInsteadOfFailing() {
        Job job = job("""
                parallelism: 2
                template:
                  spec:
                    containers: [{name: c, image: x, resources: {requests: {memory: 7Ei}}}]
                """);
        assertEquals(Resources.of("memory", Long.MAX_VALUE), new BatchJobKind().request(job));
    }

    @Test
    void extendedResourcesCountAsRequestedTimesPods() {
        Job job = job("""
                parallelism: 2
                template:
                  spec:
                    containers:
                      - {name: c, image: x, resources: {requests: {nvidia.com/gpu: "1", aliyun.com/gpu-mem: "16"}}}
                """);
        assertEquals(Resources.of("nvidia.com/gpu", 2L, "aliyun.com/gpu-mem", 32L), new BatchJobKind().request(job));
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
    void anUnparsableQuantityIsRefusedNamingTheField() {
        Job job = job("""
                template:
                  spec:
                    containers: [{name: c, image: x, resources: {requests: {cpu: abc}}}]
                """);
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> new BatchJobKind().request(job));
        assertTrue(e.getMessage().startsWith("spec.template.spec.containers[0].resources.requests.cpu:"), e.getMessage());
    }

    @Test
    void eachKindReadsPriorityClassNameAndPriorityWhereItsPodsGetThem() {
        Job batch = job("""
                template:
                  spec:
                    priorityClassName: urgent
                    priority: 7
                    containers: [{name: c, image: x}]
                """);
        assertEquals(new JobPriority("urgent", 7), new BatchJobKind().priority(batch));
        assertEquals(JobPriority.NONE, new BatchJobKind().priority(job("""
                template: {spec: {containers: [{name: c, image: x}]}}
                """)));

        TFJob tf = (TFJob) Parse.yaml("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: t, namespace: default}
                spec:
                  tfReplicaSpecs:
                    PS: {replicas: 1, template: {spec: {containers: [{name: c, image: x}]}}}
                    Worker: {replicas: 2, template: {spec: {priorityClassName: high, containers: [{name: c, image: x}]}}}
                """).get(0);
        assertEquals(JobPriority.ofClass("high"), new TFJobKind(client).priority(tf));

        Workflow wf = workflow("kube-queue/min-resources: 'cpu: 1'", """
                podPriorityClassName: batch-low
                podPriority: 3
                entrypoint: main
                """);
        assertEquals(new JobPriority("batch-low", 3), new WorkflowKind(client).priority(wf));
    }

    private static Workflow workflow(String annotations, String spec) {
        return (Workflow) Parse.yaml("""
                apiVersion: argoproj.io/v1alpha1
                kind: Workflow
                metadata:
                  name: w
                  namespace: default
                  annotations:
                """ + annotations.indent(4) + """
                spec:
                """ + spec.indent(2)).get(0);
    }

    @Test
    void aWorkflowRequestsItsMinResourcesWrittenAsYamlOrJson() {
        WorkflowKind kind = new WorkflowKind(client);
        Workflow yaml = workflow("kube-queue/min-resources: |\n  cpu: 5\n  memory: 5G\n", "suspend: true");
        assertEquals(Resources.of("cpu", 5000L, "memory", 5_000_000_000L), kind.request(yaml));
        assertEquals(List.of(SuspendMark.SPEC_SUSPEND), kind.suspendMarks(yaml));
        Workflow json = workflow("kube-queue/min-resources: '{\"cpu\": \"500m\", \"nvidia.com/gpu\": 1}'", "suspend: true");
        assertEquals(Resources.of("cpu", 500L, "nvidia.com/gpu", 1L), kind.request(json));
    }

    @Test
    void aWorkflowSuspendedWithoutMinResourcesIsNotOursUnlessAnnotated() {
        WorkflowKind kind = new WorkflowKind(client);
        assertEquals(List.of(), kind.suspendMarks(workflow("other: x", "suspend: true")));
        Workflow annotated = workflow("scheduling.x-k8s.io/suspend: \"true\"", "entrypoint: main");
        assertEquals(List.of(SuspendMark.ANNOTATION), kind.suspendMarks(annotated));
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> kind.request(annotated));
        assertTrue(e.getMessage().startsWith("metadata.annotations[kube-queue/min-resources]:"), e.getMessage());
    }

    @Test
    void badMinResourcesAreRefusedNamingTheValue() {
        WorkflowKind kind = new WorkflowKind(client);
        InvalidJobException notMap = assertThrows(InvalidJobException.class,
                () -> kind.request(workflow("kube-queue/min-resources: just text", "suspend: true")));
        assertTrue(notMap.getMessage().contains("just text"), notMap.getMessage());
        InvalidJobException badQuantity = assertThrows(InvalidJobException.class,
                () -> kind.request(workflow("kube-queue/min-resources: 'cpu: many'", "suspend: true")));
        assertTrue(badQuantity.getMessage().startsWith("metadata.annotations[kube-queue/min-resources].cpu:"),
                badQuantity.getMessage());
    }

    @Test
    void eachKindNamesTheLabelsOfItsPods() {
        Job job = job("template: {spec: {containers: [{name: c, image: x}]}}");
        job.getMetadata().setUid("1234");
        assertEquals(java.util.Map.of("controller-uid", "1234"), new BatchJobKind().podLabels(job));
        TFJob tf = (TFJob) Parse.resource("/seed/tfjobs.yaml").get(0);
        assertEquals(java.util.Map.of("training.kubeflow.org/job-name", "job1"), new TFJobKind(client).podLabels(tf));
        Workflow w = workflow("a: b", "entrypoint: main");
        assertEquals(java.util.Map.of("workflows.argoproj.io/workflow", "w"), new WorkflowKind(client).podLabels(w));
    }

    @Test
    void batchJobMarksAreSpecSuspendAndTheAnnotation() {
        Job both = job("suspend: true\ntemplate: {spec: {containers: [{name: c, image: x}]}}");
        both.getMetadata().setAnnotations(new java.util.HashMap<>(java.util.Map.of(SuspendMark.ANNOTATION_KEY, "true")));
        assertEquals(List.of(SuspendMark.ANNOTATION, SuspendMark.SPEC_SUSPEND), new BatchJobKind().suspendMarks(both));
        Job running = job("template: {spec: {containers: [{name: c, image: x}]}}");
        assertEquals(List.of(), new BatchJobKind().suspendMarks(running));
    }
}
