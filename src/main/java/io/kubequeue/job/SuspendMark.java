package io.kubequeue.job;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * A way a job can be held back, and how admission removes it (docs/behaviour.md §1). Each mark is a JSON pointer;
 * admission sends a {@code test} op on it, so a decision taken on a stale view cannot admit twice. The built-in
 * kinds use the three constants; a declared kind (docs/kinds.md) may name any boolean field ({@link #field}).
 * Marks are values: equal when their pointers are.
 */
public final class SuspendMark {

    /** The annotation that suspends a job until kube-queue admits it. */
    public static final String ANNOTATION_KEY = "scheduling.x-k8s.io/suspend";

    /** Annotation {@code scheduling.x-k8s.io/suspend: "true"} (ack-arena operators); removed on admission. */
    public static final SuspendMark ANNOTATION = new SuspendMark("/metadata/annotations/scheduling.x-k8s.io~1suspend",
            "annotation " + ANNOTATION_KEY + ": \"true\"", true);
    /** {@code spec.suspend: true} (batch/v1 Job, Argo Workflow, most newer CRDs); set to false on admission. */
    public static final SuspendMark SPEC_SUSPEND = new SuspendMark("/spec/suspend", "spec.suspend: true", false);
    /** {@code spec.runPolicy.suspend: true} (training-operator ≥ 1.7, mpi-operator v2beta1); set to false. */
    public static final SuspendMark RUN_POLICY_SUSPEND = new SuspendMark("/spec/runPolicy/suspend",
            "spec.runPolicy.suspend: true", false);

    private static final List<SuspendMark> BUILT_IN = List.of(ANNOTATION, SPEC_SUSPEND, RUN_POLICY_SUSPEND);

    /** Every list of up to two distinct built-in marks, each one shared instance (see {@link #shared}). */
    private static final Map<List<SuspendMark>, List<SuspendMark>> LISTS = lists();

    private final String pointer;
    private final String description;
    private final boolean annotation;

    private SuspendMark(String pointer, String description, boolean annotation) {
        this.pointer = pointer;
        this.description = description;
        this.annotation = annotation;
    }

    /**
     * The mark of a boolean field that holds the job while true, e.g. {@code spec.suspend}: one of the built-in
     * constants when it is theirs (so a declared kind and a built-in one write the same patch).
     *
     * @param fieldNames the field's path from the object's root, one name per level, each not empty; no list items
     */
    public static SuspendMark field(List<String> fieldNames) {
        if (fieldNames.isEmpty()) {
            throw new IllegalArgumentException("a suspend field needs a path");
        }
        StringBuilder pointer = new StringBuilder();
        for (String name : fieldNames) {
            pointer.append('/').append(name.replace("~", "~0").replace("/", "~1"));
        }
        for (SuspendMark known : BUILT_IN) {
            if (known.pointer.contentEquals(pointer)) {
                return known;
            }
        }
        return new SuspendMark(pointer.toString(), String.join(".", fieldNames) + ": true", false);
    }

    /**
     * The one unmodifiable instance of a list of marks, in its order, for every list of up to two distinct built-in
     * marks (a kind gives at most two): a list is kept per managed job ({@link JobDirectory.Entry#marks}), and few
     * distinct ones exist. Any other list is copied unmodifiable.
     *
     * @param marks the marks, not null, no null element
     */
    public static List<SuspendMark> shared(List<SuspendMark> marks) {
        List<SuspendMark> known = LISTS.get(marks);
        return known != null ? known : List.copyOf(marks);
    }

    private static Map<List<SuspendMark>, List<SuspendMark>> lists() {
        Map<List<SuspendMark>, List<SuspendMark>> lists = new HashMap<>();
        lists.put(List.of(), List.of());
        for (SuspendMark first : BUILT_IN) {
            lists.put(List.of(first), List.of(first));
            for (SuspendMark second : BUILT_IN) {
                if (second != first) {
                    lists.put(List.of(first, second), List.of(first, second));
                }
            }
        }
        return Map.copyOf(lists);
    }

    /** Whether the job carries {@code scheduling.x-k8s.io/suspend: "true"}. */
    public static boolean annotated(HasMetadata job) {
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        return annotations != null && "true".equals(annotations.get(ANNOTATION_KEY));
    }

    /** The mark as a user writes it, e.g. {@code spec.suspend: true}. */
    public String describe() {
        return description;
    }

    /** RFC 6901 pointer to the mark. */
    public String pointer() {
        return pointer;
    }

    /**
     * Whether the mark is the annotation (a string {@code "true"}, removed on admission) rather than a boolean field
     * (set to {@code false} on admission).
     */
    public boolean isAnnotation() {
        return annotation;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SuspendMark mark && mark.pointer.equals(pointer);
    }

    @Override
    public int hashCode() {
        return Objects.hash(pointer);
    }

    @Override
    public String toString() {
        return description;
    }
}
