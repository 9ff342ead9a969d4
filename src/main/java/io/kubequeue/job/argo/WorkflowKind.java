package io.kubequeue.job.argo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kubequeue.input.BoundedYaml;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.Pruning;
import io.kubequeue.job.RunTimeFields;
import io.kubequeue.job.TellsRunTime;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.resources.Quantities;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;

/**
 * argoproj.io/v1alpha1 Workflow, queued as a whole (seed: "Argo Workflow当前仅支持对整体进行排队"). Managed when
 * suspended by the annotation, or by {@code spec.suspend: true} together with the annotation
 * {@code kube-queue/min-resources} (a workflow suspended without either is someone else's, and left alone). Only
 * {@code spec.suspend} holds it: admission sets it false and removes the annotation. Its
 * request is that annotation: a YAML or JSON map of quantities, e.g. {@code cpu: 5} / {@code memory: 5G}.
 * Finished when {@code status.phase} is Succeeded, Failed or Error (docs/behaviour.md §1, §2). It says how long it
 * may run and when it ended ({@link TellsRunTime}: {@code spec.activeDeadlineSeconds}, {@code status.finishedAt}).
 */
@Singleton
public class WorkflowKind implements JobKind<Workflow>, TellsRunTime<Workflow> {

    /** The annotation that holds a workflow's request. */
    public static final String MIN_RESOURCES = "kube-queue/min-resources";

    /** The annotations whose values a workflow's cached copy keeps. */
    private static final Set<String> ANNOTATIONS_READ = Stream.concat(Pruning.JOB_ANNOTATIONS.stream(),
            Stream.of(MIN_RESOURCES)).collect(Collectors.toUnmodifiableSet());
    /** The longest {@value #MIN_RESOURCES} read, in characters (docs/security.md, "Hostile input: the bounds"). */
    public static final int MIN_RESOURCES_MAX_LENGTH = 4096;
    /** The most resources {@value #MIN_RESOURCES} may name. */
    public static final int MIN_RESOURCES_MAX_ENTRIES = 64;
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final String ACTIVE_DEADLINE = "activeDeadlineSeconds";
    private static final String FINISHED_AT = "finishedAt";

    @Override
    public String kind() {
        return "Workflow";
    }

    @Override
    public Class<Workflow> type() {
        return Workflow.class;
    }

    @Override
    public List<SuspendMark> suspendMarks(Workflow workflow) {
        List<SuspendMark> marks = new ArrayList<>(2);
        if (SuspendMark.annotated(workflow)) {
            marks.add(SuspendMark.ANNOTATION);
        }
        if (held(workflow) && (minResources(workflow) != null || !marks.isEmpty())) {
            marks.add(SuspendMark.SPEC_SUSPEND);
        }
        return marks;
    }

    /** Argo's controller reads {@code spec.suspend} only: after {@code argo resume} the workflow runs, annotation or not. */
    @Override
    public boolean held(Workflow workflow) {
        return workflow.getSpec() != null && workflow.getSpec().path("suspend").asBoolean(false);
    }

    /**
     * A node of the workflow has been created ({@code status.nodes} not empty). Not {@code status.startedAt}: Argo's
     * controller marks every new workflow Running, start time included, before it honours {@code spec.suspend}, so
     * a workflow queued from its creation has one too.
     */
    @Override
    public boolean started(Workflow workflow) {
        return workflow.getStatus() != null && workflow.getStatus().path("nodes").size() > 0;
    }

    @Override
    public boolean finished(Workflow workflow) {
        String phase = workflow.getStatus() == null ? "" : workflow.getStatus().path("phase").asText("");
        return phase.equals("Succeeded") || phase.equals("Failed") || phase.equals("Error");
    }

    /**
     * {@code spec.activeDeadlineSeconds} (Argo's {@code WorkflowSpec}, int64): the controller fails the workflow that
     * long after it started. The CRD keeps any JSON in {@code spec}, so a tenant may write anything here; read by
     * {@link RunTimeFields#seconds(JsonNode)}: a JSON integer from 1 to {@link RunTimeFields#LONGEST}, else absent.
     */
    @Override
    public Optional<Duration> activeDeadline(Workflow workflow) {
        JsonNode spec = workflow.getSpec();
        return spec == null ? Optional.empty() : RunTimeFields.seconds(spec.get(ACTIVE_DEADLINE));
    }

    /**
     * {@code status.finishedAt} (Argo's {@code WorkflowStatus}: set when the workflow completes, whatever its phase).
     * The CRD has no status subresource, so a tenant may write it too; read by {@link RunTimeFields#time(JsonNode)}.
     */
    @Override
    public Optional<Instant> completionTime(Workflow workflow) {
        JsonNode status = workflow.getStatus();
        return status == null ? Optional.empty() : RunTimeFields.time(status.get(FINISHED_AT));
    }

