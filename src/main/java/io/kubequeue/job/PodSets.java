package io.kubequeue.job;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.input.JsonBounds;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.resources.PodRequests;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;

/**
 * The request rule of every kind whose pods come from pod templates with counts (docs/behaviour.md §2,
 * docs/kinds.md): Σ over pod sets of the template's pod (priced as the API server will make it) × the product of
 * its counts. The built-in Kubeflow kinds and every declared kind are read by this one rule, so a declared TFJob
 * and the built-in TFJob charge the same.
 *
 * <p>Linear in the job: each template is read and priced once per request however many items name it (by path,
 * {@code templatePathFrom}), each pod names at most {@value PodRequests#MAX_RESOURCES} resources and the job at most
 * {@value #MAX_RESOURCES}, so each pod set adds to the sum in bounded time.
 *
 * @param rules the pod sets, each matched from the job's root
 */
public record PodSets(List<Rule> rules) {

    /** The largest count one field may give (a replica count): more is refused as a typo or an attack. */
    public static final long MAX_COUNT = 1_000_000;
    /** How deep pod sets may nest (JobSet: replicated jobs → their Job → its pods is two). */
    public static final int MAX_NESTING = 4;
    /**
     * The most distinct resource names a job's pod sets may name together (the names of its request, the
     * {@code limits.<name>} pseudo-resources included). A pod names at most {@value PodRequests#MAX_RESOURCES}; a
     * job's pod sets (Kubeflow's replica specs, a JobSet's replicated jobs, an AppWrapper's components) mostly name
     * the same few, and 256 allows about four pod sets of wholly distinct names (64 each, a few fewer once their
     * {@code limits.<name>} entries count). Without it, 1,000 pod sets of 64
     * names each would make a sum of 64,000 names, copied at each of the 1,000 additions, and a request that every
     * fit check of the scheduler walks.
     */
    public static final int MAX_RESOURCES = 256;

    /**
     * A count that multiplies a pod set: the whole number at {@code field} (relative to the pod set's item), or
     * {@code fallback} where it is absent; at most the number at {@code atMost} when that is present (JobSet's
     * {@code parallelism} capped by {@code completions}).
     */
    public record Count(FieldPath field, long fallback, FieldPath atMost) {
    }

    /**
     * One pod set.
     *
     * @param name             for messages and docs, e.g. {@code workers}
     * @param each             the items the pod set repeats over (from the enclosing item), or null: the enclosing
     *                         item itself
     * @param template         the pod template, relative to each item; or null
     * @param templatePathFrom a string field of each item that holds the template's path relative to the enclosing
     *                         item (AppWrapper's {@code podSets[*].path}); or null
     * @param resources        a ResourceRequirements (requests, else limits), relative to each item, charged per pod
     *                         instead of a template (TrainJob's {@code resourcesPerNode}); or null
     * @param optional         whether an item without its template is charged nothing rather than refused
     * @param counts           multiply the pod set, in order
     * @param nested           pod sets within each item, whose counts multiply this one's
     */
    public record Rule(String name, FieldPath each, FieldPath template, FieldPath templatePathFrom,
                       FieldPath resources, boolean optional, List<Count> counts, List<Rule> nested) {

        public Rule {
            counts = List.copyOf(counts);
            nested = List.copyOf(nested);
        }

        /** A pod set of templates only: {@code each} item's {@code template} × its {@code counts}. */
        public static Rule of(String name, FieldPath each, FieldPath template, boolean optional, Count... counts) {
            return new Rule(name, each, template, null, null, optional, List.of(counts), List.of());
        }
    }

    public PodSets {
        rules = List.copyOf(rules);
    }

    /**
     * The job's whole request.
     *
     * @param job           the job as JSON
     * @param defaults      what the job's namespace gives a new pod
     * @param serialization reads templates as fabric8's {@code PodTemplateSpec}
     * @return millicores, bytes, counts (see {@link PodRequests})
     * @throws InvalidJobException naming the field: a count that is not a whole number in [0, {@value #MAX_COUNT}],
     *                             a template that is missing (not optional) or does not read, a path field that is
     *                             not a path, too many fields, a pod of more than {@value PodRequests#MAX_RESOURCES}
     *                             resources or a pod set that brings the job past {@value #MAX_RESOURCES}
     */
    public Resources request(JsonNode job, PodDefaults defaults, KubernetesSerialization serialization) {
        Pricing pricing = new Pricing(defaults, serialization);
        for (Rule rule : rules) {
            request(rule, new FieldPath.Match(job, ""), 1, pricing);
        }
        return pricing.total;
    }

