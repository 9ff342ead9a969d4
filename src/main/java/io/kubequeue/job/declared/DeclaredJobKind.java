package io.kubequeue.job.declared;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.input.JsonBounds;
import io.kubequeue.job.FieldPath;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.PodSets;
import io.kubequeue.job.Pruning;
import io.kubequeue.job.RunTimeFields;
import io.kubequeue.job.StopsWhenSuspended;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.job.TellsRunTime;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;

/**
 * A job kind read from a {@link QueuedKind} declaration (docs/kinds.md): objects of any CRD, read as
 * {@link GenericKubernetesResource}, held by a boolean field or the suspend annotation, charged by the pod-set rule
 * ({@link PodSets}, the one the built-in Kubeflow kinds use), finished by conditions or a phase. Immutable: an edited
 * declaration is a new kind object.
 */
public final class DeclaredJobKind implements JobKind<GenericKubernetesResource>,
        StopsWhenSuspended<GenericKubernetesResource>, TellsRunTime<GenericKubernetesResource> {

    /** The most characters of a name in a declaration (kind, plural, label key, condition type, phase value). */
    static final int MAX_NAME = 253;
    /** The most characters of a label key's name part (after its prefix), as Kubernetes validates it. */
    static final int MAX_LABEL_NAME = 63;
    /** The most condition types or phase values a declaration lists. */
    static final int MAX_VALUES = 16;
    /** The most pod sets on one level of a declaration. */
    static final int MAX_POD_SETS = 16;
    /** The most pod sets of a declaration in all, nested ones included (each is walked for every job read). */
    static final int MAX_POD_SETS_IN_ALL = 64;
    /** The most counts of one pod set. */
    static final int MAX_COUNTS = 4;

    private static final Pattern DNS_SUBDOMAIN = Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern VERSION = Pattern.compile("v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?");
    private static final Pattern KIND = Pattern.compile("[A-Z][A-Za-z0-9]{0,62}");
    private static final Pattern LABEL_KEY = Pattern.compile(
            "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final String declaration;
    private final String group;
    private final String version;
    private final String kind;
    private final String plural;
    private final SuspendMark hold;
    private final FieldPath holdField;
    private final PodSets podSets;
    private final FieldPath priorityClass;
    private final Set<String> finishedConditions;
    private final FieldPath finishedField;
    private final Set<String> finishedValues;
    private final FieldPath finishedAt;
    private final FieldPath activeDeadline;
    private final FieldPath started;
    private final String podLabelKey;
    private final boolean labelIsUid;
    private final boolean ownedByJob;
    private final boolean stopsWhenSuspended;
    private final KubernetesSerialization serialization;

    private DeclaredJobKind(String declaration, QueuedKindSpec spec, SuspendMark hold, FieldPath holdField,
                            PodSets podSets, KubernetesSerialization serialization) {
        this.declaration = declaration;
        this.group = spec.group;
        this.version = spec.version;
        this.kind = spec.kind;
        this.plural = spec.plural;
        this.hold = hold;
        this.holdField = holdField;
        this.podSets = podSets;
        this.priorityClass = spec.priorityClass == null ? null : fromJob("spec.priorityClass", spec.priorityClass);
        QueuedKindSpec.Finished finished = spec.finished;
        this.finishedConditions = finished == null || finished.conditions == null ? Set.of()
                : Set.copyOf(finished.conditions);
        this.finishedField = finished == null || finished.field == null ? null
                : fromJob("spec.finished.field", finished.field);
        this.finishedValues = finished == null || finished.values == null ? Set.of() : Set.copyOf(finished.values);
        this.finishedAt = finished == null || finished.at == null ? null : fromJob("spec.finished.at", finished.at);
        this.activeDeadline = spec.activeDeadlineSeconds == null ? null
                : fromJob("spec.activeDeadlineSeconds", spec.activeDeadlineSeconds);
        this.started = spec.started == null ? null : fromJob("spec.started", spec.started);
        this.podLabelKey = spec.pods.labelKey;
        this.labelIsUid = "Uid".equals(spec.pods.labelValue);
        this.ownedByJob = Boolean.TRUE.equals(spec.pods.ownedByJob);
        this.stopsWhenSuspended = Boolean.TRUE.equals(spec.stopsWhenSuspended);
        this.serialization = serialization;
    }

    /**
     * Checks a declaration and makes its kind.
     *
     * @param declaration   the {@link QueuedKind}'s name, for messages
     * @param spec          as written
     * @param serialization reads pod templates
     * @throws InvalidDeclarationException naming the first field that is missing or wrong, and why
     */
    public static DeclaredJobKind of(String declaration, QueuedKindSpec spec, KubernetesSerialization serialization) {
        if (spec == null) {
            throw new InvalidDeclarationException("spec", "is missing");
        }
        name("spec.group", spec.group, DNS_SUBDOMAIN, "a DNS subdomain such as jobset.x-k8s.io");
        name("spec.version", spec.version, VERSION, "a Kubernetes API version such as v1 or v1alpha2");
        name("spec.kind", spec.kind, KIND, "a kind name such as JobSet");
        name("spec.plural", spec.plural, DNS_LABEL, "a resource name such as jobsets");
        if (spec.hold == null || (spec.hold.field == null) == !Boolean.TRUE.equals(spec.hold.annotation)) {
            throw new InvalidDeclarationException("spec.hold", "needs exactly one of field (a boolean field such as"
                    + " spec.suspend) and annotation: true");
        }
        SuspendMark hold;
        FieldPath holdField = null;
        if (spec.hold.field != null) {
            holdField = single("spec.hold.field", spec.hold.field);
            if (!holdField.names().get(0).equals("spec")) {
                throw new InvalidDeclarationException("spec.hold.field", "must be a field of the spec, such as"
                        + " spec.suspend (is '" + spec.hold.field + "')");
            }
            hold = SuspendMark.field(holdField.names());
        } else {
            hold = SuspendMark.ANNOTATION;
        }
        if (spec.podSets == null || spec.podSets.isEmpty()) {
            throw new InvalidDeclarationException("spec.podSets", "needs at least one pod set");
        }
        PodSets podSets = new PodSets(rules("spec.podSets", spec.podSets, 1, true, serialization));
        if (count(podSets.rules()) > MAX_POD_SETS_IN_ALL) {
            throw new InvalidDeclarationException("spec.podSets", "at most " + MAX_POD_SETS_IN_ALL
                    + " pod sets in all, nested ones included");
        }
        if (spec.finished != null) {
            QueuedKindSpec.Finished f = spec.finished;
            boolean byConditions = f.conditions != null && !f.conditions.isEmpty();
            boolean byField = f.field != null;
            if (byConditions == byField) {
                throw new InvalidDeclarationException("spec.finished", "needs exactly one of conditions (condition"
                        + " types) and field with values (a phase); leave finished out for a kind that never ends");
            }
            names("spec.finished.conditions", f.conditions);
            if (byField && (f.values == null || f.values.isEmpty())) {
                throw new InvalidDeclarationException("spec.finished.values", "needs the values of "
                        + f.field + " that mean finished");
            }
            names("spec.finished.values", f.values);
        }
        if (spec.pods == null) {
            throw new InvalidDeclarationException("spec.pods", "needs labelKey, the label every pod of a job carries");
        }
        labelKey(spec.pods.labelKey);
        if (spec.pods.labelValue != null && !Set.of("Name", "Uid").contains(spec.pods.labelValue)) {
            throw new InvalidDeclarationException("spec.pods.labelValue", "must be Name or Uid (is '"
                    + InvalidJobException.shown(spec.pods.labelValue) + "')");
        }
        if ("Uid".equals(spec.pods.labelValue) && !Boolean.TRUE.equals(spec.pods.ownedByJob)) {
            // a uid names no job by itself: the pod is traced through its controlling owner, which must be the job
            throw new InvalidDeclarationException("spec.pods.labelValue", "Uid needs ownedByJob: true (a pod is"
                    + " traced to its job through its controlling owner when its label carries the job's uid)");
        }
        return new DeclaredJobKind(declaration, spec, hold, holdField, podSets, serialization);
    }

    /** The pod sets of these rules, nested ones included. */
    private static int count(List<PodSets.Rule> rules) {
        int n = rules.size();
        for (PodSets.Rule rule : rules) {
            n += count(rule.nested());
        }
        return n;
    }

    /**
     * @param fromRoot whether the sets' paths start at the job (the first level, and sets nested in ones without
     *                 {@code each}): then they must start at {@code spec} or {@code status}
     */
    private static List<PodSets.Rule> rules(String at, List<QueuedKindSpec.PodSet> sets, int level, boolean fromRoot,
                                           KubernetesSerialization serialization) {
        if (sets.isEmpty()) { // a pod set without nested ones, on any level up to the deepest
            return List.of();
        }
        if (level > PodSets.MAX_NESTING) {
            throw new InvalidDeclarationException(at, "pod sets nest at most " + PodSets.MAX_NESTING + " levels deep");
        }
        if (sets.size() > MAX_POD_SETS) {
            throw new InvalidDeclarationException(at, "at most " + MAX_POD_SETS + " pod sets, not " + sets.size());
        }
        List<PodSets.Rule> rules = new ArrayList<>();
        for (int i = 0; i < sets.size(); i++) {
            String here = at + "[" + i + "]";
            QueuedKindSpec.PodSet set = sets.get(i);
            if (set == null) {
                throw new InvalidDeclarationException(here, "is empty");
            }
            int ways = (set.template != null ? 1 : 0) + (set.templatePathFrom != null ? 1 : 0)
                    + (set.resources != null ? 1 : 0);
            List<QueuedKindSpec.PodSet> nested = nested(here + ".podSets", set.podSets, level, serialization);
            if (ways > 1 || ways == 0 && nested.isEmpty()) {
                throw new InvalidDeclarationException(here, "needs exactly one of template, templatePathFrom and"
                        + " resources (or only nested podSets)");
            }
            List<PodSets.Count> counts = new ArrayList<>();
            if (set.counts != null) {
                if (set.counts.size() > MAX_COUNTS) {
                    throw new InvalidDeclarationException(here + ".counts", "at most " + MAX_COUNTS + " counts");
                }
                for (int c = 0; c < set.counts.size(); c++) {
                    QueuedKindSpec.Count count = set.counts.get(c);
                    String countAt = here + ".counts[" + c + "]";
                    if (count == null || count.field == null) {
                        throw new InvalidDeclarationException(countAt + ".field", "is missing");
                    }
                    long fallback = count.fallback == null ? 1 : count.fallback;
                    if (fallback < 0 || fallback > PodSets.MAX_COUNT) {
                        throw new InvalidDeclarationException(countAt + ".default", "must be a whole number from 0 to "
                                + PodSets.MAX_COUNT);
                    }
                    counts.add(new PodSets.Count(single(countAt + ".field", count.field), fallback,
                            count.atMost == null ? null : single(countAt + ".atMost", count.atMost)));
                }
            }
            if (set.name != null && set.name.length() > MAX_NAME) {
                throw new InvalidDeclarationException(here + ".name", "at most " + MAX_NAME + " characters");
            }
            FieldPath each = set.each == null ? null : rooted(here + ".each", path(here + ".each", set.each), fromRoot);
            boolean itemIsRoot = fromRoot && each == null;
            if (itemIsRoot) {
                for (int c = 0; c < counts.size(); c++) {
                    rooted(here + ".counts[" + c + "].field", counts.get(c).field(), true);
                    if (counts.get(c).atMost() != null) {
                        rooted(here + ".counts[" + c + "].atMost", counts.get(c).atMost(), true);
                    }
                }
            }
            rules.add(new PodSets.Rule(set.name == null ? "podSets[" + i + "]" : set.name, each,
                    set.template == null ? null
                            : rooted(here + ".template", single(here + ".template", set.template), itemIsRoot),
                    set.templatePathFrom == null ? null : rooted(here + ".templatePathFrom",
                            single(here + ".templatePathFrom", set.templatePathFrom), itemIsRoot),
                    set.resources == null ? null
                            : rooted(here + ".resources", single(here + ".resources", set.resources), itemIsRoot),
                    Boolean.TRUE.equals(set.optional), counts,
                    rules(here + ".podSets", nested, level + 1, itemIsRoot, serialization)));
        }
        return rules;
    }

    private static List<QueuedKindSpec.PodSet> nested(String at, JsonNode podSets, int level,
                                                     KubernetesSerialization serialization) {
        if (podSets == null || podSets.isNull()) {
            return List.of();
        }
        // bounded before it is read: a declaration nested 10,000 levels deep is refused by its depth alone
        int limit = 4 * (PodSets.MAX_NESTING - level + 1) + 4;
        if (level >= PodSets.MAX_NESTING || JsonBounds.depth(podSets, limit) > limit) {
            throw new InvalidDeclarationException(at, "pod sets nest at most " + PodSets.MAX_NESTING + " levels deep");
        }
        if (!podSets.isArray()) {
            throw new InvalidDeclarationException(at, "must be a list of pod sets");
        }
        try {
            return List.of(serialization.convertValue(podSets, QueuedKindSpec.PodSet[].class));
        } catch (RuntimeException e) {
            throw new InvalidDeclarationException(at, "is not a list of pod sets: " + e.getMessage());
        }
    }

    private static FieldPath path(String at, String text) {
        try {
            return FieldPath.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidDeclarationException(at, e.getMessage());
        }
    }

    /**
     * {@code path}, when it starts at the job ({@code fromRoot}), starts at {@code spec} or {@code status}: a
     * declaration reads those only (the metadata is kube-queue's own reading), so any other path would never match.
     */
    private static FieldPath rooted(String at, FieldPath path, boolean fromRoot) {
        if (fromRoot) {
            String first = path.steps().get(0);
            if (!first.equals("spec") && !first.equals("status")) {
                throw new InvalidDeclarationException(at, "must start at spec or status (is '" + path + "')");
            }
        }
        return path;
    }

    /** A {@link #single} path from the job, so starting at {@code spec} or {@code status} ({@link #rooted}). */
    private static FieldPath fromJob(String at, String text) {
        return rooted(at, single(at, text), true);
    }

    private static FieldPath single(String at, String text) {
        FieldPath path = path(at, text);
        if (!path.single()) {
            throw new InvalidDeclarationException(at, "must name one field: [*] and * are for pod sets' each (is '"
                    + text + "')");
        }
        return path;
    }

    private static void name(String at, String value, Pattern shape, String what) {
        if (value == null || value.isEmpty()) {
            throw new InvalidDeclarationException(at, "is missing: " + what);
        }
        if (value.length() > MAX_NAME || !shape.matcher(value).matches()) {
            throw new InvalidDeclarationException(at, "must be " + what + " (is '" + InvalidJobException.shown(value)
                    + "')");
        }
    }

    /**
     * A Kubernetes label key (an optional DNS-subdomain prefix of at most 253 characters and {@code /}, then a name of
     * at most 63): the pod watch selects on it, and a key the API server refuses would keep that watch from ever
     * starting.
     */
    private static void labelKey(String key) {
        String what = "a label key such as jobset.sigs.k8s.io/jobset-name (a prefix of at most 253 characters, a name"
                + " of at most 63)";
        if (key == null || key.isEmpty()) {
            throw new InvalidDeclarationException("spec.pods.labelKey", "is missing: " + what);
        }
        int slash = key.indexOf('/');
        String prefix = slash < 0 ? "" : key.substring(0, slash);
        String name = key.substring(slash + 1);
        if (key.length() > MAX_NAME + 1 + MAX_LABEL_NAME || prefix.length() > MAX_NAME
                || name.length() > MAX_LABEL_NAME || !LABEL_KEY.matcher(key).matches()) {
            throw new InvalidDeclarationException("spec.pods.labelKey", "must be " + what + " (is '"
                    + InvalidJobException.shown(key) + "')");
        }
    }

    private static void names(String at, List<String> values) {
        if (values == null) {
            return;
        }
        if (values.size() > MAX_VALUES) {
            throw new InvalidDeclarationException(at, "at most " + MAX_VALUES + " values");
        }
        for (String value : values) {
            if (value == null || value.isEmpty() || value.length() > MAX_NAME) {
                throw new InvalidDeclarationException(at, "each value must be 1 to " + MAX_NAME + " characters");
            }
        }
    }

    /**
     * What the kind's CRD schema says is wrong with the declaration's paths ({@link SchemaCheck}), each naming the
     * declaration's field; empty when every path fits (or cannot be checked).
     */
    List<String> schemaProblems(SchemaCheck schema) {
        List<String> problems = new ArrayList<>();
        if (holdField != null) {
            schema.problem(null, holdField, "boolean").ifPresent(p -> problems.add("spec.hold.field: " + p));
        }
        if (priorityClass != null) {
            schema.problem(null, priorityClass, "string").ifPresent(p -> problems.add("spec.priorityClass: " + p));
        }
        if (finishedField != null) {
            schema.problem(null, finishedField, "string").ifPresent(p -> problems.add("spec.finished.field: " + p));
        }
        if (finishedAt != null) {
            schema.problem(null, finishedAt, "string").ifPresent(p -> problems.add("spec.finished.at: " + p));
        }
        if (activeDeadline != null) {
            schema.problem(null, activeDeadline, "integer")
                    .ifPresent(p -> problems.add("spec.activeDeadlineSeconds: " + p));
        }
        rulesProblems(schema, null, podSets.rules(), "spec.podSets", problems);
        return problems;
    }

    private static void rulesProblems(SchemaCheck schema, com.fasterxml.jackson.databind.JsonNode from,
                                      List<PodSets.Rule> rules, String at, List<String> problems) {
        for (int i = 0; i < rules.size(); i++) {
            PodSets.Rule rule = rules.get(i);
            String here = at + "[" + i + "]";
            List<com.fasterxml.jackson.databind.JsonNode> items;
            if (rule.each() == null) {
                items = from == null ? null : List.of(from);
            } else {
                items = schema.reach(from, rule.each());
                if (items == null) {
                    problems.add(here + ".each: the CRD's schema has no field " + rule.each());
                    continue;
                }
            }
            if (items != null && items.isEmpty()) {
                continue; // unknown fields kept there: nothing below is checked
            }
            for (com.fasterxml.jackson.databind.JsonNode item : items == null ? java.util.Collections
                    .<com.fasterxml.jackson.databind.JsonNode>singletonList(null) : items) {
                check(schema, item, rule.template(), "object", here + ".template", problems);
                check(schema, item, rule.resources(), "object", here + ".resources", problems);
                check(schema, item, rule.templatePathFrom(), "string", here + ".templatePathFrom", problems);
                for (int c = 0; c < rule.counts().size(); c++) {
                    check(schema, item, rule.counts().get(c).field(), "integer", here + ".counts[" + c + "].field",
                            problems);
                    check(schema, item, rule.counts().get(c).atMost(), "integer", here + ".counts[" + c + "].atMost",
                            problems);
                }
                rulesProblems(schema, item, rule.nested(), here + ".podSets", problems);
            }
        }
    }

    private static void check(SchemaCheck schema, com.fasterxml.jackson.databind.JsonNode from, FieldPath path,
                              String type, String at, List<String> problems) {
        if (path != null) {
            schema.problem(from, path, type).map(p -> at + ": " + p).filter(p -> !problems.contains(p))
                    .ifPresent(problems::add);
        }
    }

    /** The {@link QueuedKind} this kind was read from. */
    public String declaration() {
        return declaration;
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public Class<GenericKubernetesResource> type() {
        return GenericKubernetesResource.class;
    }

    @Override
    public String apiGroup() {
        return group;
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public String plural() {
        return plural;
    }

    /** group/version, e.g. {@code jobset.x-k8s.io/v1alpha2}. */
    public String apiVersion() {
        return group + "/" + version;
    }

    /** The resource, as fabric8's generic client and informers name it (namespaced). */
    public ResourceDefinitionContext context() {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind)
                .withPlural(plural).withNamespaced(true).build();
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
            resources(KubernetesClient client) {
        return client.genericKubernetesResources(context());
    }

    /** An object of this kind's apiVersion and kind (a manifest's, read as a generic resource). */
    @Override
    public boolean isKindOf(io.fabric8.kubernetes.api.model.HasMetadata object) {
        return object instanceof GenericKubernetesResource && apiVersion().equals(object.getApiVersion())
                && kind.equals(object.getKind());
    }

    @Override
    public List<SuspendMark> suspendMarks(GenericKubernetesResource job) {
        if (holdField == null) {
            return SuspendMark.annotated(job) ? List.of(hold) : List.of();
        }
        JsonNode value = holdField.get(json(job));
        return value != null && value.isBoolean() && value.booleanValue() ? List.of(hold) : List.of();
    }

    /** The hold field when the declaration says its controller stops a running job held again; else empty. */
    @Override
    public Optional<SuspendMark> stopMark(GenericKubernetesResource job) {
        return stopsWhenSuspended ? Optional.of(hold) : Optional.empty();
    }

    @Override
    public boolean started(GenericKubernetesResource job) {
        return started != null && started.get(json(job)) != null;
    }

    @Override
    public boolean finished(GenericKubernetesResource job) {
        JsonNode json = json(job);
        if (finishedField != null) {
            JsonNode phase = finishedField.get(json);
            return phase != null && phase.isTextual() && finishedValues.contains(phase.textValue());
        }
        return lastFinishingCondition(json) != null;
    }

    /** The last condition of {@code status.conditions} that says finished with status True; null if none. */
    private JsonNode lastFinishingCondition(JsonNode json) {
        if (finishedConditions.isEmpty()) {
            return null;
        }
        JsonNode ended = null;
        for (JsonNode condition : json.path("status").path("conditions")) {
            if (finishedConditions.contains(condition.path("type").asText())
                    && "True".equals(condition.path("status").asText())) {
                ended = condition;
            }
        }
        return ended;
    }

    /** The whole seconds at {@code activeDeadlineSeconds}, if declared ({@link RunTimeFields#seconds(JsonNode)}). */
    @Override
    public Optional<Duration> activeDeadline(GenericKubernetesResource job) {
        return activeDeadline == null ? Optional.empty() : RunTimeFields.seconds(activeDeadline.get(json(job)));
    }

    /**
     * The time at {@code finished.at}, if declared; else, for a kind finished by conditions, the
     * {@code lastTransitionTime} of the last finishing condition whose status is True. Each read by
     * {@link RunTimeFields#time(JsonNode)}.
     */
    @Override
    public Optional<Instant> completionTime(GenericKubernetesResource job) {
        JsonNode json = json(job);
        if (finishedAt != null) {
            return RunTimeFields.time(finishedAt.get(json));
        }
        if (finishedField != null) {
            return Optional.empty(); // a phase says not when
        }
        JsonNode ended = lastFinishingCondition(json);
        return ended == null ? Optional.empty() : RunTimeFields.time(ended.get("lastTransitionTime"));
    }

    @Override
    public Resources request(GenericKubernetesResource job) {
        return request(job, PodDefaults.NONE);
    }

    /** By the declaration's pod sets ({@link PodSets#request}). */
    @Override
    public Resources request(GenericKubernetesResource job, PodDefaults defaults) {
        return podSets.request(json(job), defaults, serialization);
    }

    @Override
    public String podLabelKey() {
        return podLabelKey;
    }

    @Override
    public String podLabelValue(String name, String uid) {
        return labelIsUid ? uid : name;
    }

    /**
     * The label's value when it is the job's name; when it is the job's uid ({@code labelValue: Uid}, declared only
     * with {@code ownedByJob: true}), the name of the pod's controlling owner of this kind and API group, since a uid
     * names no job by itself. Null when the pod names no job of the kind.
     */
    @Override
    public String jobNameOfPod(io.fabric8.kubernetes.api.model.ObjectMeta pod) {
        if (!labelIsUid) {
            return JobKind.super.jobNameOfPod(pod);
        }
        if (pod.getLabels() == null || !pod.getLabels().containsKey(podLabelKey) || pod.getOwnerReferences() == null) {
            return null;
        }
        for (io.fabric8.kubernetes.api.model.OwnerReference owner : pod.getOwnerReferences()) {
            if (Boolean.TRUE.equals(owner.getController()) && kind.equals(owner.getKind())
                    && owner.getApiVersion() != null && owner.getApiVersion().startsWith(group + "/")) {
                return owner.getName();
            }
        }
        return null;
    }

    @Override
    public boolean ownsItsPods() {
        return ownedByJob;
    }

    /**
     * The class at {@code priorityClass} when declared and a string; else the first pod template (in pod-set order)
     * whose spec names a {@code priorityClassName} or sets {@code priority}.
     */
    @Override
    public JobPriority priority(GenericKubernetesResource job) {
        JsonNode json = json(job);
        if (priorityClass != null) {
            JsonNode name = priorityClass.get(json);
            if (name != null && name.isTextual()) {
                return new JobPriority(name.textValue(), null);
            }
        }
        return podSets.priority(json);
    }

    /**
     * The job as the informer cache keeps it: the metadata as the built-in kinds keep it ({@link Pruning#jobMetadata});
     * of the spec and status (JSON nodes, read once here, not at every read) only what this kind's reads read
     * ({@link KeptReads}): the hold field if a boolean, {@code priorityClass} if a string, {@code started} (whether
     * it is there), {@code activeDeadlineSeconds} and {@code finished.at} if they read, {@code finished.field} if it
     * says finished; of {@code status.conditions} only the last finishing one, as type, status and
     * lastTransitionTime; and what the pod sets walk ({@link PodSets#read}): their items' places, each count, each
     * {@code templatePathFrom}, each {@code resources} (requests and limits) and each pod template as
     * {@link Pruning#podTemplate} keeps it. Every read of this kind gives on the copy what it gives on the job, an
     * {@link InvalidJobException} included: a job with more items than are read keeps the places of the first ones
     * too many (not their contents), and is refused with the same Warning when read. Linear in the job's size.
     */
    @Override
    public GenericKubernetesResource pruned(GenericKubernetesResource job) {
        GenericKubernetesResource copy = new GenericKubernetesResource();
        copy.setApiVersion(job.getApiVersion());
        copy.setKind(job.getKind());
        copy.setMetadata(Pruning.jobMetadata(job.getMetadata()));
        ObjectNode json = json(job);
        KeptReads kept = new KeptReads(serialization);
        if (holdField != null) {
            kept.single(holdField, json, JsonNode::isBoolean);
        }
        if (priorityClass != null) {
            kept.single(priorityClass, json, JsonNode::isTextual);
        }
        if (started != null) {
            kept.single(started, json, node -> true);
        }
        if (activeDeadline != null) {
            kept.single(activeDeadline, json, node -> RunTimeFields.seconds(node).isPresent());
        }
        if (finishedField != null) {
            kept.single(finishedField, json, node -> node.isTextual() && finishedValues.contains(node.textValue()));
        }
        if (finishedAt != null) {
            kept.single(finishedAt, json, node -> RunTimeFields.time(node).isPresent());
        }
        JsonNode ended = lastFinishingCondition(json);
        if (ended != null) { // reached as json.path("status").path("conditions"): both objects, or it would not be
            JsonNode status = json.get("status");
            kept.field(json, "status");
            kept.field(status, "conditions");
            kept.replace(status.get("conditions"), "conditions", conditions -> {
                ObjectNode condition = JSON.objectNode();
                condition.set("type", ended.get("type"));
                condition.set("status", ended.get("status"));
                JsonNode at = ended.get("lastTransitionTime");
                if (RunTimeFields.time(at).isPresent()) {
                    condition.set("lastTransitionTime", at);
                }
                return JSON.arrayNode(1).add(condition);
            });
        }
        podSets.read(json, kept);
        ObjectNode pruned = kept.copy(json);
        if (pruned.get("spec") != null) {
            copy.setAdditionalProperty("spec", pruned.get("spec"));
        }
        if (pruned.get("status") != null) {
            copy.setAdditionalProperty("status", pruned.get("status"));
        }
        return copy;
    }

    /**
     * The job as one JSON object ({@code spec}, {@code status}; the metadata is read from the object itself). A
     * pruned copy holds its spec and status as JSON nodes already; an object as read holds maps, converted here.
     */
    ObjectNode json(GenericKubernetesResource job) {
        ObjectNode json = JSON.objectNode();
        Object spec = job.getAdditionalProperties().get("spec");
        Object status = job.getAdditionalProperties().get("status");
        if (spec != null) {
            json.set("spec", tree(spec));
        }
        if (status != null) {
            json.set("status", tree(status));
        }
        return json;
    }

    /**
     * A tenant's JSON as a tree, without recursion: the API server stores objects 10,000 levels deep, and Jackson's
     * {@code convertValue} (and {@code deepCopy}) recurse per level, which overflows an informer thread's stack (a
     * StackOverflowError stops the watch). A JSON node is used as it is; see {@link #copy} for a copy of one.
     */
    private JsonNode tree(Object value) {
        if (value instanceof JsonNode node) {
            return node;
        }
        JsonNode root = leaf(value);
        Deque<Map.Entry<Object, JsonNode>> todo = new ArrayDeque<>();
        todo.push(Map.entry(value, root));
        while (!todo.isEmpty()) {
            Map.Entry<Object, JsonNode> next = todo.pop();
            if (next.getKey() instanceof Map<?, ?> map) {
                ObjectNode object = (ObjectNode) next.getValue();
                for (Map.Entry<?, ?> field : map.entrySet()) {
                    JsonNode child = leaf(field.getValue());
                    object.set(String.valueOf(field.getKey()), child);
                    if (child.isContainerNode()) {
                        todo.push(Map.entry(field.getValue(), child));
                    }
                }
            } else if (next.getKey() instanceof List<?> list) {
                ArrayNode array = (ArrayNode) next.getValue();
                for (Object item : list) {
                    JsonNode child = leaf(item);
                    array.add(child);
                    if (child.isContainerNode()) {
                        todo.push(Map.entry(item, child));
                    }
                }
            }
        }
        return root;
    }

    /** An empty container for a map or list (filled by {@link #tree}); a scalar as Jackson converts it. */
    private JsonNode leaf(Object value) {
        if (value == null) {
            return JSON.nullNode();
        }
        if (value instanceof Map<?, ?>) {
            return JSON.objectNode();
        }
        if (value instanceof List<?>) {
            return JSON.arrayNode();
        }
        if (value instanceof JsonNode node) {
            return copy(node);
        }
        return serialization.convertValue(value, JsonNode.class);
    }

    /** A deep copy of a JSON tree, without recursion (see {@link #tree}). */
    static JsonNode copy(JsonNode node) {
        if (!node.isContainerNode()) {
            return node; // immutable
        }
        JsonNode root = node.isObject() ? JSON.objectNode() : JSON.arrayNode();
        Deque<Map.Entry<JsonNode, JsonNode>> todo = new ArrayDeque<>();
        todo.push(Map.entry(node, root));
        while (!todo.isEmpty()) {
            Map.Entry<JsonNode, JsonNode> next = todo.pop();
            JsonNode from = next.getKey();
            for (Iterator<Map.Entry<String, JsonNode>> it = from.isObject() ? from.fields()
                    : java.util.Collections.<Map.Entry<String, JsonNode>>emptyIterator(); it.hasNext();) {
                Map.Entry<String, JsonNode> field = it.next();
                JsonNode child = field.getValue().isObject() ? JSON.objectNode()
                        : field.getValue().isArray() ? JSON.arrayNode() : field.getValue();
                ((ObjectNode) next.getValue()).set(field.getKey(), child);
                if (child.isContainerNode()) {
                    todo.push(Map.entry(field.getValue(), child));
                }
            }
            if (from.isArray()) {
                for (JsonNode item : from) {
                    JsonNode child = item.isObject() ? JSON.objectNode() : item.isArray() ? JSON.arrayNode() : item;
                    ((ArrayNode) next.getValue()).add(child);
                    if (child.isContainerNode()) {
                        todo.push(Map.entry(item, child));
                    }
                }
            }
        }
        return root;
    }

    @Override
    public String toString() {
        return kind + " (" + apiVersion() + ", declared by QueuedKind " + declaration + ")";
    }
}
