package io.kubequeue.visibility;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.kubequeue.job.DryRuns;
import io.kubequeue.job.EstimateAnswer;
import io.kubequeue.quota.WhatIfs;
import io.kubequeue.scheduler.Forecasting;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.scheduler.model.Resources;

/**
 * kube-queue's aggregated API, {@code visibility.kube-queue.io/v1alpha1} (docs/visibility.md): the queues as the
 * scheduler holds them, served as Kubernetes resources to a caller the API server has authenticated. One call in, one
 * JSON answer out ({@link Reply}); the transport (TLS, the front-proxy headers, the forward to the leader) is the
 * serving package's.
 * <ul>
 *   <li>discovery: {@code /apis}, {@code /apis/visibility.kube-queue.io}, {@code /apis/visibility.kube-queue.io/v1alpha1};</li>
 *   <li>{@code pendingjobs} (namespaced; get, list, with field selectors; each with its start-time {@code estimate}
 *       and {@code unblock} lines), {@code quotagroups} (cluster; get, list) and their {@code pendingjobs}
 *       subresource (get), {@code dryruns} (namespaced; create), {@code whatifs} (cluster; create);</li>
 *   <li>a {@code meta.k8s.io/v1} {@code Table} when the caller asks for one ({@code kubectl get}'s {@code Accept});</li>
 *   <li>errors as {@code v1} {@code Status} objects, as kubectl prints them.</li>
 * </ul>
 * Every call is authorised by {@link Authorizer} questions on kube-queue's own resources; the table of
 * docs/visibility.md, "Who may read what", is the rule.
 */
public final class VisibilityApi {

    /** The API group. */
    public static final String GROUP = "visibility.kube-queue.io";
    /** Its one version. */
    public static final String VERSION = "v1alpha1";
    /** {@code group/version}, as objects name it in {@code apiVersion}. */
    public static final String GROUP_VERSION = GROUP + "/" + VERSION;
    /** The path every resource of the version is under. */
    public static final String PREFIX = "/apis/" + GROUP_VERSION;

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** Longest field selector read; past it the call is 400 (a selector is tenant input). */
    static final int LONGEST_SELECTOR = 1024;
    private static final Set<String> SELECTABLE = Set.of("quotaGroup", "state", "job.kind", "metadata.name",
            "metadata.namespace");

    private final ReadViews scheduler;
    private final Authorizer access;
    private final DryRuns dryRuns;
    /** The start-time estimates; null: none (pendingjobs carry {@code estimate: null, unblock: null}). */
    private final Forecasting forecasts;
    private final WhatIfs whatIfs;
    private final Clock clock;

    /**
     * Without estimates or what-ifs.
     *
     * @param dryRuns the dry run; null: {@code dryruns} is not served (404)
     */
    public VisibilityApi(ReadViews scheduler, Authorizer access, DryRuns dryRuns) {
        this(scheduler, access, dryRuns, null, null, Clock.systemUTC());
    }

    /**
     * @param dryRuns   the dry run; null: {@code dryruns} is not served (404)
     * @param forecasts the start-time estimates (issue 30); null with {@code kube-queue.estimates.enabled=false}:
     *                  pendingjobs carry {@code estimate} and {@code unblock} as null, the table's ETA {@code <none>}
     * @param whatIfs   the what-if; null: {@code whatifs} is not served (404)
     * @param clock     the time an estimate's age and the table's ETA are counted from
     */
    public VisibilityApi(ReadViews scheduler, Authorizer access, DryRuns dryRuns, Forecasting forecasts,
                         WhatIfs whatIfs, Clock clock) {
        this.scheduler = scheduler;
        this.access = access;
        this.dryRuns = dryRuns;
        this.forecasts = forecasts;
        this.whatIfs = whatIfs;
        this.clock = clock;
    }

    /**
     * What a pending job's object adds about its start (issue 30), rendered for one reader.
     *
     * @param estimate the read API's {@code estimate}; null before the first replay or without estimates
     * @param unblock  the least that would admit it now, one line each; empty if it fits now; null without estimates
     */
    record Forecast(EstimateAnswer estimate, List<String> unblock) {
        static final Forecast NONE = new Forecast(null, null);
    }

