package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.argo.WorkflowKind;
import io.kubequeue.job.kubeflow.KubeflowJobKind;
import io.kubequeue.job.kubeflow.MPIJob;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/**
 * Each kind's upstream sample, with a suspend mark added, under a group that runs one job at a time
 * ({@code kube-queue/max-jobs: 1}): the first copy is admitted, the second waits until the first finishes.
 */
@QuarkusTest
@WithStrictApiServer
class UpstreamSamplesTest {

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    Cluster cluster;

    @AfterEach
    void tearDown() {
        new Cluster(client).clear();
    }

    @SuppressWarnings("unchecked")
    private CustomResource<JsonNode, JsonNode> copy(String sample, String name) {
        String file = sample.replace("@v1", "");
        HasMetadata read = Manifests.read(client, UpstreamSamplesTest.class.getResourceAsStream("/upstream/" + file))
                .get(0);
        if (sample.endsWith("@v1")) {
            // the training operator's v1 MPIJob has the same replica specs as the mpi-operator's v2beta1 sample
            read.setApiVersion("kubeflow.org/v1");
            read = client.getKubernetesSerialization().convertValue(read, MPIJob.class);
        }
        CustomResource<JsonNode, JsonNode> job = (CustomResource<JsonNode, JsonNode>) read;
        job.getMetadata().setName(name);
        job.getMetadata().setGenerateName(null);
        job.getMetadata().setNamespace("default");
        if (job.getMetadata().getAnnotations() == null) {
            job.getMetadata().setAnnotations(new HashMap<>());
        }
        return job;
    }

    private static void suspendBy(CustomResource<JsonNode, JsonNode> job, String lever) {
        if (lever.equals("annotation")) {
            job.getMetadata().getAnnotations().put(SuspendMark.ANNOTATION_KEY, "true");
        } else {
            ((ObjectNode) job.getSpec()).withObject("/runPolicy").put("suspend", true);
        }
    }

    private boolean admitted(CustomResource<JsonNode, JsonNode> job) {
        HasMetadata now = client.resource(job).get();
        Map<String, String> annotations = now.getMetadata().getAnnotations();
        return annotations != null && annotations.containsKey(Annotations.QUOTA_GROUP)
                && !"true".equals(annotations.get(SuspendMark.ANNOTATION_KEY))
                && !((CustomResource<JsonNode, JsonNode>) now).getSpec().path("runPolicy").path("suspend").asBoolean(false)
                && !((CustomResource<JsonNode, JsonNode>) now).getSpec().path("suspend").asBoolean(false);
    }

    @SuppressWarnings("unchecked")
    private void finish(CustomResource<JsonNode, JsonNode> job, boolean kubeflow) {
        CustomResource<JsonNode, JsonNode> now = (CustomResource<JsonNode, JsonNode>) client.resource(job).get();
        ObjectNode status = JsonNodeFactory.instance.objectNode();
        if (kubeflow) {
            status.putArray("conditions").addObject().put("type", "Succeeded").put("status", "True");
        } else {
            status.put("phase", "Succeeded");
        }
        now.setStatus(status);
        client.resource(now).updateStatus();
    }

