package io.kubequeue.demo;

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
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.job.kubeflow.TFJobKind;

/**
 * Plays the training operator and the Job controller against the embedded API server: a job that kube-queue
 * has admitted (no suspend mark left) goes Running, then Succeeded (TFJob) or Complete (Job) after its
 * container's {@code sleep} times the speed factor (10 s if no sleep is found).
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
    BatchJobKind batchJobs;

    private final Map<String, Instant> firstSeen = new HashMap<>();
    private final Map<String, Instant> dueAt = new HashMap<>();

    /** Advances every job one step and returns the table rows, sorted by kind and name. */
    List<Row> step(double speed) {
        Instant now = Instant.now();
        List<Row> rows = new ArrayList<>();
        for (TFJob job : client.resources(TFJob.class).inAnyNamespace().list().getItems()) {
            rows.add(stepTFJob(job, now, speed));
        }
        for (Job job : client.batch().v1().jobs().inAnyNamespace().list().getItems()) {
            rows.add(stepJob(job, now, speed));
        }
        rows.sort(Comparator.comparing(Row::kind).thenComparing(Row::namespace).thenComparing(Row::name));
        return rows;
    }

    private Row stepTFJob(TFJob job, Instant now, double speed) {
        String id = "TFJob/" + job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
        Instant seen = firstSeen.computeIfAbsent(id, k -> now);
        String state;
        if (tfJobs.finished(job)) {
            state = lastCondition(job.getStatus());
        } else if (!tfJobs.suspendMarks(job).isEmpty()) {
            state = "Queuing";
        } else if (!dueAt.containsKey(id)) {
            dueAt.put(id, now.plus(runTime(containers(job.getSpec()), speed)));
            setTFJobConditions(job, "Running");
            state = "Running";
        } else if (!now.isBefore(dueAt.get(id))) {
            setTFJobConditions(job, "Succeeded");
            state = "Succeeded";
        } else {
            state = "Running";
        }
        return new Row("TFJob", job.getMetadata().getNamespace(), job.getMetadata().getName(), state,
                Duration.between(seen, now),
                state.equals("Succeeded") || state.equals("Failed"));
    }

    private Row stepJob(Job job, Instant now, double speed) {
        String id = "Job/" + job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
        Instant seen = firstSeen.computeIfAbsent(id, k -> now);
        String state;
        if (batchJobs.finished(job)) {
            state = "Complete";
        } else if (!batchJobs.suspendMarks(job).isEmpty()) {
            state = "Suspended";
        } else if (!dueAt.containsKey(id)) {
            dueAt.put(id, now.plus(runTime(job.getSpec().getTemplate().getSpec().getContainers(), speed)));
            updateJobStatus(job, false);
            state = "Running";
        } else if (!now.isBefore(dueAt.get(id))) {
            updateJobStatus(job, true);
            state = "Complete";
        } else {
            state = "Running";
        }
        return new Row("Job", job.getMetadata().getNamespace(), job.getMetadata().getName(), state,
                Duration.between(seen, now), state.equals("Complete"));
    }

    private void setTFJobConditions(TFJob job, String last) {
        ObjectNode status = JsonNodeFactory.instance.objectNode();
        ArrayNode conditions = status.putArray("conditions");
        conditions.addObject().put("type", "Created").put("status", "True").put("reason", "TFJobCreated");
        conditions.addObject().put("type", "Running").put("status", last.equals("Running") ? "True" : "False")
                .put("reason", "TFJobRunning");
        if (!last.equals("Running")) {
            conditions.addObject().put("type", last).put("status", "True").put("reason", "TFJob" + last);
        }
        job.setStatus(status);
        try {
            client.resources(TFJob.class).inNamespace(job.getMetadata().getNamespace()).resource(job).updateStatus();
        } catch (KubernetesClientException e) {
            dueAt.remove("TFJob/" + job.getMetadata().getNamespace() + "/" + job.getMetadata().getName());
        }
    }

    private void updateJobStatus(Job job, boolean complete) {
        JobStatusBuilder status = new JobStatusBuilder().withActive(complete ? 0 : 1);
        if (complete) {
            status.withSucceeded(1).withConditions(new JobConditionBuilder().withType("Complete").withStatus("True").build());
        }
        job.setStatus(status.build());
        try {
            client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).resource(job).updateStatus();
        } catch (KubernetesClientException e) {
            dueAt.remove("Job/" + job.getMetadata().getNamespace() + "/" + job.getMetadata().getName());
        }
    }

    private static String lastCondition(JsonNode status) {
        String last = "Created";
        for (JsonNode c : status.path("conditions")) {
            if ("True".equals(c.path("status").asText())) {
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