    /**
     * One request's pricing: the sum so far, and each template's pod by node, so that a template that many items
     * name (by path) is read and priced once. By identity: equal templates at two places are two templates.
     */
    private static final class Pricing {
        private final PodDefaults defaults;
        private final KubernetesSerialization serialization;
        private final Map<JsonNode, Resources> pods = new IdentityHashMap<>();
        private Resources total = Resources.NONE;

        Pricing(PodDefaults defaults, KubernetesSerialization serialization) {
            this.defaults = defaults;
            this.serialization = serialization;
        }

        /** The pod of a template, priced at its first use in this request. */
        Resources pod(FieldPath.Match template) {
            Resources pod = pods.get(template.node());
            if (pod == null) {
                pod = PodSets.pod(template, defaults, serialization);
                pods.put(template.node(), pod);
            }
            return pod;
        }

        /** Adds {@code count} pods of the pod set at {@code at}; refused if the job then names too many resources. */
        void add(Resources pod, long count, String at) {
            total = total.plus(pod.times(count));
            if (total.asMap().size() > MAX_RESOURCES) {
                throw new InvalidJobException(at, "more than " + MAX_RESOURCES + " resources in the job",
                        "a job's pod sets name at most " + MAX_RESOURCES + " distinct resources together");
            }
        }
    }

    /**
     * The pod templates the pod sets reach, each with where it is (for the informer cache's copy, which keeps them
     * pruned, and for the priority, read from the first that names one); a template that a path field names is
     * included, one that is missing is not.
     */
    public List<FieldPath.Match> templates(JsonNode job) {
        List<FieldPath.Match> found = new ArrayList<>();
        for (Rule rule : rules) {
            templates(rule, new FieldPath.Match(job, ""), found);
        }
        return found;
    }

    /**
     * What the job's pod templates say about its priority: the first template, in pod-set order, whose spec names a
     * {@code priorityClassName} or sets {@code priority} (the operators give every pod of a job the same scheduling
     * priority in practice); {@link JobPriority#NONE} if none does.
     */
    public JobPriority priority(JsonNode job) {
        for (FieldPath.Match template : templates(job)) {
            JsonNode pod = template.node().path("spec");
            JsonNode className = pod.path("priorityClassName");
            JsonNode priority = pod.path("priority");
            if (className.isTextual() || priority.isInt()) {
                return new JobPriority(className.isTextual() ? className.asText() : null,
                        priority.isInt() ? priority.asInt() : null);
            }
        }
        return JobPriority.NONE;
    }

    /**
     * What {@link #request}, {@link #templates} and {@link #priority} read of a job, told to {@code reads} (for the
     * informer cache's copy, which keeps that and nothing else): each step they take to a field
     * ({@link FieldPath.Trail}), each field they read as a value (a count, an {@code atMost}, a
     * {@code templatePathFrom}), each pod template and each {@code resources}. Every item of every pod set is walked,
     * whatever its counts, so that a read that skips some (a count of 0) reads nothing that is not told. Never throws:
     * where a read throws (more than {@value FieldPath#MAX_MATCHES} items, a path field that is not a path), what it
     * read up to there is told, and the walk goes on with the next item.
     *
     * @param job   the job as JSON
     * @param reads told of what is read
     */
    public void read(JsonNode job, Reads reads) {
        for (Rule rule : rules) {
            read(rule, new FieldPath.Match(job, ""), reads);
        }
    }

    /** What a walk of {@link #read} is told, besides its steps. */
    public interface Reads extends FieldPath.Trail {

        /** A field read as a value: by its type, its scalar value, or a list's or object's size (in a message). */
        void value(JsonNode node);

        /** A pod template (or what stands where one should be). */
        void template(JsonNode node);

        /** A ResourceRequirements (or what stands where one should be). */
        void resources(JsonNode node);
    }