    private void oneAtATime(CustomResource<JsonNode, JsonNode> first, CustomResource<JsonNode, JsonNode> second,
                            boolean kubeflow, Runnable whileSecondWaits, Runnable onceSecondIsAdmitted) {
        new Cluster(client).apply("/quota/one-at-a-time.yaml");
        client.resource(first).create();
        await().atMost(Duration.ofSeconds(10)).until(() -> admitted(first));
        client.resource(second).create();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !admitted(second));
        whileSecondWaits.run();
        finish(first, kubeflow);
        await().atMost(Duration.ofSeconds(10)).until(() -> admitted(second));
        onceSecondIsAdmitted.run();
        finish(second, kubeflow);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.usage("root.oneAtATime").isEmpty());
    }

    @SuppressWarnings("unchecked")
    private String queuing(CustomResource<JsonNode, JsonNode> job) {
        return KubeflowJobKind.queuingCondition((CustomResource<JsonNode, JsonNode>) client.resource(job).get());
    }

    @ParameterizedTest(name = "{0} suspended by {1}")
    @CsvSource({
        "training-operator_tf_job_mnist.yaml, annotation",
        "training-operator_tf_job_mnist.yaml, runPolicy",
        "training-operator_pytorch_job_mnist_gloo.yaml, annotation",
        "training-operator_pytorch_job_mnist_gloo.yaml, runPolicy",
        "mpi-operator_pi.yaml, annotation",
        "mpi-operator_pi.yaml, runPolicy",
        "mpi-operator_pi.yaml@v1, annotation",
        "mpi-operator_pi.yaml@v1, runPolicy",
    })
    void kubeflowJobsQueueOneAtATimeWithEitherLever(String sample, String lever) {
        CustomResource<JsonNode, JsonNode> first = copy(sample, "first");
        CustomResource<JsonNode, JsonNode> second = copy(sample, "second");
        suspendBy(first, lever);
        suspendBy(second, lever);
        // condition Queuing: only TFJob and PyTorchJob queued by annotation show it, True while queued
        boolean showsQueuing = lever.equals("annotation") && !sample.startsWith("mpi");
        oneAtATime(first, second, true, () -> {
            if (showsQueuing) {
                await().atMost(Duration.ofSeconds(5)).until(() -> "True".equals(queuing(second)));
            } else {
                assertNull(queuing(second));
            }
        }, () -> {
            if (showsQueuing) {
                await().atMost(Duration.ofSeconds(5)).until(() -> "False".equals(queuing(second)));
            }
        });

        // admission removed exactly the mark the job used
        HasMetadata admitted = client.resource(first).get();
        @SuppressWarnings("unchecked")
        JsonNode spec = ((CustomResource<JsonNode, JsonNode>) admitted).getSpec();
        if (lever.equals("annotation")) {
            assertNull(admitted.getMetadata().getAnnotations().get(SuspendMark.ANNOTATION_KEY));
            assertEquals(false, spec.path("runPolicy").has("suspend"));
        } else {
            assertEquals(false, spec.path("runPolicy").path("suspend").asBoolean(true));
            assertNull(admitted.getMetadata().getAnnotations().get(SuspendMark.ANNOTATION_KEY));
        }
    }

    @Test
    void workflowsQueueAsAWholeOnTheirMinResources() {
        Workflow first = (Workflow) copy("argo-workflows_hello-world.yaml", "first");
        Workflow second = (Workflow) copy("argo-workflows_hello-world.yaml", "second");
        for (Workflow w : new Workflow[] {first, second}) {
            ((ObjectNode) w.getSpec()).put("suspend", true);
            w.getMetadata().getAnnotations().put(WorkflowKind.MIN_RESOURCES, "cpu: 5\nmemory: 5G\n");
        }
        oneAtATime(first, second, false, () -> { }, () -> { });
        assertEquals(false, client.resource(first).get().getSpec().path("suspend").asBoolean(true));
    }

    @Test
    void aWorkflowQueuedWithoutMinResourcesStaysSuspendedWithAWarning() {
        new Cluster(client).apply("/quota/one-at-a-time.yaml");
        Workflow workflow = (Workflow) copy("argo-workflows_hello-world.yaml", "no-request");
        workflow.getMetadata().getAnnotations().put(SuspendMark.ANNOTATION_KEY, "true");
        client.resource(workflow).create();
        await().atMost(Duration.ofSeconds(10)).until(() -> new Cluster(client).events("default", "no-request").stream()
                .anyMatch(e -> "InvalidJob".equals(e.getReason())
                        && e.getNote().startsWith("metadata.annotations[kube-queue/min-resources]:")));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !admitted(workflow));
    }

    @ParameterizedTest
    @ValueSource(strings = {"training-operator_tf_job_mnist.yaml", "training-operator_pytorch_job_mnist_gloo.yaml",
        "mpi-operator_pi.yaml", "mpi-operator_pi.yaml@v1"})
    void aKubeflowJobWithNeitherMarkIsLeftAlone(String sample) {
        new Cluster(client).apply("/quota/one-at-a-time.yaml");
        CustomResource<JsonNode, JsonNode> job = copy(sample, "unmanaged");
        client.resource(job).create();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> client.resource(job).get().getMetadata().getAnnotations() == null
                        || !client.resource(job).get().getMetadata().getAnnotations().containsKey(Annotations.QUOTA_GROUP));
    }
}