    /** Each job's forecast as this reader may read it (other jobs named only if {@code mayName} says so). */
    private java.util.function.Function<PendingView, Forecast> forecasts(Predicate<JobKey> mayName) {
        if (forecasts == null) {
            return v -> Forecast.NONE;
        }
        Instant now = clock.instant();
        return v -> {
            JobKey key = v.status().key();
            return new Forecast(EstimateAnswer.of(forecasts.estimate(key).orElse(null), mayName, now),
                    forecasts.unblock(key).stream().map(e -> e.render(mayName)).toList());
        };
    }

    /**
     * One call.
     *
     * @param method the HTTP method
     * @param path   the path, not decoded ({@code %2F} in a name is not a separator)
     * @param query  the query's parameters, decoded
     * @param accept the {@code Accept} header, or null
     * @param body   the request body (a dry run's manifest, a what-if's quota objects), or null
     */
    public record Request(String method, String path, Map<String, List<String>> query, String accept, String body) {

        /** The first value of a query parameter, or null. */
        String param(String name) {
            List<String> values = query == null ? null : query.get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        }
    }

    /**
     * One answer.
     *
     * @param status the HTTP status
     * @param body   the JSON body: the object, list, table, discovery document or {@code Status}
     */
    public record Reply(int status, JsonNode body) {
    }

    /** A failure answered as a {@code Status}. */
    private static final class Failure extends RuntimeException {
        final int code;
        final String reason;

        Failure(int code, String reason, String message) {
            super(message, null, false, false);
            this.code = code;
            this.reason = reason;
        }
    }

    /**
     * The answer to one call from an authenticated caller.
     *
     * @param caller who calls, as the API server named them
     */
    public Reply answer(Caller caller, Request request) {
        try {
            return route(caller, request);
        } catch (Failure f) {
            return status(f.code, f.reason, f.getMessage());
        } catch (VisibilityAccess.Unanswered e) {
            return status(503, "ServiceUnavailable", e.getMessage());
        }
    }

    /** The answer to a call kube-queue could not authenticate: 401, with why. */
    public static Reply unauthorized(String why) {
        return status(401, "Unauthorized", why);
    }

    /** A {@code v1} {@code Status} answer. */
    public static Reply status(int code, String reason, String message) {
        ObjectNode s = JSON.objectNode().put("kind", "Status").put("apiVersion", "v1");
        s.putObject("metadata");
        s.put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
        return new Reply(code, s);
    }

    /** The routes {@link #route(String)} names, for metrics. */
    public static final List<String> ROUTES = List.of("discovery", "pendingjobs", "quotagroups",
            "quotagroup_pendingjobs", "dryruns", "whatifs", "other");

    /**
     * The route of a path, for a metric's label (names taken out, so the series do not grow with the jobs):
     * {@code discovery}, {@code pendingjobs}, {@code quotagroups}, {@code quotagroup_pendingjobs}, {@code dryruns},
     * {@code whatifs}, {@code other}.
     */
    public static String route(String path) {
        String p = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        if (p.equals("/apis") || p.equals("/apis/" + GROUP) || p.equals(PREFIX)) {
            return "discovery";
        }
        if (!p.startsWith(PREFIX + "/")) {
            return "other";
        }
        String[] parts = p.substring(PREFIX.length() + 1).split("/", -1);
        if (parts[0].equals("namespaces") && parts.length >= 3) {
            return parts[2].equals("pendingjobs") && parts.length <= 4 ? "pendingjobs"
                    : parts[2].equals("dryruns") && parts.length == 3 ? "dryruns" : "other";
        }
        if (parts[0].equals("pendingjobs") && parts.length == 1) {
            return "pendingjobs";
        }
        if (parts[0].equals("whatifs") && parts.length == 1) {
            return "whatifs";
        }
        if (parts[0].equals("quotagroups")) {
            return parts.length <= 2 ? "quotagroups"
                    : parts.length == 3 && parts[2].equals("pendingjobs") ? "quotagroup_pendingjobs" : "other";
        }
        return "other";
    }