    private void read(Rule rule, FieldPath.Match enclosing, Reads reads) {
        List<FieldPath.Match> items;
        try {
            items = items(rule, enclosing, reads);
        } catch (InvalidJobException e) {
            return; // too many: the steps to the first one too many are told, which is where every read stops
        }
        for (FieldPath.Match item : items) {
            for (Count count : rule.counts()) {
                value(count.field().get(item.node(), reads), reads);
                if (count.atMost() != null) {
                    value(count.atMost().get(item.node(), reads), reads);
                }
            }
            if (rule.resources() != null) {
                JsonNode resources = rule.resources().get(item.node(), reads);
                if (resources != null) {
                    reads.resources(resources);
                }
            }
            if (rule.template() != null || rule.templatePathFrom() != null) {
                try {
                    FieldPath.Match template = template(rule, enclosing, item, false, reads);
                    if (template != null) {
                        reads.template(template.node());
                    }
                } catch (InvalidJobException e) {
                    // a path field that is not a path: what was read of it is told, and it is refused when read
                }
            }
            for (Rule inner : rule.nested()) {
                read(inner, item, reads);
            }
        }
    }

    private static void value(JsonNode node, Reads reads) {
        if (node != null) {
            reads.value(node);
        }
    }

    private void templates(Rule rule, FieldPath.Match enclosing, List<FieldPath.Match> found) {
        for (FieldPath.Match item : items(rule, enclosing)) {
            // a set of nested sets only (AppWrapper's components) has no template of its own
            FieldPath.Match template = rule.template() != null || rule.templatePathFrom() != null
                    ? template(rule, enclosing, item, false) : null;
            if (template != null) {
                found.add(template);
            }
            for (Rule inner : rule.nested()) {
                templates(inner, item, found);
            }
        }
    }

    private void request(Rule rule, FieldPath.Match enclosing, long multiplier, Pricing pricing) {
        for (FieldPath.Match item : items(rule, enclosing)) {
            long count = multiplier;
            for (Count c : rule.counts()) {
                count = Math.multiplyExact(count, count(item, c));
                if (count > MAX_COUNT) {
                    throw new InvalidJobException(item.at().isEmpty() ? rule.name() : item.at(), count,
                            "more than " + MAX_COUNT + " pods in one pod set");
                }
            }
            if (count == 0) {
                continue;
            }
            if (rule.resources() != null) {
                pricing.add(perPod(item, rule.resources(), pricing.serialization), count,
                        join(item.at(), rule.resources().toString()));
            } else if (rule.template() != null || rule.templatePathFrom() != null) {
                FieldPath.Match template = template(rule, enclosing, item, true);
                if (template != null) {
                    pricing.add(pricing.pod(template), count, template.at());
                }
            }
            for (Rule inner : rule.nested()) {
                request(inner, item, count, pricing);
            }
        }
    }

    private static List<FieldPath.Match> items(Rule rule, FieldPath.Match enclosing) {
        return items(rule, enclosing, null);
    }

    /** The rule's items in {@code enclosing}; {@code trail} (or null) told of the steps to them. */
    private static List<FieldPath.Match> items(Rule rule, FieldPath.Match enclosing, FieldPath.Trail trail) {
        return rule.each() == null ? List.of(enclosing) : rule.each().select(enclosing.node(), enclosing.at(), trail);
    }

    /** The item's template, or null where it may be missing; {@code strict}: a missing one that may not throws. */
    private FieldPath.Match template(Rule rule, FieldPath.Match enclosing, FieldPath.Match item, boolean strict) {
        return template(rule, enclosing, item, strict, null);
    }

    /**
     * As {@link #template(Rule, FieldPath.Match, FieldPath.Match, boolean)}, telling {@code reads} (or null) the steps
     * to the template and the {@code templatePathFrom} value read on the way.
     */
    private FieldPath.Match template(Rule rule, FieldPath.Match enclosing, FieldPath.Match item, boolean strict,
                                     Reads reads) {
        FieldPath path = rule.template();
        FieldPath.Match base = item;
        if (rule.templatePathFrom() != null) {
            JsonNode named = rule.templatePathFrom().get(item.node(), reads);
            if (reads != null) {
                value(named, reads);
            }
            String at = join(item.at(), rule.templatePathFrom().toString());
            if (named == null) {
                if (strict && !rule.optional()) {
                    throw new InvalidJobException(at, null, "names no pod template");
                }
                return null;
            }
            if (!named.isTextual()) {
                throw new InvalidJobException(at, named, "must be the path of a pod template");
            }
            try {
                path = FieldPath.parse(named.textValue());
            } catch (IllegalArgumentException e) {
                throw new InvalidJobException(at, named.textValue(), e.getMessage());
            }
            if (!path.single()) {
                throw new InvalidJobException(at, named.textValue(), "must name one field ([*] and * are not read)");
            }
            base = enclosing;
        }
        JsonNode template = path.get(base.node(), reads);
        String at = join(base.at(), path.toString());
        if (template == null) {
            if (strict && !rule.optional()) {
                throw new InvalidJobException(at, null, "a pod set needs a pod template");
            }
            return null;
        }
        return new FieldPath.Match(template, at);
    }

