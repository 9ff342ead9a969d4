package io.kubequeue.demo;

import java.util.Optional;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.JobKindRegistry;
import io.kubequeue.job.declared.DeclaredJobKind;
import io.kubequeue.job.declared.QueuedKind;
import io.kubequeue.job.declared.QueuedKindSpec;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.argo.WorkflowKind;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.job.kubeflow.KubeflowJobKind;
import io.kubequeue.job.kubeflow.MPIJobKind;
import io.kubequeue.job.kubeflow.PyTorchJobKind;
import io.kubequeue.job.kubeflow.TFJobKind;

/**
 * Plays the training operator, Argo and the Job controller against the embedded API server: a job that
 * kube-queue has admitted (no suspend mark left) goes Running, then Succeeded (Kubeflow kinds, Workflow) or
 * Complete (Job) after its containers' longest {@code sleep} times the speed factor (10 s if none).
 *
 * <p>The STATE column is what {@code kubectl get} prints: a Kubeflow job's last condition (so a job queued
 * by annotation shows kube-queue's {@code Queuing} condition), a Workflow's phase, a Job's status.
 */
@Singleton
public class JobSimulator {

    private static final Pattern SLEEP = Pattern.compile("sleep\\s+(\\d+(?:\\.\\d+)?)([smh]?)");

    /** One line of the table. */
    record Row(String kind, String namespace, String name, String state, Duration age, boolean finished) {
    }

    @Inject
    KubernetesClient client;

    @Inject
    TFJobKind tfJobs;

    @Inject
    PyTorchJobKind pyTorchJobs;

    @Inject
    MPIJobKind mpiJobs;

    @Inject
    WorkflowKind workflows;

    @Inject
    BatchJobKind batchJobs;

    @Inject
    JobKindRegistry kinds;

    private final Map<String, Instant> firstSeen = new HashMap<>();
    private final Map<String, Instant> dueAt = new HashMap<>();

    /** Advances every job one step and returns the table rows, sorted by kind, namespace and name. */
    List<Row> step(double speed) {
        Instant now = Instant.now();
        List<Row> rows = new ArrayList<>();
        for (KubeflowJobKind<?> kind : List.of(tfJobs, pyTorchJobs, mpiJobs)) {
            stepKubeflow(kind, now, speed, rows);
        }
        for (Workflow workflow : client.resources(Workflow.class).inAnyNamespace().list().getItems()) {
            rows.add(stepWorkflow(workflow, now, speed));
        }
        for (Job job : client.batch().v1().jobs().inAnyNamespace().list().getItems()) {
            rows.add(stepJob(job, now, speed));
        }
        for (JobKind<?> kind : kinds.all()) {
            if (kind instanceof DeclaredJobKind declared) {
                QueuedKindSpec.Finished finished = declaration(declared).map(q -> q.getSpec().finished).orElse(null);
                for (GenericKubernetesResource job : client.genericKubernetesResources(declared.context())
                        .inAnyNamespace().list().getItems()) {
                    rows.add(stepDeclared(declared, finished, job, now, speed));
                }
            }
        }
        rows.sort(Comparator.comparing(Row::kind).thenComparing(Row::namespace).thenComparing(Row::name));
        return rows;
    }

    private <R extends CustomResource<JsonNode, JsonNode>> void stepKubeflow(KubeflowJobKind<R> kind, Instant now,
                                                                             double speed, List<Row> rows) {
        for (R job : client.resources(kind.type()).inAnyNamespace().list().getItems()) {
            String id = id(kind.kind(), job.getMetadata().getNamespace(), job.getMetadata().getName());
            Instant seen = firstSeen.computeIfAbsent(id, k -> now);
            if (!kind.finished(job) && kind.suspendMarks(job).isEmpty()) {
                if (!dueAt.containsKey(id)) {
                    dueAt.put(id, now.plus(runTime(containers(job.getSpec()), speed)));
                    addConditions(kind, job, id, "Created", "Running");
                } else if (!now.isBefore(dueAt.get(id))) {
                    addConditions(kind, job, id, "Succeeded");
                }
                job = client.resource(job).get();
            }
            rows.add(new Row(kind.kind(), job.getMetadata().getNamespace(), job.getMetadata().getName(),
                    lastCondition(job.getStatus()), Duration.between(seen, now), kind.finished(job)));
        }
    }

