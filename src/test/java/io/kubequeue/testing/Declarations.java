package io.kubequeue.testing;

/**
 * QueuedKind specs (JSON, the {@code spec} only) the declared-kind tests share: kinds of {@code example.com} shaped
 * as the real ones are, so a hostile job of each shape is written once.
 */
public final class Declarations {

    /** A kind whose pod sets are the values of a map (as the Kubeflow kinds' replica specs). */
    public static final String BY_MAP = """
            {"group": "example.com", "version": "v1", "kind": "MapJob", "plural": "mapjobs",
             "hold": {"field": "spec.suspend"},
             "podSets": [{"each": "spec.replicaSpecs.*", "template": "template", "counts": [{"field": "replicas"}]}],
             "pods": {"labelKey": "example.com/job"}}
            """;

    /** A kind whose pod sets are the items of a list (as a JobSet's replicated jobs). */
    public static final String BY_LIST = """
            {"group": "example.com", "version": "v1", "kind": "ListJob", "plural": "listjobs",
             "hold": {"field": "spec.suspend"},
             "podSets": [{"each": "spec.groups[*]", "template": "template", "counts": [{"field": "replicas"}]}],
             "pods": {"labelKey": "example.com/job"}}
            """;

    /** A valid kind finished by a condition, its groups counted with a default: what the invalid cases change. */
    public static final String BATCH = """
            {"group": "example.com", "version": "v1alpha1", "kind": "Batch", "plural": "batches",
             "hold": {"field": "spec.suspend"},
             "podSets": [{"name": "groups", "each": "spec.groups[*]", "template": "template",
                          "counts": [{"field": "replicas", "default": 1}]}],
             "finished": {"conditions": ["Complete"]},
             "pods": {"labelKey": "example.com/batch"}}
            """;

    private Declarations() {
    }
}