    private Reply route(Caller caller, Request request) {
        String path = request.path();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.equals("/apis") || path.equals("/apis/" + GROUP) || path.equals(PREFIX)) {
            requireGet(request);
            return new Reply(200, path.equals("/apis") ? Discovery.groupList()
                    : path.equals(PREFIX) ? Discovery.resourceList() : Discovery.group());
        }
        if (!path.startsWith(PREFIX + "/")) {
            throw new Failure(404, "NotFound", "the server could not find the requested resource");
        }
        String[] parts = path.substring(PREFIX.length() + 1).split("/", -1);
        for (int i = 0; i < parts.length; i++) {
            try {
                parts[i] = PathEscapes.unescape(parts[i]);
            } catch (IllegalArgumentException e) { // a % not followed by two hex digits: the path is not one
                throw new Failure(400, "BadRequest", "the path holds a malformed %-escape");
            }
            if (parts[i].isEmpty()) {
                throw new Failure(404, "NotFound", "the server could not find the requested resource");
            }
        }
        if ("true".equals(request.param("watch")) || "1".equals(request.param("watch"))) {
            throw new Failure(405, "MethodNotAllowed", "watch is not served: kube-queue's visibility API answers"
                    + " lists and gets only");
        }
        String table = Tables.version(request.accept()); // null: no table asked for
        String include = request.param("includeObject");
        if (parts.length >= 3 && parts[0].equals("namespaces")) {
            String namespace = parts[1];
            String resource = parts[2];
            if (resource.equals("pendingjobs") && parts.length == 3) {
                requireGet(request);
                return listPendingJobs(caller, namespace, request, table, include);
            }
            if (resource.equals("pendingjobs") && parts.length == 4) {
                requireGet(request);
                return getPendingJob(caller, namespace, parts[3], request.param("kind"), table, include);
            }
            if (resource.equals("dryruns") && parts.length == 3 && dryRuns != null) {
                if (!"POST".equals(request.method())) {
                    throw new Failure(405, "MethodNotAllowed", "dryruns take create (POST) only");
                }
                return dryRun(caller, namespace, request.body());
            }
        } else if (parts.length == 1 && parts[0].equals("whatifs") && whatIfs != null) {
            if (!"POST".equals(request.method())) {
                throw new Failure(405, "MethodNotAllowed", "whatifs take create (POST) only");
            }
            return whatIf(caller, request);
        } else if (parts.length == 1 && parts[0].equals("pendingjobs")) {
            requireGet(request);
            return listPendingJobs(caller, null, request, table, include);
        } else if (parts[0].equals("quotagroups") && parts.length <= 3) {
            requireGet(request);
            if (parts.length == 1) {
                return listQuotaGroups(caller, table, include);
            }
            if (parts.length == 2) {
                return getQuotaGroup(caller, parts[1], table, include);
            }
            if (parts[2].equals("pendingjobs")) {
                return groupPendingJobs(caller, parts[1], table, include);
            }
        }
        throw new Failure(404, "NotFound", "the server could not find the requested resource");
    }

    private static void requireGet(Request request) {
        if (!"GET".equals(request.method()) && !"HEAD".equals(request.method())) {
            throw new Failure(405, "MethodNotAllowed", "the visibility API is read-only: " + request.method()
                    + " is not allowed here");
        }
    }

    // ---- pendingjobs ----

    private Reply listPendingJobs(Caller caller, String namespace, Request request, String table, String include) {
        Map<String, String> selector = fieldSelector(request.param("fieldSelector"));
        String labels = request.param("labelSelector");
        Predicate<String> mayList = mayListIn(caller);
        List<PendingView> jobs;
        if (namespace != null) {
            require(caller, "list", "pendingjobs", "", namespace, "");
            jobs = scheduler.pendingIn(namespace);
        } else if (allows(caller, "list", "pendingjobs", "", "", "")) {
            jobs = scheduler.pendingIn(null);
        } else {
            // every namespace: those where the caller may list pendingjobs, among the namespaces a quota group lists
            // and those of the pending jobs; none is a 403 whatever is pending, so that what other teams queue
            // decides nothing in the answer
            List<PendingView> all = scheduler.pendingIn(null);
            Set<String> namespaces = new java.util.TreeSet<>();
            scheduler.groups().forEach(g -> namespaces.addAll(g.namespaces()));
            all.forEach(v -> namespaces.add(v.status().key().namespace()));
            if (namespaces.stream().noneMatch(mayList)) { // the answers are remembered for the filter below
                throw forbidden(caller, "list", "pendingjobs", "", "", "");
            }
            jobs = all.stream().filter(v -> mayList.test(v.status().key().namespace())).toList();
        }
        List<PendingView> selected = labels != null && !labels.isBlank() ? List.of()
                : jobs.stream().filter(v -> matches(v, selector)).toList();
        return pendingJobs(mayList, selected, table, include);
    }

    private Reply getPendingJob(Caller caller, String namespace, String name, String kind, String table,
                                String include) {
        require(caller, "get", "pendingjobs", "", namespace, name);
        List<PendingView> found = scheduler.find(namespace, name).stream()
                .filter(v -> kind == null || v.status().key().kind().equalsIgnoreCase(kind)).toList();
        Optional<PendingView> pending = found.stream().filter(v -> v.status().state() != JobState.ADMITTED)
                .findFirst();
        if (pending.isEmpty()) {
            String why = found.isEmpty() ? "kube-queue holds no job " + namespace + "/" + name
                    + (kind == null ? "" : " of kind " + kind) + " (never queued, or finished)"
                    : "job " + namespace + "/" + name + " is not pending: " + found.get(0).reason()
                    .render(mayName(mayListIn(caller)));
            throw new Failure(404, "NotFound", "pendingjobs.visibility.kube-queue.io \"" + name + "\" not found: "
                    + why);
        }
        Predicate<JobKey> mayName = mayName(mayListIn(caller));
        if (table != null) {
            return new Reply(200, Tables.pendingJobs(table, List.of(pending.get()), mayName, forecasts(mayName),
                    clock.instant(), include));
        }
        return new Reply(200, Shapes.pendingJob(pending.get(), mayName, forecasts(mayName).apply(pending.get())));
    }

    private Reply groupPendingJobs(Caller caller, String group, String table, String include) {
        List<PendingView> jobs;
        Predicate<String> mayList = mayListIn(caller);
        if (allows(caller, "get", "quotagroups", "pendingjobs", "", group)) {
            requireGroup(group);
            jobs = scheduler.pending(group);
        } else {
            if (!GroupView.visibleThrough(scheduler.groups(), mayList).contains(group)) {
                throw forbidden(caller, "get", "quotagroups", "pendingjobs", "", group);
            }
            jobs = scheduler.pending(group).stream().filter(v -> mayList.test(v.status().key().namespace())).toList();
        }
        return pendingJobs(mayList, jobs, table, include);
    }

    /**
     * @param mayList whether the caller may list pendingjobs in a namespace (reasons, assumptions and unblock lines
     *                name only those jobs)
     */
    private Reply pendingJobs(Predicate<String> mayList, List<PendingView> jobs, String table, String include) {
        Predicate<JobKey> mayName = mayName(mayList);
        java.util.function.Function<PendingView, Forecast> forecast = forecasts(mayName);
        if (table != null) {
            return new Reply(200, Tables.pendingJobs(table, jobs, mayName, forecast, clock.instant(), include));
        }
        ArrayNode items = JSON.arrayNode();
        jobs.forEach(v -> items.add(Shapes.pendingJob(v, mayName, forecast.apply(v))));
        return new Reply(200, Shapes.list("PendingJobList", items));
    }

    /**
     * Whether the caller may list pendingjobs in a namespace, each namespace asked once per call: the one question
     * behind a tenant's view (their namespaces' jobs, the groups that hold them, the jobs a reason may name).
     */
    private Predicate<String> mayListIn(Caller caller) {
        Map<String, Boolean> answers = new HashMap<>();
        return namespace -> answers.computeIfAbsent(namespace, ns -> allows(caller, "list", "pendingjobs", "", ns, ""));
    }

    /** Whether a reason may name another job: the caller may list pendingjobs in its namespace. */
    private static Predicate<JobKey> mayName(Predicate<String> mayList) {
        return key -> mayList.test(key.namespace());
    }

    /**
     * The equality terms of a field selector ({@code a=b,c==d}), by field.
     *
     * @throws Failure 400 for a term that is not an equality on a field kube-queue selects on
     */
    static Map<String, String> fieldSelector(String selector) {
        Map<String, String> terms = new LinkedHashMap<>();
        if (selector == null || selector.isBlank()) {
            return terms;
        }
        if (selector.length() > LONGEST_SELECTOR) {
            throw new Failure(400, "BadRequest", "the field selector is longer than " + LONGEST_SELECTOR + " characters");
        }
        for (String term : selector.split(",")) {
            if (term.contains("!=")) {
                throw new Failure(400, "BadRequest", "field selector \"" + term + "\": only = and == are supported");
            }
            int eq = term.indexOf('=');
            if (eq < 0) {
                throw new Failure(400, "BadRequest", "field selector \"" + term + "\": not field=value");
            }
            String field = term.substring(0, eq).trim();
            String value = term.substring(term.startsWith("=", eq + 1) ? eq + 2 : eq + 1).trim();
            if (!SELECTABLE.contains(field)) {
                throw new Failure(400, "BadRequest", "field selector \"" + term + "\": \"" + field
                        + "\" is not a field label of pendingjobs (" + String.join(", ", new java.util.TreeSet<>(SELECTABLE)) + ")");
            }
            if (terms.containsKey(field) && !terms.get(field).equals(value)) {
                terms.put(field, "\u0000"); // two different values for one field: nothing matches
            } else {
                terms.put(field, value);
            }
        }
        return terms;
    }

    private static boolean matches(PendingView v, Map<String, String> selector) {
        JobStatus s = v.status();
        for (Map.Entry<String, String> term : selector.entrySet()) {
            String actual = switch (term.getKey()) {
                case "quotaGroup" -> s.group() == null ? "" : s.group();
                case "state" -> Shapes.state(s.state());
                case "job.kind" -> s.key().kind();
                case "metadata.name" -> s.key().name();
                default -> s.key().namespace(); // metadata.namespace
            };
            if (!term.getValue().equals(actual)) {
                return false;
            }
        }
        return true;
    }

    // ---- quotagroups ----

    private Reply listQuotaGroups(Caller caller, String table, String include) {
        List<GroupView> groups = scheduler.groups();
        List<GroupView> shown;
        if (allows(caller, "list", "quotagroups", "", "", "")) {
            shown = groups;
        } else {
            Set<String> visible = visibleGroups(caller, groups);
            if (visible.isEmpty()) {
                throw forbidden(caller, "list", "quotagroups", "", "", "");
            }
            shown = groups.stream().filter(g -> visible.contains(g.name())).toList();
        }
        return quotaGroups(shown, table, include);
    }

    private Reply getQuotaGroup(Caller caller, String name, String table, String include) {
        List<GroupView> groups = scheduler.groups();
        if (!allows(caller, "get", "quotagroups", "", "", name) && !visibleGroups(caller, groups).contains(name)) {
            throw forbidden(caller, "get", "quotagroups", "", "", name);
        }
        GroupView group = groups.stream().filter(g -> g.name().equals(name)).findFirst()
                .orElseThrow(() -> notFoundGroup(name));
        if (table != null) {
            return new Reply(200, Tables.quotaGroups(table, List.of(group), scheduler.settings().policy().name(), include));
        }
        return new Reply(200, Shapes.quotaGroup(group, scheduler.settings().policy().name()));
    }

    private Reply quotaGroups(List<GroupView> groups, String table, String include) {
        String policy = scheduler.settings().policy().name();
        if (table != null) {
            return new Reply(200, Tables.quotaGroups(table, groups, policy, include));
        }
        ArrayNode items = JSON.arrayNode();
        groups.forEach(g -> items.add(Shapes.quotaGroup(g, policy)));
        return new Reply(200, Shapes.list("QuotaGroupList", items));
    }

    private Set<String> visibleGroups(Caller caller, List<GroupView> groups) {
        return GroupView.visibleThrough(groups, mayListIn(caller));
    }

    private void requireGroup(String name) {
        if (scheduler.groups().stream().noneMatch(g -> g.name().equals(name))) {
            throw notFoundGroup(name);
        }
    }

    private static Failure notFoundGroup(String name) {
        return new Failure(404, "NotFound", "quotagroups.visibility.kube-queue.io \"" + name + "\" not found");
    }

    // ---- dryruns ----

    private Reply dryRun(Caller caller, String namespace, String manifest) {
        require(caller, "create", "dryruns", "", namespace, "");
        try {
            DryRuns.Parsed parsed = dryRuns.parse(manifest == null ? "" : manifest, namespace);
            if (!parsed.namespace().equals(namespace)) {
                throw new Failure(400, "BadRequest", "the manifest's namespace " + parsed.namespace()
                        + " is not the URL's (" + namespace + ")");
            }
            Predicate<String> mayList = mayListIn(caller);
            DryRuns.Verdict verdict = dryRuns.verdict(parsed, mayName(mayList));
            if (verdict.group() != null && !allows(caller, "get", "quotagroups", "", "", verdict.group())
                    && !GroupView.visibleThrough(scheduler.groups(), mayList).contains(verdict.group())) {
                // a label can route a job to another team's group: the answer would show that group's numbers
                throw new Failure(403, "Forbidden", "dryruns.visibility.kube-queue.io is forbidden: User \""
                        + caller.user() + "\" may see no namespace of quota group " + verdict.group()
                        + " (the job would queue there)");
            }
            return new Reply(201, Shapes.dryRun(verdict));
        } catch (DryRuns.ManifestException e) {
            throw new Failure(e.status(), e.status() == 400 ? "BadRequest" : "Invalid", e.getMessage());
        }
    }

    // ---- whatifs ----

    /**
     * A what-if (cluster-scoped, create only): {@code create whatifs} at the cluster scope, then the answer's jobs are
     * those of namespaces where the caller may list pendingjobs; its groups' summary is every group's, for a caller
     * who may see at least one group (403 otherwise, as the read API's what-if).
     */
    private Reply whatIf(Caller caller, Request request) {
        require(caller, "create", "whatifs", "", "", "");
        try {
            whatIfs.requireEnabled();
            Predicate<String> mayList = mayListIn(caller);
            if (!allows(caller, "list", "quotagroups", "", "", "")
                    && GroupView.visibleThrough(scheduler.groups(), mayList).isEmpty()) {
                throw new Failure(403, "Forbidden", "whatifs.visibility.kube-queue.io is forbidden: User \""
                        + caller.user() + "\" may see no quota group (cannot list resource \"quotagroups\" in API"
                        + " group \"" + GROUP + "\" at the cluster scope, nor pendingjobs in a namespace of any group)");
            }
            WhatIfs.Answer answer = whatIfs.answer(request.body(), request.param("StrictPriority"),
                    request.param("StrictConsistency"), key -> mayList.test(key.namespace()));
            return new Reply(201, Shapes.whatIf(answer));
        } catch (WhatIfs.Refused e) {
            throw new Failure(e.status(), e.status() == 404 ? "NotFound" : "BadRequest", e.getMessage());
        }
    }

    // ---- authorisation ----

    private boolean allows(Caller caller, String verb, String resource, String subresource, String namespace,
                           String name) {
        return access.allows(new VisibilityAccess.Question(caller, verb, resource, subresource, namespace, name));
    }

    private void require(Caller caller, String verb, String resource, String subresource, String namespace,
                         String name) {
        if (!allows(caller, verb, resource, subresource, namespace, name)) {
            throw forbidden(caller, verb, resource, subresource, namespace, name);
        }
    }

    /** 403 worded as kube-apiserver words it, so kubectl users read the familiar line. */
    private static Failure forbidden(Caller caller, String verb, String resource, String subresource,
                                     String namespace, String name) {
        String what = resource + (subresource.isEmpty() ? "" : "/" + subresource);
        return new Failure(403, "Forbidden", resource + "." + GROUP + (name.isEmpty() ? "" : " \"" + name + "\"")
                + " is forbidden: User \"" + caller.user() + "\" cannot " + verb + " resource \"" + what
                + "\" in API group \"" + GROUP + "\""
                + (namespace.isEmpty() ? " at the cluster scope" : " in the namespace \"" + namespace + "\""));
    }

    // ---- the documents ----

    /** The discovery documents (legacy discovery: the aggregator falls back to it). */
    static final class Discovery {
        private Discovery() {
        }

        static ObjectNode groupList() {
            ObjectNode list = JSON.objectNode().put("kind", "APIGroupList").put("apiVersion", "v1");
            list.putArray("groups").add(groupBody(JSON.objectNode()));
            return list;
        }

        static ObjectNode group() {
            return groupBody(JSON.objectNode().put("kind", "APIGroup").put("apiVersion", "v1"));
        }

        private static ObjectNode groupBody(ObjectNode g) {
            g.put("name", GROUP);
            ObjectNode version = JSON.objectNode().put("groupVersion", GROUP_VERSION).put("version", VERSION);
            g.putArray("versions").add(version);
            g.set("preferredVersion", version.deepCopy());
            return g;
        }

        static ObjectNode resourceList() {
            ObjectNode list = JSON.objectNode().put("kind", "APIResourceList").put("apiVersion", "v1")
                    .put("groupVersion", GROUP_VERSION);
            ArrayNode resources = list.putArray("resources");
            resources.add(resource("pendingjobs", "pendingjob", true, "PendingJob", List.of("get", "list"), "pj"));
            resources.add(resource("quotagroups", "quotagroup", false, "QuotaGroup", List.of("get", "list"), "qg"));
            resources.add(resource("quotagroups/pendingjobs", "", false, "PendingJobList", List.of("get"), null));
            resources.add(resource("dryruns", "dryrun", true, "DryRun", List.of("create"), null));
            resources.add(resource("whatifs", "whatif", false, "WhatIf", List.of("create"), null));
            return list;
        }

        private static ObjectNode resource(String name, String singular, boolean namespaced, String kind,
                                           List<String> verbs, String shortName) {
            ObjectNode r = JSON.objectNode().put("name", name).put("singularName", singular)
                    .put("namespaced", namespaced).put("kind", kind);
            ArrayNode v = r.putArray("verbs");
            verbs.forEach(v::add);
            if (shortName != null) {
                r.putArray("shortNames").add(shortName);
                r.putArray("categories").add("kube-queue");
            }
            return r;
        }
    }

    /** The objects of the API, as JSON. */
    static final class Shapes {
        private Shapes() {
        }

        static String state(JobState state) {
            return switch (state) {
                case ACTIVE -> "Active";
                case BACKOFF -> "BackedOff";
                case HELD -> "Held";
                case ADMITTED -> "Admitted";
            };
        }

        static ObjectNode metadata(String name, String namespace) {
            ObjectNode m = JSON.objectNode().put("name", name);
            if (namespace != null) {
                m.put("namespace", namespace);
            }
            return m;
        }

        /** @param forecast its estimate and unblock lines, already rendered for the reader */
        static ObjectNode pendingJob(PendingView v, Predicate<JobKey> mayName, Forecast forecast) {
            JobStatus s = v.status();
            ObjectNode o = JSON.objectNode().put("apiVersion", GROUP_VERSION).put("kind", "PendingJob");
            o.set("metadata", metadata(s.key().name(), s.key().namespace()));
            o.putObject("job").put("kind", s.key().kind());
            if (s.group() != null) {
                o.put("quotaGroup", s.group());
            }
            o.put("state", state(s.state())).put("position", v.position()).put("priority", s.priority());
            o.set("request", quantities(s.request()));
            if (s.retryAt() != null) {
                o.put("retryAt", s.retryAt().toString());
            }
            o.put("reason", v.reason().render(mayName));
            o.set("estimate", estimate(forecast.estimate()));
            if (forecast.unblock() == null) {
                o.putNull("unblock");
            } else {
                ArrayNode unblock = o.putArray("unblock");
                forecast.unblock().forEach(unblock::add);
            }
            return o;
        }

        static ObjectNode quotaGroup(GroupView g, String policy) {
            ObjectNode o = JSON.objectNode().put("apiVersion", GROUP_VERSION).put("kind", "QuotaGroup");
            o.set("metadata", metadata(g.name(), null));
            if (g.parent() != null) {
                o.put("parent", g.parent());
            }
            o.put("policy", policy);
            ArrayNode namespaces = o.putArray("namespaces");
            new LinkedHashSet<>(g.namespaces()).forEach(namespaces::add);
            o.set("min", quantities(g.min()));
            o.set("max", quantities(g.max()));
            o.set("used", quantities(g.used()));
            o.set("outside", quantities(g.outside()));
            o.put("pending", g.pending()).put("admitted", g.admitted());
            return o;
        }

        static ObjectNode dryRun(DryRuns.Verdict v) {
            ObjectNode o = JSON.objectNode().put("apiVersion", GROUP_VERSION).put("kind", "DryRun");
            o.set("metadata", metadata(v.name(), v.namespace()));
            o.put("managed", v.managed());
            o.putObject("job").put("kind", v.kind());
            if (v.group() != null) {
                o.put("quotaGroup", v.group());
            }
            ObjectNode request = o.putObject("request");
            new java.util.TreeMap<>(v.request()).forEach(request::put);
            o.put("priority", v.priority()).put("fitsNow", v.fitsNow()).put("position", v.position())
                    .put("reason", v.reason());
            o.set("estimate", estimate(v.estimate()));
            return o;
        }

        /**
         * A {@code WhatIf}: the read API's what-if answer ({@link WhatIfs.Answer}: {@code computedAt}, {@code jobs},
         * {@code groups}, the same fields) as an object of this API.
         */
        static ObjectNode whatIf(WhatIfs.Answer answer) {
            ObjectNode o = JSON.objectNode().put("apiVersion", GROUP_VERSION).put("kind", "WhatIf");
            o.putObject("metadata");
            o.put("computedAt", answer.computedAt());
            ArrayNode jobs = o.putArray("jobs");
            for (WhatIfs.Job j : answer.jobs()) {
                jobs.addObject().put("kind", j.kind()).put("namespace", j.namespace()).put("name", j.name())
                        .put("group", j.group()).put("position", j.position()).put("eta", j.eta())
                        .put("state", j.state()).put("groupAfter", j.groupAfter())
                        .put("positionAfter", j.positionAfter()).put("etaAfter", j.etaAfter())
                        .put("stateAfter", j.stateAfter());
            }
            ArrayNode groups = o.putArray("groups");
            for (WhatIfs.Group g : answer.groups()) {
                groups.addObject().put("group", g.group()).put("earlier", g.earlier()).put("later", g.later())
                        .put("shiftSeconds", g.shiftSeconds());
            }
            return o;
        }

        /** The read API's {@code estimate} object ({@link io.kubequeue.job.EstimateAnswer}); null for none. */
        static com.fasterxml.jackson.databind.JsonNode estimate(io.kubequeue.job.EstimateAnswer e) {
            if (e == null) {
                return JSON.nullNode();
            }
            ObjectNode o = JSON.objectNode().put("state", e.state()).put("eta", e.eta()).put("etaLate", e.etaLate())
                    .put("runsForSeconds", e.runsForSeconds());
            ArrayNode assumptions = o.putArray("assumptions");
            e.assumptions().forEach(assumptions::add);
            return o.put("computedAt", e.computedAt()).put("ageSeconds", e.ageSeconds());
        }

        static ObjectNode quantities(Resources r) {
            ObjectNode q = JSON.objectNode();
            if (r != null) {
                new java.util.TreeMap<>(r.asQuantities()).forEach(q::put);
            }
            return q;
        }

        static ObjectNode list(String kind, ArrayNode items) {
            ObjectNode list = JSON.objectNode().put("apiVersion", GROUP_VERSION).put("kind", kind);
            list.putObject("metadata").put("resourceVersion", "");
            list.set("items", items);
            return list;
        }
    }
}