    private Row stepWorkflow(Workflow workflow, Instant now, double speed) {
        String id = id("Workflow", workflow.getMetadata().getNamespace(), workflow.getMetadata().getName());
        Instant seen = firstSeen.computeIfAbsent(id, k -> now);
        if (!workflows.finished(workflow) && workflows.suspendMarks(workflow).isEmpty()) {
            if (!dueAt.containsKey(id)) {
                dueAt.put(id, now.plus(runTime(List.of(), speed)));
                setPhase(workflow, id, "Running");
            } else if (!now.isBefore(dueAt.get(id))) {
                setPhase(workflow, id, "Succeeded");
            }
            workflow = client.resource(workflow).get();
        }
        String phase = workflow.getStatus() == null ? "" : workflow.getStatus().path("phase").asText("");
        boolean suspended = workflow.getSpec() != null && workflow.getSpec().path("suspend").asBoolean(false);
        return new Row("Workflow", workflow.getMetadata().getNamespace(), workflow.getMetadata().getName(),
                phase.isEmpty() && suspended ? "Suspended" : phase, Duration.between(seen, now),
                workflows.finished(workflow));
    }

    private Row stepJob(Job job, Instant now, double speed) {
        String id = id("Job", job.getMetadata().getNamespace(), job.getMetadata().getName());
        Instant seen = firstSeen.computeIfAbsent(id, k -> now);
        String state;
        if (batchJobs.finished(job)) {
            state = "Complete";
        } else if (!batchJobs.suspendMarks(job).isEmpty()) {
            state = "Suspended";
        } else if (!dueAt.containsKey(id)) {
            dueAt.put(id, now.plus(runTime(job.getSpec().getTemplate().getSpec().getContainers(), speed)));
            updateJobStatus(job, id, false);
            state = "Running";
        } else if (!now.isBefore(dueAt.get(id))) {
            updateJobStatus(job, id, true);
            state = "Complete";
        } else {
            state = "Running";
        }
        return new Row("Job", job.getMetadata().getNamespace(), job.getMetadata().getName(), state,
                Duration.between(seen, now), state.equals("Complete"));
    }

    /**
     * A declared kind's job (docs/kinds.md): Suspended while held, Running once admitted, then finished as its
     * declaration reads it (the first condition type of {@code finished.conditions}, or the first value of
     * {@code finished.field}); a kind that never finishes keeps Running.
     */
    private Row stepDeclared(DeclaredJobKind kind, QueuedKindSpec.Finished finished, GenericKubernetesResource job,
                             Instant now, double speed) {
        String id = id(kind.kind(), job.getMetadata().getNamespace(), job.getMetadata().getName());
        Instant seen = firstSeen.computeIfAbsent(id, k -> now);
        String state;
        String end = finished == null ? "Finished" : finished.conditions != null && !finished.conditions.isEmpty()
                ? finished.conditions.get(0) : finished.values != null && !finished.values.isEmpty()
                ? finished.values.get(0) : "Finished";
        if (kind.finished(job)) {
            state = end;
        } else if (!kind.suspendMarks(job).isEmpty()) {
            state = "Suspended";
        } else if (!dueAt.containsKey(id)) {
            dueAt.put(id, now.plus(runTime(containersIn(job), speed)));
            state = "Running";
        } else if (now.isBefore(dueAt.get(id)) || finished == null) {
            state = "Running";
        } else {
            Map<String, Object> status = new HashMap<>();
            if (finished.conditions != null && !finished.conditions.isEmpty()) {
                status.put("conditions", List.of(Map.of("type", finished.conditions.get(0), "status", "True")));
            } else if (finished.field != null && finished.field.startsWith("status.") && finished.values != null) {
                Map<String, Object> at = status;
                String[] names = finished.field.substring("status.".length()).split("\\.");
                for (int i = 0; i < names.length - 1; i++) {
                    Map<String, Object> inner = new HashMap<>();
                    at.put(names[i], inner);
                    at = inner;
                }
                at.put(names[names.length - 1], finished.values.get(0));
            }
            job.setAdditionalProperty("status", status);
            try {
                client.genericKubernetesResources(kind.context()).inNamespace(job.getMetadata().getNamespace())
                        .resource(job).updateStatus();
                state = end;
            } catch (KubernetesClientException e) {
                dueAt.remove(id);
                state = "Running";
            }
        }
        return new Row(kind.kind(), job.getMetadata().getNamespace(), job.getMetadata().getName(), state,
                Duration.between(seen, now), state.equals(end));
    }

    private Optional<QueuedKind> declaration(DeclaredJobKind kind) {
        return Optional.ofNullable(client.resources(QueuedKind.class).withName(kind.declaration()).get());
    }

    /** Every container under the job's spec, at any depth up to 32 levels (for its sleep). */
    private List<Container> containersIn(GenericKubernetesResource job) {
        List<Container> all = new ArrayList<>();
        collectContainers(client.getKubernetesSerialization().convertValue(job.getAdditionalProperties().get("spec"),
                JsonNode.class), all, 0);
        return all;
    }

