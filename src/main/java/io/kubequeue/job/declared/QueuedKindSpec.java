package io.kubequeue.job.declared;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.generator.annotation.Required;

/**
 * A declared job kind, as its {@link QueuedKind} writes it (docs/kinds.md, one section per field). Paths are
 * {@link io.kubequeue.job.FieldPath}s. Read as written, checked by {@link KindDeclaration#of}: nothing here is trusted.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QueuedKindSpec {

    /** The kind's API group, e.g. {@code jobset.x-k8s.io}. */
    @Required
    public String group;
    /** Its version, e.g. {@code v1alpha2}. */
    @Required
    public String version;
    /** Its kind, e.g. {@code JobSet}: also the first part of its jobs' keys ({@code JobSet team-a/x}). */
    @Required
    public String kind;
    /** Its resource (plural) name, e.g. {@code jobsets}. */
    @Required
    public String plural;
    /** How a job of the kind is held until admitted. */
    @Required
    public Hold hold;
    /** Its pods: pod templates and the counts that multiply them. */
    @Required
    public List<PodSet> podSets;
    /** A path to the job's priority class name; without it, the first pod template's {@code priorityClassName}. */
    public String priorityClass;
    /** When a job has finished; absent: never (a long-running kind, such as RayCluster). */
    public Finished finished;
    /** A path whose presence says the job has started (e.g. {@code status.startTime}); absent: never told. */
    public String started;
    /**
     * A path to the whole seconds after which the kind's controller stops a started job (e.g.
     * {@code spec.activeDeadlineSeconds}): caps its start-time estimates; absent: none.
     */
    public String activeDeadlineSeconds;
    /** How the kind's controller labels its pods. */
    @Required
    public Pods pods;
    /**
     * Whether holding a running job again stops its pods (its controller deletes them): only then may kube-queue
     * evict it (reclaim, admission timeout). Default false.
     */
    public Boolean stopsWhenSuspended;

    /** Exactly one of {@code field} and {@code annotation}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Hold {
        /** A boolean field that holds the job while true, set false on admission, e.g. {@code spec.suspend}. */
        public String field;
        /** True: the annotation {@code scheduling.x-k8s.io/suspend: "true"} holds it, removed on admission. */
        public Boolean annotation;
    }

    /** One pod set (docs/kinds.md, "Pod sets"): {@code each} item's template × its counts. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class PodSet {
        /** For messages, e.g. {@code workers}. */
        public String name;
        /** The items the set repeats over, e.g. {@code spec.replicatedJobs[*]}; absent: the enclosing item once. */
        public String each;
        /** The pod template, relative to each item, e.g. {@code template.spec.template}. */
        public String template;
        /** A string field of each item holding the template's path relative to the enclosing item. */
        public String templatePathFrom;
        /** A ResourceRequirements per pod, relative to each item, instead of a template. */
        public String resources;
        /** An item without its template is charged nothing rather than refused. Default false. */
        public Boolean optional;
        /** The counts that multiply the set, in order. */
        public List<Count> counts;
        /** Pod sets within each item (their counts multiply this one's); at most 4 levels. */
        @PreserveUnknownFields
        public JsonNode podSets;
    }

    /** A count: the whole number at {@code field}, or {@code default} where absent; at most {@code atMost}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Count {
        /** Relative to the pod set's item, e.g. {@code replicas}. */
        public String field;
        /** Where the field is absent. Default 1. */
        @JsonProperty("default")
        public Long fallback;
        /** A field whose number, when present, caps the count (JobSet: {@code template.spec.completions}). */
        public String atMost;
    }

    /** Exactly one way: {@code conditions}, or {@code field} and {@code values}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Finished {
        /** Condition types of {@code status.conditions} that, with status True, mean finished. */
        public List<String> conditions;
        /** A path to a string that says the phase, e.g. {@code status.phase}. */
        public String field;
        /** The values of {@code field} that mean finished. */
        public List<String> values;
        /**
         * A path to the time the job ended, RFC 3339 (e.g. {@code status.endTime}), for its run time after a restart;
         * absent: with {@code conditions}, the {@code lastTransitionTime} of the last finishing condition; with a
         * phase, not told.
         */
        public String at;
    }

    /** How the kind's controller labels its pods (for ResourceQuota accounting and the admission timeout). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Pods {
        /** The label key every pod of a job carries, e.g. {@code jobset.sigs.k8s.io/jobset-name}. */
        public String labelKey;
        /** {@code Name} (default) or {@code Uid}: what the label's value is. */
        public String labelValue;
        /** Whether each pod's controlling owner is the job itself. Default false (JobSet's are its Jobs'). */
        public Boolean ownedByJob;
    }
}
