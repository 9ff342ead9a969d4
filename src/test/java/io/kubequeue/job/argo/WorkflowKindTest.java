package io.kubequeue.job.argo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.StopsWhenSuspended;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.Parse;

/**
 * Argo Workflow's own rules (docs/behaviour.md §1, §2): its request is the {@code kube-queue/min-resources}
 * annotation, it is managed only when marked, and its priority and pod labels.
 */
class WorkflowKindTest {

    private static final KubernetesClient client = Parse.client();

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
        WorkflowKind kind = new WorkflowKind();
        Workflow yaml = workflow("kube-queue/min-resources: |\n  cpu: 5\n  memory: 5G\n", "suspend: true");
        assertEquals(Resources.of("cpu", 5000L, "memory", 5_000_000_000L), kind.request(yaml));
        assertEquals(List.of(SuspendMark.SPEC_SUSPEND), kind.suspendMarks(yaml));
        Workflow json = workflow("kube-queue/min-resources: '{\"cpu\": \"500m\", \"nvidia.com/gpu\": 1}'", "suspend: true");
        assertEquals(Resources.of("cpu", 500L, "nvidia.com/gpu", 1L), kind.request(json));
    }

    /**
     * Argo's spec.suspend only stops new steps; the pods that run go on (Argo docs, "Suspending": "will not
     * schedule any new steps until it is resumed"), so suspending a Workflow again would not free its quota.
     */
    @Test
    void aWorkflowIsNeverEvicted() {
        assertFalse(StopsWhenSuspended.class.isAssignableFrom(WorkflowKind.class));
    }

    @Test
    void aWorkflowSuspendedWithoutMinResourcesIsNotOursUnlessAnnotated() {
        WorkflowKind kind = new WorkflowKind();
        assertEquals(List.of(), kind.suspendMarks(workflow("other: x", "suspend: true")));
        Workflow annotated = workflow("scheduling.x-k8s.io/suspend: \"true\"", "entrypoint: main");
        assertEquals(List.of(SuspendMark.ANNOTATION), kind.suspendMarks(annotated));
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> kind.request(annotated));
        assertTrue(e.getMessage().startsWith("metadata.annotations[kube-queue/min-resources]:"), e.getMessage());
    }

    @Test
    void badMinResourcesAreRefusedNamingTheValue() {
        WorkflowKind kind = new WorkflowKind();
        InvalidJobException notMap = assertThrows(InvalidJobException.class,
                () -> kind.request(workflow("kube-queue/min-resources: just text", "suspend: true")));
        assertTrue(notMap.getMessage().contains("just text"), notMap.getMessage());
        InvalidJobException badQuantity = assertThrows(InvalidJobException.class,
                () -> kind.request(workflow("kube-queue/min-resources: 'cpu: many'", "suspend: true")));
        assertTrue(badQuantity.getMessage().startsWith("metadata.annotations[kube-queue/min-resources].cpu:"),
                badQuantity.getMessage());
    }

    @Test
    void readsPodPriorityClassNameAndPodPriority() {
        Workflow wf = workflow("kube-queue/min-resources: 'cpu: 1'", """
                podPriorityClassName: batch-low
                podPriority: 3
                entrypoint: main
                """);
        assertEquals(new JobPriority("batch-low", 3), new WorkflowKind().priority(wf));
    }

    @Test
    void namesItsPodsByWorkflowName() {
        Workflow w = workflow("a: b", "entrypoint: main");
        assertEquals(Map.of("workflows.argoproj.io/workflow", "w"), new WorkflowKind().podLabels(w));
    }

    /**
     * Issue 30: spec.activeDeadlineSeconds (Argo WorkflowSpec, int64) and status.finishedAt. The Workflow CRD keeps
     * any JSON in spec and has no status subresource, so a tenant may write anything in either: a field of another
     * type, negative, absurd or unparsable reads as absent.
     */
    @Test
    void runTimeIsActiveDeadlineSecondsAndFinishedAt() throws Exception {
        WorkflowKind kind = new WorkflowKind();
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        Workflow w = new Workflow();
        w.setSpec(json.readTree("{\"activeDeadlineSeconds\": 5400}"));
        assertEquals(Optional.of(Duration.ofMinutes(90)), kind.activeDeadline(w));
        for (String bad : List.of("\"5400\"", "5400.0", "1e999999999", "-1", "0", "{}", "[1]", "false", "null",
                "18446744073709551616", "\"" + "5".repeat(10_000) + "\"")) {
            w.setSpec(json.readTree("{\"activeDeadlineSeconds\": " + bad + "}"));
            assertEquals(Optional.empty(), kind.activeDeadline(w), bad.substring(0, Math.min(20, bad.length())));
        }
        w.setSpec(json.readTree("[]"));
        assertEquals(Optional.empty(), kind.activeDeadline(w), "spec not an object");
        w.setSpec(null);
        assertEquals(Optional.empty(), kind.activeDeadline(w), "no spec");

        w.setStatus(json.readTree("{\"phase\": \"Failed\", \"finishedAt\": \"2024-06-14T10:00:00Z\"}"));
        assertEquals(Optional.of(Instant.parse("2024-06-14T10:00:00Z")), kind.completionTime(w));
        for (String bad : List.of("\"\"", "\"10:00\"", "1718359200", "{}", "null", "\"" + "2".repeat(10_000) + "\"")) {
            w.setStatus(json.readTree("{\"phase\": \"Failed\", \"finishedAt\": " + bad + "}"));
            assertEquals(Optional.empty(), kind.completionTime(w), bad.substring(0, Math.min(20, bad.length())));
        }
        w.setStatus(json.readTree("\"Succeeded\""));
        assertEquals(Optional.empty(), kind.completionTime(w), "status not an object");
    }
}
