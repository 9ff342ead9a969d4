package io.kubequeue.job.kubeflow;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.FieldPath;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.PodSets;
import io.kubequeue.job.Pruning;
import io.kubequeue.job.RunTimeFields;
import io.kubequeue.job.TellsRunTime;
import io.kubequeue.job.StopsWhenSuspended;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;

/**
 * What the Kubeflow job kinds share (docs/behaviour.md §1, §2): suspended by the annotation (ack-arena operators)
 * or {@code spec.runPolicy.suspend} (training-operator ≥ 1.7); request = Σ over replica specs of pod ×
 * {@code replicas} (default 1); finished when condition {@code Succeeded} or {@code Failed} is True. A job whose
 * spec has {@code runPolicy.suspend} may be evicted ({@link #stopMark}). It says how long it may run and when it
 * ended ({@link TellsRunTime}: {@code spec.runPolicy.activeDeadlineSeconds}, {@code status.completionTime}).
 *
 * @param <R> the kind's class, spec and status read as JSON
 */
public abstract class KubeflowJobKind<R extends CustomResource<JsonNode, JsonNode>> implements JobKind<R>,
        StopsWhenSuspended<R>, TellsRunTime<R> {

    /** The conditions kube-queue reads: {@link #finished} and {@link #queuingCondition}. */
    private static final Set<String> CONDITIONS_READ = Set.of("Succeeded", "Failed", "Queuing");
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final String ACTIVE_DEADLINE = "activeDeadlineSeconds";

    private final KubernetesSerialization serialization;
    private final String kind;
    private final Class<R> type;
    private final Supplier<R> factory;
    private final String replicaSpecsField;
    private final PodSets podSets;

    /**
     * @param kind              the kind name, e.g. {@code TFJob}
     * @param type              its class
     * @param factory           makes an empty object of the class, for {@link #pruned}
     * @param replicaSpecsField e.g. {@code tfReplicaSpecs}
     */
    protected KubeflowJobKind(KubernetesSerialization serialization, String kind, Class<R> type, Supplier<R> factory,
                              String replicaSpecsField) {
        this.serialization = serialization;
        this.kind = kind;
        this.type = type;
        this.factory = factory;
        this.replicaSpecsField = replicaSpecsField;
        this.podSets = podSets(replicaSpecsField);
    }

    /**
     * The Kubeflow request rule as pod sets: every value of {@code spec.<replicaSpecsField>} is a replica spec, its
     * {@code template} × {@code replicas} (default 1). A Kubeflow kind declared as a {@code QueuedKind} with these
     * pod sets charges the same (docs/kinds.md).
     *
     * @param replicaSpecsField e.g. {@code tfReplicaSpecs}
     */
    public static PodSets podSets(String replicaSpecsField) {
        return new PodSets(List.of(PodSets.Rule.of(replicaSpecsField, FieldPath.parse("spec." + replicaSpecsField + ".*"),
                FieldPath.parse("template"), false, new PodSets.Count(FieldPath.parse("replicas"), 1, null))));
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public Class<R> type() {
        return type;
    }

    @Override
    public List<SuspendMark> suspendMarks(R job) {
        List<SuspendMark> marks = new ArrayList<>(2);
        if (SuspendMark.annotated(job)) {
            marks.add(SuspendMark.ANNOTATION);
        }
        JsonNode spec = job.getSpec();
        if (spec != null && spec.path("runPolicy").path("suspend").asBoolean(false)) {
            marks.add(SuspendMark.RUN_POLICY_SUSPEND);
        }
        return marks;
    }

    /**
     * {@link SuspendMark#RUN_POLICY_SUSPEND} if the job's spec has {@code runPolicy.suspend} (true or false), else
     * empty. The operators that define the field (training-operator ≥ 1.7, mpi-operator v2beta1) delete a running
     * job's pods when it becomes true; a job admitted through the ack-arena annotation alone has no such field, and
     * its operator does not stop a running job when the annotation comes back, so it is never evicted. Absent,
     * the field is not added: a CRD without it would prune it, or its operator ignore it.
     */
    @Override
    public Optional<SuspendMark> stopMark(R job) {
        JsonNode spec = job.getSpec();
        return spec != null && spec.path("runPolicy").path("suspend").isBoolean()
                ? Optional.of(SuspendMark.RUN_POLICY_SUSPEND) : Optional.empty();
    }

    /** The status of the job's {@code Queuing} condition ({@code True}, {@code False}), or null without one. */
    public static String queuingCondition(CustomResource<JsonNode, JsonNode> job) {
        if (job.getStatus() == null) {
            return null;
        }
        for (JsonNode c : job.getStatus().path("conditions")) {
            if ("Queuing".equals(c.path("type").asText())) {
                return c.path("status").asText();
            }
        }
        return null;
    }

    /**
     * {@link #queuingCondition(CustomResource)}; {@link io.kubequeue.job.ShowsQueuingCondition#queuingStatus} of
     * the kinds that show the condition.
     */
    public String queuingStatus(R job) {
        return queuingCondition(job);
    }

    /**
     * Replaces condition {@code Queuing} in {@code status.conditions} by one of the training operators' shape
     * ({@code type}, {@code status}, {@code reason}, {@code message}, {@code lastUpdateTime},
     * {@code lastTransitionTime}), appended after the other conditions, which are kept as they are; a status that
     * is not a JSON object is replaced by one. {@link io.kubequeue.job.ShowsQueuingCondition#setQueuingCondition}
     * of the kinds that show the condition.
     */
    public void setQueuingCondition(R job, String status, String reason, String message, Instant at) {
        String time = at.toString();
        ObjectNode statusNode = job.getStatus() instanceof ObjectNode o ? o.deepCopy() : JSON.objectNode();
        ArrayNode conditions = JSON.arrayNode();
        for (JsonNode c : statusNode.path("conditions")) {
            if (!"Queuing".equals(c.path("type").asText())) {
                conditions.add(c);
            }
        }
        conditions.addObject().put("type", "Queuing").put("status", status).put("reason", reason)
                .put("message", message).put("lastUpdateTime", time).put("lastTransitionTime", time);
        statusNode.set("conditions", conditions);
        job.setStatus(statusNode);
    }

    /** {@code status.startTime} is set. */
    @Override
    public boolean started(R job) {
        return job.getStatus() != null && !job.getStatus().path("startTime").asText("").isEmpty();
    }

    @Override
    public boolean finished(R job) {
        JsonNode status = job.getStatus();
        if (status == null) {
            return false;
        }
        for (JsonNode c : status.path("conditions")) {
            String type = c.path("type").asText();
            if (("Succeeded".equals(type) || "Failed".equals(type)) && "True".equals(c.path("status").asText())) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code spec.runPolicy.activeDeadlineSeconds} (training-operator v1 {@code RunPolicy}, int64; mpi-operator
     * v2beta1 the same): the operator fails the job that long after its {@code status.startTime}. Read by
     * {@link RunTimeFields#seconds(JsonNode)}: a JSON integer from 1 to {@link RunTimeFields#LONGEST}, else absent.
     */
    @Override
    public Optional<Duration> activeDeadline(R job) {
        JsonNode spec = job.getSpec();
        return spec == null ? Optional.empty() : RunTimeFields.seconds(spec.path("runPolicy").get(ACTIVE_DEADLINE));
    }

    /**
     * {@code status.completionTime} (training-operator v1 {@code JobStatus}: set when the job succeeds or fails);
     * where it is missing or does not read, the {@code lastTransitionTime} of the last condition {@code Succeeded} or
     * {@code Failed} whose status is True. Each read by {@link RunTimeFields#time(JsonNode)}.
     */
    @Override
    public Optional<Instant> completionTime(R job) {
        JsonNode status = job.getStatus();
        if (status == null) {
            return Optional.empty();
        }
        Optional<Instant> completed = RunTimeFields.time(status.get("completionTime"));
        if (completed.isPresent()) {
            return completed;
        }
        JsonNode ended = null;
        for (JsonNode c : status.path("conditions")) {
            String type = c.path("type").asText();
            if (("Succeeded".equals(type) || "Failed".equals(type)) && "True".equals(c.path("status").asText())) {
                ended = c;
            }
        }
        return ended == null ? Optional.empty() : RunTimeFields.time(ended.get("lastTransitionTime"));
    }

    @Override
    public Resources request(R job) {
        return request(job, PodDefaults.NONE);
    }

    /**
     * Σ over replica specs of the template's pod, priced with {@code defaults}, × replicas (default 1): the pod-set
     * rule ({@link PodSets}) every declared kind is read by too.
     */
    @Override
    public Resources request(R job, PodDefaults defaults) {
        JsonNode replicaSpecs = job.getSpec() == null ? null : job.getSpec().get(replicaSpecsField);
        if (replicaSpecs == null || !replicaSpecs.isObject() || replicaSpecs.isEmpty()) {
            throw new InvalidJobException("spec." + replicaSpecsField, replicaSpecs,
                    "at least one replica spec is needed");
        }
        return podSets.request(JSON.objectNode().set("spec", job.getSpec()), defaults, serialization);
    }

    /**
     * The training operators' label {@code training.kubeflow.org/job-name} (training-operator ≥ 1.7 and
     * mpi-operator v2; the ack-arena operators' older {@code job-name} label is not read yet).
     */
    @Override
    public String podLabelKey() {
        return "training.kubeflow.org/job-name";
    }

    /**
     * From the first replica spec (in the order the job lists them) whose pod template names a
     * {@code priorityClassName} or sets {@code priority}; the training operators give every replica's pods the
     * same scheduling priority in practice.
     */
    @Override
    public JobPriority priority(R job) {
        return job.getSpec() == null ? JobPriority.NONE
                : podSets.priority(JSON.objectNode().set("spec", job.getSpec()));
    }

    /**
     * Keeps {@code spec.runPolicy.suspend} and {@code spec.runPolicy.activeDeadlineSeconds} (a number only); of each
     * replica spec, in order, {@code replicas} and the pod template's requests and priority
     * ({@link Pruning#podTemplate}); {@code status.startTime} and {@code status.completionTime} (a string that may read only), and
     * the type and status of conditions {@code Succeeded}, {@code Failed} and {@code Queuing}, with the
     * {@code lastTransitionTime} (likewise) of the first two ({@link #completionTime}). A part that is not the JSON object it should
     * be is kept as written, so that reading it fails the same way.
     */
    @Override
    public R pruned(R job) {
        R copy = factory.get();
        copy.setMetadata(Pruning.jobMetadata(job.getMetadata()));
        copy.setSpec(prunedSpec(job.getSpec()));
        copy.setStatus(prunedStatus(job.getStatus()));
        return copy;
    }

    private JsonNode prunedSpec(JsonNode spec) {
        if (spec == null || !spec.isObject()) {
            return spec;
        }
        ObjectNode copy = JSON.objectNode();
        JsonNode suspend = spec.path("runPolicy").path("suspend");
        if (!suspend.isMissingNode()) {
            copy.putObject("runPolicy").set("suspend", suspend);
        }
        JsonNode deadline = spec.path("runPolicy").path(ACTIVE_DEADLINE);
        if (deadline.isNumber()) {
            // a number only: anything else reads as absent, and the cache keeps no tenant's deep JSON or long string
            (copy.get("runPolicy") instanceof ObjectNode runPolicy ? runPolicy : copy.putObject("runPolicy"))
                    .set(ACTIVE_DEADLINE, deadline);
        }
        JsonNode replicaSpecs = spec.get(replicaSpecsField);
        if (replicaSpecs == null || !replicaSpecs.isObject()) {
            if (replicaSpecs != null) {
                copy.set(replicaSpecsField, replicaSpecs);
            }
            return copy;
        }
        ObjectNode replicas = copy.putObject(replicaSpecsField);
        for (Iterator<Map.Entry<String, JsonNode>> it = replicaSpecs.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> replica = it.next();
            if (!replica.getValue().isObject()) {
                replicas.set(replica.getKey(), replica.getValue());
                continue;
            }
            ObjectNode kept = replicas.putObject(replica.getKey());
            JsonNode count = replica.getValue().get("replicas");
            if (count != null) {
                kept.set("replicas", count);
            }
            JsonNode template = replica.getValue().get("template");
            if (template != null) {
                kept.set("template", Pruning.podTemplate(template, serialization));
            }
        }
        return copy;
    }

    private static JsonNode prunedStatus(JsonNode status) {
        if (status == null || !status.isObject()) {
            return status;
        }
        ObjectNode copy = JSON.objectNode();
        JsonNode startTime = status.get("startTime");
        if (startTime != null) {
            copy.set("startTime", startTime);
        }
        JsonNode completionTime = status.get("completionTime");
        if (keptTime(completionTime)) {
            copy.set("completionTime", completionTime);
        }
        JsonNode conditions = status.get("conditions");
        if (conditions != null && !conditions.isArray()) {
            copy.set("conditions", conditions);
        } else if (conditions != null) {
            ArrayNode kept = JSON.arrayNode();
            for (JsonNode c : conditions) {
                if (CONDITIONS_READ.contains(c.path("type").asText())) {
                    ObjectNode condition = kept.addObject();
                    condition.set("type", c.get("type"));
                    if (c.get("status") != null) {
                        condition.set("status", c.get("status"));
                    }
                    JsonNode transition = c.get("lastTransitionTime");
                    if (keptTime(transition) && !"Queuing".equals(c.path("type").asText())) {
                        condition.set("lastTransitionTime", transition); // the job's end: completionTime
                    }
                }
            }
            if (!kept.isEmpty()) {
                copy.set("conditions", kept);
            }
        }
        return copy.isEmpty() ? null : copy;
    }

    /** A time the copy keeps: a string that may read ({@link RunTimeFields#time(JsonNode)} reads no other). */
    private static boolean keptTime(JsonNode time) {
        return time != null && time.isTextual() && time.textValue().length() <= RunTimeFields.TIME_MAX_LENGTH;
    }
}