    private void collectContainers(JsonNode node, List<Container> into, int depth) {
        if (node == null || depth > 32) {
            return;
        }
        if (node.isObject() && node.get("containers") != null && node.get("containers").isArray()) {
            for (JsonNode c : node.get("containers")) {
                into.add(client.getKubernetesSerialization().convertValue(c, Container.class));
            }
        }
        for (JsonNode child : node) {
            collectContainers(child, into, depth + 1);
        }
    }

    private static String id(String kind, String namespace, String name) {
        return kind + "/" + namespace + "/" + name;
    }

    /** Appends conditions as the training operator does; a Running condition before them turns False. */
    private <R extends CustomResource<JsonNode, JsonNode>> void addConditions(KubeflowJobKind<R> kind, R job, String id,
                                                                              String... types) {
        try {
            client.resources(kind.type()).inNamespace(job.getMetadata().getNamespace())
                    .withName(job.getMetadata().getName()).editStatus(current -> {
                        ObjectNode status = current.getStatus() instanceof ObjectNode o ? o.deepCopy()
                                : JsonNodeFactory.instance.objectNode();
                        ArrayNode conditions = JsonNodeFactory.instance.arrayNode();
                        for (JsonNode c : status.path("conditions")) {
                            ObjectNode copy = (ObjectNode) c.deepCopy();
                            if ("Running".equals(c.path("type").asText())) {
                                copy.put("status", "False");
                            }
                            conditions.add(copy);
                        }
                        for (String type : types) {
                            conditions.addObject().put("type", type).put("status", "True")
                                    .put("reason", kind.kind() + type);
                        }
                        status.set("conditions", conditions);
                        current.setStatus(status);
                        return current;
                    });
        } catch (KubernetesClientException e) {
            dueAt.remove(id); // try again next step
        }
    }

    private void setPhase(Workflow workflow, String id, String phase) {
        try {
            client.resources(Workflow.class).inNamespace(workflow.getMetadata().getNamespace())
                    .withName(workflow.getMetadata().getName()).editStatus(current -> {
                        current.setStatus(JsonNodeFactory.instance.objectNode().put("phase", phase));
                        return current;
                    });
        } catch (KubernetesClientException e) {
            dueAt.remove(id);
        }
    }

    private void updateJobStatus(Job job, String id, boolean complete) {
        JobStatusBuilder status = new JobStatusBuilder().withActive(complete ? 0 : 1);
        if (complete) {
            status.withSucceeded(1).withConditions(new JobConditionBuilder().withType("Complete").withStatus("True").build());
        }
        job.setStatus(status.build());
        try {
            client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).resource(job).updateStatus();
        } catch (KubernetesClientException e) {
            dueAt.remove(id);
        }
    }

    /** What {@code kubectl get tfjob} prints as STATE: the type of the last condition, blank without one. */
    private static String lastCondition(JsonNode status) {
        String last = "";
        if (status != null) {
            for (JsonNode c : status.path("conditions")) {
                last = c.path("type").asText();
            }
        }
        return last;
    }

    /** Every container of every replica of a Kubeflow spec (for its sleep). */
    private List<Container> containers(JsonNode spec) {
        List<Container> all = new ArrayList<>();
        if (spec == null) {
            return all;
        }
        for (JsonNode replicaSpecs : spec) {
            for (JsonNode replica : replicaSpecs) {
                for (JsonNode c : replica.path("template").path("spec").path("containers")) {
                    all.add(client.getKubernetesSerialization().convertValue(c, Container.class));
                }
            }
        }
        return all;
    }

    /** The longest {@code sleep} in the containers' command lines, times the speed factor. */
    private static Duration runTime(List<Container> containers, double speed) {
        double seconds = 0;
        for (Container c : containers) {
            List<String> words = new ArrayList<>();
            if (c.getCommand() != null) {
                words.addAll(c.getCommand());
            }
            if (c.getArgs() != null) {
                words.addAll(c.getArgs());
            }
            Matcher m = SLEEP.matcher(String.join(" ", words));
            while (m.find()) {
                double value = Double.parseDouble(m.group(1));
                double unit = switch (m.group(2)) {
                    case "m" -> 60;
                    case "h" -> 3600;
                    default -> 1;
                };
                seconds = Math.max(seconds, value * unit);
            }
        }
        if (seconds == 0) {
            seconds = 10;
        }
        return Duration.ofMillis((long) (seconds * speed * 1000));
    }
}
