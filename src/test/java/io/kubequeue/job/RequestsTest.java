package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.Parse;
import io.kubequeue.resources.PodRequests;
import io.kubequeue.input.InvalidJobException;

/**
 * A pod's request by docs/behaviour.md §2 ({@link PodRequests}, the rules every kind shares), each rule with its
 * expected quantity written out, read through a batch Job. Each kind's own rule (how many pods, where their
 * templates are) is tested beside the kind: {@code job/batch}, {@code job/kubeflow}, {@code job/argo}.
 */
class RequestsTest {

    private static final long MI = 1L << 20;
    private static final long GI = 1L << 30;

    private static Job job(String spec) {
        return Parse.batchJob(spec);
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
    void anUnparsableQuantityIsRefusedNamingTheField() {
        Job job = job("""
                template:
                  spec:
                    containers: [{name: c, image: x, resources: {requests: {cpu: abc}}}]
                """);
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> new BatchJobKind().request(job));
        assertTrue(e.getMessage().startsWith("spec.template.spec.containers[0].resources.requests.cpu:"), e.getMessage());
    }

    /** Found by HostileInputPropertiesTest: a null in a container list threw a NullPointerException. */
    @Test
    void aNullContainerIsAnInvalidJobNamingIt() {
        io.fabric8.kubernetes.api.model.PodSpec spec = new io.fabric8.kubernetes.api.model.PodSpec();
        spec.setContainers(new java.util.ArrayList<>(java.util.Arrays.asList(
                new io.fabric8.kubernetes.api.model.Container(), null)));
        io.kubequeue.input.InvalidJobException e = org.junit.jupiter.api.Assertions.assertThrows(
                io.kubequeue.input.InvalidJobException.class, () -> PodRequests.of(spec, "spec.template.spec"));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("spec.template.spec.containers[1]:"),
                e.getMessage());
    }
}
