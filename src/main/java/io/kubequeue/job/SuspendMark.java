package io.kubequeue.job;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * A way a job can be held back, and how admission removes it (docs/behaviour.md §1). Each mark is a JSON pointer;
 * admission sends a {@code test} op on it, so a decision taken on a stale view cannot admit twice.
 */
public enum SuspendMark {
    /** Annotation {@code scheduling.x-k8s.io/suspend: "true"} (ack-arena operators); removed on admission. */
    ANNOTATION("/metadata/annotations/scheduling.x-k8s.io~1suspend"),
    /** {@code spec.suspend: true} (batch/v1 Job, Argo Workflow); set to false on admission. */
    SPEC_SUSPEND("/spec/suspend"),
    /** {@code spec.runPolicy.suspend: true} (training-operator ≥ 1.7, mpi-operator v2beta1); set to false. */
    RUN_POLICY_SUSPEND("/spec/runPolicy/suspend");

    /** The annotation that suspends a job until kube-queue admits it. */
    public static final String ANNOTATION_KEY = "scheduling.x-k8s.io/suspend";

    private final String pointer;

    /** Every list of up to two distinct marks, each one shared instance (see {@link #shared}). */
    private static final Map<List<SuspendMark>, List<SuspendMark>> LISTS = lists();

    SuspendMark(String pointer) {
        this.pointer = pointer;
    }

    /**
     * The one unmodifiable instance of a list of marks, in its order, for every list of up to two distinct marks (a
     * kind gives at most two): a list is kept per managed job ({@link JobDirectory.Entry#marks}), and few distinct
     * ones exist. Any other list is copied unmodifiable.
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
        for (SuspendMark first : values()) {
            lists.put(List.of(first), List.of(first));
            for (SuspendMark second : values()) {
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
        return switch (this) {
            case ANNOTATION -> "annotation " + ANNOTATION_KEY + ": \"true\"";
            case SPEC_SUSPEND -> "spec.suspend: true";
            case RUN_POLICY_SUSPEND -> "spec.runPolicy.suspend: true";
        };
    }

    /** RFC 6901 pointer to the mark. */
    public String pointer() {
        return pointer;
    }
}
