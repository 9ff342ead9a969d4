package io.kubequeue.visibility;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubequeue.quota.WhatIfs;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.FinishedRun;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * Issue 30 through the visibility API: each pending job's {@code estimate} and {@code unblock}, the Table's ETA
 * columns, and {@code whatifs}, from a real core. A blocking queue in root.shared (max 4 cpu, team-a and team-b):
 * team-a's 3-cpu job runs, team-b's 2-cpu head waits for it, team-a's 0.5-cpu job waits behind the head; team-c's
 * 3-cpu job never fits root.c (max 2). Jobs of root.shared ran 5 minutes before, so the waiting ones are dated. RBAC as
 * the users have it: alice may list pendingjobs in team-a and create whatifs; bea may list pendingjobs in team-b;
 * admin everything; bob nothing; carol may create whatifs only.
 */
class VisibilityEstimatesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String API = "/apis/visibility.kube-queue.io/v1alpha1";
    private static final String KUBECTL_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,"
            + "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    private static final Caller ALICE = new Caller("alice", List.of(), Map.of());
    private static final Caller ADMIN = new Caller("admin", List.of(), Map.of());
    private static final Caller BOB = new Caller("bob", List.of(), Map.of());
    private static final Caller BEA = new Caller("bea", List.of(), Map.of());
    private static final Caller CAROL = new Caller("carol", List.of(), Map.of());
    private static final Set<String> ESTIMATE_FIELDS = Set.of("state", "eta", "etaLate", "runsForSeconds",
            "assumptions", "computedAt", "ageSeconds");

    /** Reads manifests only: no API server is called. */
    private static KubernetesClient client;
    private Scheduler scheduler;
    private VisibilityApi api;

    @BeforeAll
    static void aClientThatOnlyReadsManifests() {
        client = new KubernetesClientBuilder().build();
    }

    @AfterAll
    static void close() {
        client.close();
    }

    private static boolean rbac(VisibilityAccess.Question q) {
        return switch (q.caller().user()) {
            case "admin" -> true;
            case "alice" -> q.resource().equals("pendingjobs") && q.namespace().equals("team-a")
                    && Set.of("get", "list").contains(q.verb())
                    || q.resource().equals("whatifs") && q.verb().equals("create") && q.namespace().isEmpty();
            case "bea" -> q.resource().equals("pendingjobs") && q.namespace().equals("team-b")
                    && Set.of("get", "list").contains(q.verb());
            case "carol" -> q.resource().equals("whatifs") && q.verb().equals("create");
            default -> false;
        };
    }

    @BeforeEach
    void queues() {
        Clock clock = Clock.fixed(T0, ZoneOffset.UTC);
        scheduler = new Scheduler(new SchedulerSettings(SchedulingPolicy.BLOCKING_QUEUE, Duration.ofSeconds(1),
                Duration.ofSeconds(20)), clock);
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("root.shared", "root", List.of("team-a", "team-b"), null, Resources.of("cpu", 4000L)),
                new QuotaNode("root.c", "root", List.of("team-c"), null, Resources.of("cpu", 2000L)))));
        scheduler.learn(new FinishedRun(new JobKey("Job", "team-a", "earlier"), "root.shared",
                Resources.of("cpu", 1000L), T0.minus(Duration.ofMinutes(15)), T0.minus(Duration.ofMinutes(10))));
        scheduler.observe(job("team-a", "running", 3000, 0));
        scheduler.schedule();
        scheduler.observe(job("team-b", "head", 2000, 1));
        scheduler.observe(job("team-a", "small", 500, 2));
        scheduler.observe(job("team-c", "huge", 3000, 3));
        scheduler.schedule();
        scheduler.refreshEstimates();
        api = new VisibilityApi(scheduler, VisibilityEstimatesTest::rbac, null, scheduler,
                new WhatIfs(scheduler, scheduler, client, true, false, false), clock);
    }

    private static JobObservation job(String namespace, String name, long millicores, int second) {
        return new JobObservation(new JobKey("Job", namespace, name), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", millicores), JobPriority.of(0), T0.plusSeconds(second), null, true, null);
    }

    private VisibilityApi.Reply call(Caller caller, String method, String path, Map<String, List<String>> query,
                                     String accept, String body) {
        return api.answer(caller, new VisibilityApi.Request(method, path, query, accept, body));
    }

    private VisibilityApi.Reply get(Caller caller, String path) {
        return call(caller, "GET", path, Map.of(), null, null);
    }

    private static JsonNode item(JsonNode list, String name) {
        return StreamSupport.stream(list.path("items").spliterator(), false)
                .filter(i -> i.path("metadata").path("name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in " + list));
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(a -> out.add(a.asText()));
        return out;
    }

    @Test
    void aPendingJobCarriesTheReadApisEstimateAndUnblock() {
        JsonNode head = get(ADMIN, API + "/namespaces/team-b/pendingjobs/head").body();
        JsonNode estimate = head.path("estimate");
        Set<String> fields = new java.util.TreeSet<>();
        estimate.fieldNames().forEachRemaining(fields::add);
        assertEquals(new java.util.TreeSet<>(ESTIMATE_FIELDS), fields, head.toString());
        assertEquals("ESTIMATED", estimate.path("state").asText());
        assertEquals("2026-01-01T00:05:00Z", estimate.path("eta").asText(), "once the running job's 5 minutes end");
        assertFalse(Instant.parse(estimate.path("etaLate").asText()).isBefore(Instant.parse(
                estimate.path("eta").asText())), estimate.toString());
        assertEquals(300, estimate.path("runsForSeconds").asLong());
        assertEquals(T0.toString(), estimate.path("computedAt").asText());
        assertEquals(0, estimate.path("ageSeconds").asLong());
        assertTrue(head.path("unblock").isArray() && !head.path("unblock").isEmpty(), head.toString());
        assertTrue(texts(head.path("unblock")).contains("raise max cpu of quota group root.shared by 1"),
                head.path("unblock").toString());

        JsonNode huge = get(ADMIN, API + "/namespaces/team-c/pendingjobs/huge").body();
        assertEquals("NEVER_FITS", huge.path("estimate").path("state").asText(), huge.toString());
        assertTrue(huge.path("estimate").path("eta").isNull());
    }

    /**
     * bea may list team-b only: the team-a job whose end team-b's head waits for is never named to her, in the
     * estimate's assumptions or the unblock lines, though the admin reads it named.
     */
    @Test
    void theEstimateAndUnblockNameOnlyJobsTheCallerMayList() {
        JsonNode admins = item(get(ADMIN, API + "/pendingjobs").body(), "head");
        String adminText = admins.path("estimate").toString() + admins.path("unblock");
        assertTrue(adminText.contains("Job team-a/running"), "the admin reads the job named: " + adminText);
        for (JsonNode answer : List.of(item(get(BEA, API + "/namespaces/team-b/pendingjobs").body(), "head"),
                get(BEA, API + "/namespaces/team-b/pendingjobs/head").body(),
                item(get(BEA, API + "/pendingjobs").body(), "head"),
                item(get(BEA, API + "/quotagroups/root.shared/pendingjobs").body(), "head"))) {
            String text = answer.path("estimate").toString() + answer.path("unblock");
            assertFalse(text.contains("team-a") || text.contains("running"), text);
            assertTrue(text.contains("a job in quota group root.shared"), text);
            assertEquals("ESTIMATED", answer.path("estimate").path("state").asText());
        }
    }

    @Test
    void theTableHasAnEtaAsKubectlPrintsTimesOrTheStateAndAWideLateEnd() {
        JsonNode table = call(ADMIN, "GET", API + "/pendingjobs", Map.of(), KUBECTL_ACCEPT, null).body();
        List<String> columns = new ArrayList<>();
        List<Integer> priorities = new ArrayList<>();
        table.path("columnDefinitions").forEach(c -> {
            columns.add(c.path("name").asText());
            priorities.add(c.path("priority").asInt());
        });
        assertEquals(List.of("Name", "Kind", "Quota Group", "Position", "State", "ETA", "Reason", "ETA-Late",
                "Priority", "Request", "Retry At"), columns);
        assertEquals(List.of(0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1), priorities, "ETA-Late with -o wide only");
        Map<String, String> eta = new java.util.TreeMap<>();
        Map<String, String> late = new java.util.TreeMap<>();
        table.path("rows").forEach(r -> {
            eta.put(r.path("cells").get(0).asText(), r.path("cells").get(5).asText());
            late.put(r.path("cells").get(0).asText(), r.path("cells").get(7).asText());
        });
        assertEquals(Map.of("head", "5m", "small", "5m", "huge", "NEVER_FITS"), eta);
        assertEquals("NEVER_FITS", late.get("huge"));
        assertTrue(late.get("head").matches("\\d+(s|m|m\\d+s|h|h\\d+m)"), late.toString());

        // without estimates (kube-queue.estimates.enabled=false): the column is there, empty
        JsonNode off = new VisibilityApi(scheduler, VisibilityEstimatesTest::rbac, null).answer(ADMIN,
                new VisibilityApi.Request("GET", API + "/pendingjobs", Map.of(), KUBECTL_ACCEPT, null)).body();
        off.path("rows").forEach(r -> assertEquals("<none>", r.path("cells").get(5).asText(), r.toString()));
        JsonNode json = new VisibilityApi(scheduler, VisibilityEstimatesTest::rbac, null).answer(ADMIN,
                new VisibilityApi.Request("GET", API + "/namespaces/team-b/pendingjobs/head", Map.of(), null, null))
                .body();
        assertTrue(json.has("estimate") && json.path("estimate").isNull(), json.toString());
        assertTrue(json.has("unblock") && json.path("unblock").isNull(), json.toString());
    }

    @Test
    void kubectlsAgesAreKubectlsWords() {
        assertEquals("0s", Tables.humanDuration(Duration.ofSeconds(-30)));
        assertEquals("45s", Tables.humanDuration(Duration.ofSeconds(45)));
        assertEquals("119s", Tables.humanDuration(Duration.ofSeconds(119)));
        assertEquals("4m30s", Tables.humanDuration(Duration.ofSeconds(270)));
        assertEquals("5m", Tables.humanDuration(Duration.ofMinutes(5)));
        assertEquals("25m", Tables.humanDuration(Duration.ofMinutes(25).plusSeconds(10)));
        assertEquals("3h20m", Tables.humanDuration(Duration.ofMinutes(200)));
        assertEquals("4h", Tables.humanDuration(Duration.ofHours(4)));
        assertEquals("30h", Tables.humanDuration(Duration.ofHours(30)));
        assertEquals("3d4h", Tables.humanDuration(Duration.ofHours(76)));
        assertEquals("20d", Tables.humanDuration(Duration.ofDays(20)));
        assertEquals("2y10d", Tables.humanDuration(Duration.ofDays(740)));
        assertEquals("9y", Tables.humanDuration(Duration.ofDays(9 * 365 + 3)));
    }

    /** root.c gives up 1.5 cpu of max to root.shared: the head and the job behind it no longer wait. */
    private static final String MAX_MOVED = """
            apiVersion: scheduling.sigs.k8s.io/v1beta1
            kind: ElasticQuotaTree
            metadata: {name: elasticquotatree, namespace: kube-system}
            spec:
              root:
                name: root
                max: {cpu: "8"}
                children:
                  - name: root.shared
                    namespaces: [team-a, team-b]
                    max: {cpu: "5500m"}
                  - name: root.c
                    namespaces: [team-c]
                    max: {cpu: "500m"}
            """;

    private static JsonNode find(JsonNode array, String field, String value) {
        return StreamSupport.stream(array.spliterator(), false).filter(j -> j.path(field).asText().equals(value))
                .findFirst().orElseThrow(() -> new AssertionError("no " + value + " in " + array));
    }

    @Test
    void aWhatIfThatMovesMaxToTheSharedGroupStartsItsJobsEarlier() {
        VisibilityApi.Reply reply = call(ADMIN, "POST", API + "/whatifs", Map.of(), null, MAX_MOVED);
        assertEquals(201, reply.status(), reply.body().toString());
        JsonNode answer = reply.body();
        assertEquals("WhatIf", answer.path("kind").asText());
        assertEquals("visibility.kube-queue.io/v1alpha1", answer.path("apiVersion").asText());
        assertEquals(T0.toString(), answer.path("computedAt").asText());
        JsonNode head = find(answer.path("jobs"), "name", "head");
        Set<String> fields = new java.util.TreeSet<>();
        head.fieldNames().forEachRemaining(fields::add);
        assertEquals(new java.util.TreeSet<>(Set.of("kind", "namespace", "name", "group", "position", "eta", "state",
                "groupAfter", "positionAfter", "etaAfter", "stateAfter")), fields, "the read API's fields");
        assertEquals("2026-01-01T00:05:00Z", head.path("eta").asText());
        assertTrue(Instant.parse(head.path("etaAfter").asText()).isBefore(T0.plusSeconds(60)), head.toString());
        JsonNode shared = find(answer.path("groups"), "group", "root.shared");
        assertEquals(2, shared.path("earlier").asInt(), shared.toString());
        assertEquals(0, shared.path("later").asInt());
        assertTrue(shared.path("shiftSeconds").asLong() <= -540, shared.toString());
        assertEquals(4000L, scheduler.tree().node("root.shared").orElseThrow().max().get("cpu"), "nothing written");
    }

    @Test
    void aWhatIfListsOnlyTheCallersJobsButEveryGroup() {
        JsonNode admin = call(ADMIN, "POST", API + "/whatifs", Map.of(), null, MAX_MOVED).body();
        VisibilityApi.Reply alice = call(ALICE, "POST", API + "/whatifs", Map.of(), null, MAX_MOVED);
        assertEquals(201, alice.status(), alice.body().toString());
        List<String> names = new ArrayList<>();
        alice.body().path("jobs").forEach(j -> names.add(j.path("namespace").asText() + "/" + j.path("name").asText()));
        assertEquals(List.of("team-a/small"), names);
        assertEquals(admin.path("groups"), alice.body().path("groups"), "every group's summary");
        assertFalse(alice.body().toString().contains("team-b") || alice.body().toString().contains("head"),
                alice.body().toString());
    }

    @Test
    void aWhatIfWithABadBodyIs400AsAStatus() {
        for (var c : List.of(Map.entry("kind: [unclosed", "not a Kubernetes manifest"),
                Map.entry(MAX_MOVED.replace("max: {cpu: \"5500m\"}", "max: {cpu: \"5500m\"}\n        min: {cpu: \"6\"}"),
                        "root.shared"),
                Map.entry("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "no quota object"))) {
            VisibilityApi.Reply reply = call(ADMIN, "POST", API + "/whatifs", Map.of(), null, c.getKey());
            assertEquals(400, reply.status(), reply.body().toString());
            assertEquals("Status", reply.body().path("kind").asText());
            assertEquals("BadRequest", reply.body().path("reason").asText());
            assertTrue(reply.body().path("message").asText().contains(c.getValue()), reply.body().toString());
        }
        VisibilityApi.Reply yes = call(ADMIN, "POST", API + "/whatifs", Map.of("StrictPriority", List.of("yes")),
                null, MAX_MOVED);
        assertEquals(400, yes.status());
        assertEquals("StrictPriority: invalid value 'yes'; valid values: true, false",
                yes.body().path("message").asText());
        assertEquals(405, get(ADMIN, API + "/whatifs").status(), "create only");
    }

    @Test
    void theSwitchesAloneMayChange() {
        VisibilityApi.Reply reply = call(ADMIN, "POST", API + "/whatifs", Map.of("StrictPriority",
                List.of("false"), "StrictConsistency", List.of("TRUE")), null, null);
        assertEquals(201, reply.status(), reply.body().toString());
        assertEquals("root.shared", find(reply.body().path("jobs"), "name", "head").path("groupAfter").asText());
    }

    @Test
    void anUnauthorisedWhatIfIs403InTheApiServersWords() {
        VisibilityApi.Reply bob = call(BOB, "POST", API + "/whatifs", Map.of(), null, MAX_MOVED);
        assertEquals(403, bob.status());
        assertEquals("Status", bob.body().path("kind").asText());
        assertEquals("Forbidden", bob.body().path("reason").asText());
        assertEquals("whatifs.visibility.kube-queue.io is forbidden: User \"bob\" cannot create resource \"whatifs\""
                + " in API group \"visibility.kube-queue.io\" at the cluster scope", bob.body().path("message").asText());
        VisibilityApi.Reply carol = call(CAROL, "POST", API + "/whatifs", Map.of(), null, MAX_MOVED);
        assertEquals(403, carol.status(), "may create whatifs but sees no quota group: " + carol.body());
        assertTrue(carol.body().path("message").asText().startsWith("whatifs.visibility.kube-queue.io is forbidden:"
                + " User \"carol\" may see no quota group"), carol.body().toString());
    }

    @Test
    void withEstimatesOffAWhatIfIsNotFound() {
        VisibilityApi off = new VisibilityApi(scheduler, VisibilityEstimatesTest::rbac, null, null,
                new WhatIfs(scheduler, scheduler, client, false, false, false), Clock.systemUTC());
        VisibilityApi.Reply reply = off.answer(ADMIN, new VisibilityApi.Request("POST", API + "/whatifs", Map.of(),
                null, MAX_MOVED));
        assertEquals(404, reply.status());
        assertTrue(reply.body().path("message").asText().contains("kube-queue.estimates.enabled=false"));
    }
}