    /**
     * @return the quantities of {@code kube-queue/min-resources} (millicores, bytes, counts)
     * @throws InvalidJobException if the annotation is missing, not a map, or holds a bad quantity; the
     *                             original admitted such workflows at zero cost, we do not. The annotation is read
     *                             within bounds ({@link BoundedYaml}: at most {@value #MIN_RESOURCES_MAX_LENGTH}
     *                             characters and {@value #MIN_RESOURCES_MAX_ENTRIES} entries, flat, no aliases), each
     *                             quantity as written ({@link Quantities} bounds)
     */
    @Override
    public Resources request(Workflow workflow) {
        String text = minResources(workflow);
        String field = "metadata.annotations[" + MIN_RESOURCES + "]";
        if (text == null || text.isBlank()) {
            throw new InvalidJobException(field, null, "a queued Workflow needs its request in this annotation,"
                    + " e.g. 'cpu: 5' and 'memory: 5G' on separate lines");
        }
        Map<String, String> map;
        try {
            map = BoundedYaml.flatMap(text, MIN_RESOURCES_MAX_LENGTH, MIN_RESOURCES_MAX_ENTRIES);
        } catch (IllegalArgumentException e) {
            throw new InvalidJobException(field, text.strip(), e.getMessage()
                    + "; must be a map of resource name to quantity, e.g. 'cpu: 5' and 'memory: 5G' on separate lines");
        }
        if (map.isEmpty()) {
            throw new InvalidJobException(field, text.strip(), "must be a map of resource name to quantity");
        }
        Map<String, Long> units = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : map.entrySet()) {
            String name = entry.getKey();
            String value = entry.getValue();
            if (value == null || BoundedYaml.COLLECTION.equals(value)) {
                throw new InvalidJobException(field + "." + name, value == null ? null : "a list or map",
                        "must be a quantity such as 5 or 5G");
            }
            try {
                units.put(name, Quantities.toUnits(name, new Quantity(value)));
            } catch (IllegalArgumentException e) {
                throw new InvalidJobException(field + "." + name, value, e.getMessage());
            }
        }
        return Resources.of(units);
    }

    /** Argo's label {@code workflows.argoproj.io/workflow} on every pod of the workflow. */
    @Override
    public String podLabelKey() {
        return "workflows.argoproj.io/workflow";
    }

    /** From the workflow's {@code spec.podPriorityClassName} and {@code spec.podPriority} (Argo's fields). */
    @Override
    public JobPriority priority(Workflow workflow) {
        JsonNode spec = workflow.getSpec();
        if (spec == null) {
            return JobPriority.NONE;
        }
        JsonNode className = spec.path("podPriorityClassName");
        JsonNode priority = spec.path("podPriority");
        return new JobPriority(className.isTextual() ? className.asText() : null,
                priority.isInt() ? priority.asInt() : null);
    }

    /**
     * Keeps {@code spec.suspend}, {@code spec.podPriorityClassName}, {@code spec.podPriority} when they are scalars
     * (not the templates; a collection there reads as the field's absence, and is not kept),
     * {@code spec.activeDeadlineSeconds} when it is a number, {@code status.phase}, {@code status.finishedAt} when it
     * is a string of at most {@value RunTimeFields#TIME_MAX_LENGTH} characters (else it reads as absent), and of {@code status.nodes} only whether it has an entry: one entry, emptied, stands for
     * all of them ({@link #started} reads nothing else). The annotation {@value #MIN_RESOURCES} keeps its value.
     */
    @Override
    public Workflow pruned(Workflow workflow) {
        Workflow copy = new Workflow();
        copy.setMetadata(Pruning.jobMetadata(workflow.getMetadata(), ANNOTATIONS_READ));
        JsonNode spec = workflow.getSpec();
        if (spec != null && spec.isObject()) {
            ObjectNode kept = JSON.objectNode();
            for (String field : List.of("suspend", "podPriorityClassName", "podPriority")) {
                // scalars only: a tenant may write any JSON here, 10,000 levels of it (the readers answer the same
                // for a missing field as for a collection: not suspended, no class name, no priority)
                if (spec.get(field) != null && spec.get(field).isValueNode()) {
                    kept.set(field, spec.get(field));
                }
            }
            JsonNode deadline = spec.get(ACTIVE_DEADLINE);
            if (deadline != null && deadline.isNumber()) {
                kept.set(ACTIVE_DEADLINE, deadline); // anything else reads as absent
            }
            spec = kept;
        }
        copy.setSpec(spec);
        JsonNode status = workflow.getStatus();
        if (status != null && status.isObject()) {
            ObjectNode kept = JSON.objectNode();
            if (status.get("phase") != null && status.get("phase").isValueNode()) {
                kept.set("phase", status.get("phase"));
            }
            JsonNode finishedAt = status.get(FINISHED_AT);
            if (finishedAt != null && finishedAt.isTextual()
                    && finishedAt.textValue().length() <= RunTimeFields.TIME_MAX_LENGTH) {
                kept.set(FINISHED_AT, finishedAt); // anything else reads as absent
            }
            JsonNode nodes = status.path("nodes");
            if (nodes.isObject() && nodes.size() > 0) {
                kept.putObject("nodes").putObject(nodes.fieldNames().next());
            } else if (nodes.isArray() && nodes.size() > 0) {
                kept.putArray("nodes").addObject();
            }
            status = kept.isEmpty() ? null : kept;
        }
        copy.setStatus(status);
        return copy;
    }

    private static String minResources(Workflow workflow) {
        Map<String, String> annotations = workflow.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(MIN_RESOURCES);
    }
}