    private static long count(FieldPath.Match item, Count count) {
        long value = number(item, count.field(), count.fallback());
        if (count.atMost() != null && count.atMost().get(item.node()) != null) {
            value = Math.min(value, number(item, count.atMost(), value));
        }
        return value;
    }

    private static long number(FieldPath.Match item, FieldPath field, long fallback) {
        JsonNode node = field.get(item.node());
        if (node == null) {
            return fallback;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < 0 || node.asLong() > MAX_COUNT) {
            throw new InvalidJobException(join(item.at(), field.toString()), node,
                    "must be a whole number, zero or more" + (node.isIntegralNumber() && node.canConvertToLong()
                            && node.asLong() > MAX_COUNT ? " and at most " + MAX_COUNT : ""));
        }
        return node.asLong();
    }

    /** A pod priced from its template, as the API server will make it ({@link PodRequests}). */
    private static Resources pod(FieldPath.Match template, PodDefaults defaults,
                                 KubernetesSerialization serialization) {
        JsonNode node = template.node();
        if (JsonBounds.depth(node, JsonBounds.MAX_TEMPLATE_DEPTH) > JsonBounds.MAX_TEMPLATE_DEPTH) {
            throw new InvalidJobException(template.at(), node, "a pod template nested more than "
                    + JsonBounds.MAX_TEMPLATE_DEPTH + " levels deep is not read");
        }
        PodTemplateSpec podTemplate;
        try {
            podTemplate = serialization.convertValue(node, PodTemplateSpec.class);
        } catch (RuntimeException e) {
            throw new InvalidJobException(template.at(), "...", "not a pod template: " + e.getMessage());
        }
        if (podTemplate.getSpec() == null || podTemplate.getSpec().getContainers() == null
                || podTemplate.getSpec().getContainers().isEmpty()) {
            // Kubernetes makes no pod without a container: any other object at a template's path (its metadata, a
            // typo) would be charged nothing, and a tenant who picks the path (templatePathFrom) runs for free
            throw new InvalidJobException(template.at() + ".spec.containers", null,
                    "a pod template needs at least one container");
        }
        return PodRequests.of(podTemplate.getSpec(), template.at() + ".spec", defaults);
    }

    /**
     * One pod's resources given as a ResourceRequirements, priced as a pod of one container with these resources
     * ({@link PodRequests}): its requests, a limit standing in for a missing request (as Kubernetes defaults), and
     * its cpu, memory and ephemeral-storage limits as {@code limits.<name>}.
     */
    private static Resources perPod(FieldPath.Match item, FieldPath field, KubernetesSerialization serialization) {
        JsonNode node = field.get(item.node());
        String at = join(item.at(), field.toString());
        if (node == null) {
            return Resources.NONE;
        }
        if (JsonBounds.depth(node, JsonBounds.MAX_TEMPLATE_DEPTH) > JsonBounds.MAX_TEMPLATE_DEPTH) {
            throw new InvalidJobException(at, node, "resource requirements nested more than "
                    + JsonBounds.MAX_TEMPLATE_DEPTH + " levels deep are not read");
        }
        ResourceRequirements requirements;
        try {
            requirements = serialization.convertValue(node, ResourceRequirements.class);
        } catch (RuntimeException e) {
            throw new InvalidJobException(at, node, "not resource requirements: " + e.getMessage());
        }
        return PodRequests.of(requirements, at); // a bad amount named where it is written: <at>.requests.<name>
    }

    private static String join(String at, String name) {
        return at.isEmpty() ? name : at + "." + name;
    }
}
