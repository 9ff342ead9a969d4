package io.kubequeue.visibility;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * The visibility API's answers (docs/visibility.md) from a real core, with an authoriser that answers as RBAC would
 * for four users: alice may list and get pendingjobs in team-a, admin may do everything cluster-wide, bob nothing,
 * ops may get every group's pendingjobs subresource only. A blocking queue, so that a reason names another job.
 */
class VisibilityApiTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String KUBECTL_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,"
            + "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    private static final Caller ALICE = new Caller("alice", List.of("system:authenticated"), Map.of());
    private static final Caller ADMIN = new Caller("admin", List.of("system:masters"), Map.of());
    private static final Caller BOB = new Caller("bob", List.of(), Map.of());
    private static final Caller OPS = new Caller("ops", List.of(), Map.of());

    private final List<VisibilityAccess.Question> asked = new ArrayList<>();
    private Scheduler scheduler;
    private VisibilityApi api;

    /** RBAC as the test's users have it. */
    private boolean rbac(VisibilityAccess.Question q) {
        asked.add(q);
        return switch (q.caller().user()) {
            case "admin" -> true;
            case "alice" -> q.resource().equals("pendingjobs") && q.namespace().equals("team-a")
                    && Set.of("get", "list").contains(q.verb());
            case "ops" -> q.resource().equals("quotagroups") && q.subresource().equals("pendingjobs")
                    && q.verb().equals("get");
            case "dave" -> q.resource().equals("pendingjobs") && q.namespace().equals("team-d")
                    && Set.of("get", "list").contains(q.verb());
            default -> false;
        };
    }

    @BeforeEach
    void queues() {
        scheduler = new Scheduler(new SchedulerSettings(SchedulingPolicy.BLOCKING_QUEUE, Duration.ofSeconds(1),
                Duration.ofSeconds(20)), java.time.Clock.fixed(T0, java.time.ZoneOffset.UTC));
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("root.shared", "root", List.of("team-a", "team-b"), Resources.of("cpu", 1000L),
                        Resources.of("cpu", 4000L, "memory", 8L << 30)),
                new QuotaNode("root.c", "root", List.of("team-c"), null, Resources.of("cpu", 2000L)))));
        scheduler.observe(job("team-a", "running", 3000, 0));
        scheduler.schedule();
        scheduler.observe(job("team-b", "head", 2000, 1));
        scheduler.observe(job("team-a", "small", 500, 2));
        scheduler.observe(job("team-c", "huge", 3000, 3));
        scheduler.schedule();
        api = new VisibilityApi(scheduler, this::rbac, null);
    }

    private static JobObservation job(String namespace, String name, long millicores, int second) {
        return new JobObservation(new JobKey("Job", namespace, name), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", millicores), JobPriority.of(0), T0.plusSeconds(second), null, true, null);
    }

    private VisibilityApi.Reply get(Caller caller, String path) {
        return call(caller, "GET", path, Map.of(), null);
    }

    private VisibilityApi.Reply call(Caller caller, String method, String path, Map<String, List<String>> query,
                                     String accept) {
        return api.answer(caller, new VisibilityApi.Request(method, path, query, accept, null));
    }

    private static List<String> names(JsonNode list) {
        return StreamSupport.stream(list.path("items").spliterator(), false)
                .map(i -> i.path("metadata").path("namespace").asText() + "/" + i.path("metadata").path("name").asText())
                .toList();
    }

    @Test
    void discoveryListsTheFiveResourcesWithTheirScopeAndVerbs() {
        JsonNode list = get(BOB, "/apis/visibility.kube-queue.io/v1alpha1").body();
        assertEquals("APIResourceList", list.path("kind").asText());
        assertEquals("visibility.kube-queue.io/v1alpha1", list.path("groupVersion").asText());
        Map<String, String> byName = new java.util.TreeMap<>();
        list.path("resources").forEach(r -> byName.put(r.path("name").asText(),
                r.path("namespaced").asBoolean() + " " + r.path("verbs")));
        assertEquals(Map.of("pendingjobs", "true [\"get\",\"list\"]", "quotagroups", "false [\"get\",\"list\"]",
                "quotagroups/pendingjobs", "false [\"get\"]", "dryruns", "true [\"create\"]", "whatifs",
                "false [\"create\"]"), byName);
        assertEquals("visibility.kube-queue.io", get(BOB, "/apis").body().path("groups").get(0).path("name").asText());
        assertEquals("v1alpha1", get(BOB, "/apis/visibility.kube-queue.io").body().path("preferredVersion")
                .path("version").asText());
        assertTrue(asked.isEmpty(), "discovery asks no authoriser: any authenticated caller reads it");
    }

    @Test
    void aNamespacesPendingJobsCarryTheirPlaceStateAndReason() {
        VisibilityApi.Reply reply = get(ALICE, "/apis/visibility.kube-queue.io/v1alpha1/namespaces/team-a/pendingjobs");
        assertEquals(200, reply.status());
        JsonNode list = reply.body();
        assertEquals("PendingJobList", list.path("kind").asText());
        assertEquals(List.of("team-a/small"), names(list), "team-a's pending job only: not the admitted one");
        JsonNode small = list.path("items").get(0);
        assertEquals("visibility.kube-queue.io/v1alpha1", small.path("apiVersion").asText());
        assertEquals("Job", small.path("job").path("kind").asText());
        assertEquals("root.shared", small.path("quotaGroup").asText());
        assertEquals(2, small.path("position").asInt(), "behind team-b's head, which alice cannot see");
        assertEquals("Active", small.path("state").asText());
        assertEquals("500m", small.path("request").path("cpu").asText());
        assertEquals("blocking queue: waits behind the head of quota group root.shared, a job in quota group root.shared; tried in the"
                + " next cycle", small.path("reason").asText(), "team-b's job is not named to alice");
        assertTrue(get(ADMIN, "/apis/visibility.kube-queue.io/v1alpha1/namespaces/team-a/pendingjobs").body()
                .path("items").get(0).path("reason").asText().contains("Job team-b/head"), "admin may see it named");
    }

    @Test
    void anotherNamespaceIsForbiddenInKubectlsWords() {
        VisibilityApi.Reply reply = get(ALICE, "/apis/visibility.kube-queue.io/v1alpha1/namespaces/team-b/pendingjobs");
        assertEquals(403, reply.status());
        assertEquals("Status", reply.body().path("kind").asText());
        assertEquals("Forbidden", reply.body().path("reason").asText());
        assertEquals("pendingjobs.visibility.kube-queue.io is forbidden: User \"alice\" cannot list resource"
                + " \"pendingjobs\" in API group \"visibility.kube-queue.io\" in the namespace \"team-b\"",
                reply.body().path("message").asText());
    }

    @Test
    void everyNamespaceShowsWhatTheCallerMayListOrIsForbidden() {
        String all = "/apis/visibility.kube-queue.io/v1alpha1/pendingjobs";
        assertEquals(List.of("team-c/huge", "team-b/head", "team-a/small"), names(get(ADMIN, all).body()),
                "by group, then position");
        assertEquals(List.of("team-a/small"), names(get(ALICE, all).body()));
        assertEquals(403, get(BOB, all).status());
    }

    /**
     * Every namespace, for a caller without the cluster-wide right: what they may list among the namespaces a quota
     * group lists, whether or not another team has a job pending. Else what is pending elsewhere decides between an
     * empty list and a 403, and the answer tells a caller with no right at all whether any team queues anything.
     */
    @Test
    void everyNamespaceAnswersTheSameWhateverOtherTeamsHavePending() {
        String all = "/apis/visibility.kube-queue.io/v1alpha1/pendingjobs";
        Caller dave = new Caller("dave", List.of(), Map.of());
        QuotaTree withTeamD = new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("root.shared", "root", List.of("team-a", "team-b"), Resources.of("cpu", 1000L),
                        Resources.of("cpu", 4000L, "memory", 8L << 30)),
                new QuotaNode("root.c", "root", List.of("team-c"), null, Resources.of("cpu", 2000L)),
                new QuotaNode("root.d", "root", List.of("team-d"), null, Resources.of("cpu", 2000L))));
        scheduler.replaceTree(withTeamD);
        VisibilityApi.Reply othersPending = get(dave, all);
        assertEquals(200, othersPending.status(), othersPending.body().toString());
        assertEquals(List.of(), names(othersPending.body()), "team-d has nothing pending; team-b's job is not hers");

        Scheduler idle = new Scheduler(SchedulerSettings.defaults(), java.time.Clock.fixed(T0, java.time.ZoneOffset.UTC));
        idle.replaceTree(withTeamD);
        VisibilityApi quiet = new VisibilityApi(idle, this::rbac, null);
        assertEquals(200, quiet.answer(dave, new VisibilityApi.Request("GET", all, Map.of(), null, null)).status());
        assertEquals(403, quiet.answer(BOB, new VisibilityApi.Request("GET", all, Map.of(), null, null)).status(),
                "no right anywhere: 403 when nothing is pending either");
    }

    @Test
    void fieldSelectorsPickOneGroupStateOrKindAndRefuseWhatTheyCannotRead() {
        String all = "/apis/visibility.kube-queue.io/v1alpha1/pendingjobs";
        assertEquals(List.of("team-b/head", "team-a/small"), names(call(ADMIN, "GET", all,
                Map.of("fieldSelector", List.of("quotaGroup=root.shared")), null).body()));
        assertEquals(List.of("team-c/huge"), names(call(ADMIN, "GET", all,
                Map.of("fieldSelector", List.of("state==Held,job.kind=Job")), null).body()));
        assertEquals(List.of(), names(call(ADMIN, "GET", all,
                Map.of("fieldSelector", List.of("metadata.name=head,metadata.name=small")), null).body()),
                "two values for one field match nothing");
        assertEquals(List.of(), names(call(ADMIN, "GET", all, Map.of("labelSelector", List.of("app=x")), null).body()));
        VisibilityApi.Reply unknown = call(ADMIN, "GET", all, Map.of("fieldSelector", List.of("spec.x=1")), null);
        assertEquals(400, unknown.status());
        assertTrue(unknown.body().path("message").asText().contains("job.kind, metadata.name, metadata.namespace,"
                + " quotaGroup, state"), unknown.body().toString());
        assertEquals(400, call(ADMIN, "GET", all, Map.of("fieldSelector", List.of("state!=Held")), null).status());
        assertEquals(400, call(ADMIN, "GET", all, Map.of("fieldSelector", List.of("x".repeat(2000))), null).status());
    }

    @Test
    void kubectlGetsATableWithWideColumnsAndEachRowsMetadata() {
        JsonNode table = call(ALICE, "GET", "/apis/visibility.kube-queue.io/v1alpha1/namespaces/team-a/pendingjobs",
                Map.of(), KUBECTL_ACCEPT).body();
        assertEquals("Table", table.path("kind").asText());
        assertEquals("meta.k8s.io/v1", table.path("apiVersion").asText());
        List<String> columns = new ArrayList<>();
        List<Integer> priorities = new ArrayList<>();
        table.path("columnDefinitions").forEach(c -> {
            columns.add(c.path("name").asText());
            priorities.add(c.path("priority").asInt());
        });
        assertEquals(List.of("Name", "Kind", "Quota Group", "Position", "State", "ETA", "Reason", "ETA-Late",
                "Priority", "Request", "Retry At"), columns);
        assertEquals(List.of(0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1), priorities, "the last four with -o wide only");
        JsonNode row = table.path("rows").get(0);
        assertEquals("[\"small\",\"Job\",\"root.shared\",2,\"Active\",\"<none>\",\"blocking queue: waits behind the"
                + " head of quota group root.shared, a job in quota group root.shared; tried in the next cycle\","
                + "\"<none>\",0,\"cpu=500m\",\"<none>\"]",
                row.path("cells").toString());
        assertEquals("PartialObjectMetadata", row.path("object").path("kind").asText());
        assertEquals("team-a", row.path("object").path("metadata").path("namespace").asText(), "-A reads it here");

        JsonNode groups = call(ADMIN, "GET", "/apis/visibility.kube-queue.io/v1alpha1/quotagroups",
                Map.of("includeObject", List.of("Object")), KUBECTL_ACCEPT).body();
        JsonNode shared = StreamSupport.stream(groups.path("rows").spliterator(), false)
                .filter(r -> r.path("cells").get(0).asText().equals("root.shared")).findFirst().orElseThrow();
        assertEquals("[\"root.shared\",\"root\",2,1,\"3/4\",\"0/8Gi\",\"BLOCKING_QUEUE\",\"cpu=1\","
                + "\"cpu=4,memory=8Gi\",\"cpu=3,kube-queue/max-jobs=1\"]", shared.path("cells").toString());
        assertEquals("QuotaGroup", shared.path("object").path("kind").asText(), "includeObject=Object: the whole object");
        assertFalse(call(ADMIN, "GET", "/apis/visibility.kube-queue.io/v1alpha1/quotagroups", Map.of(),
                "application/json").body().path("kind").asText().equals("Table"), "plain JSON when asked for");
    }

    @Test
    void aPendingJobByNameAndWhyAnAdmittedOneIsNotFound() {
        String ns = "/apis/visibility.kube-queue.io/v1alpha1/namespaces/team-a/pendingjobs/";
        VisibilityApi.Reply small = get(ALICE, ns + "small");
        assertEquals(200, small.status());
        assertEquals("PendingJob", small.body().path("kind").asText());
        VisibilityApi.Reply running = get(ALICE, ns + "running");
        assertEquals(404, running.status());
        assertTrue(running.body().path("message").asText().contains("is not pending: admitted into quota group"
                + " root.shared"), running.body().toString());
        assertEquals(404, get(ALICE, ns + "nobody").status());
        assertEquals(404, call(ALICE, "GET", ns + "small", Map.of("kind", List.of("TFJob")), null).status(),
                "?kind= picks the kind");
        assertEquals(200, call(ALICE, "GET", ns + "small", Map.of("kind", List.of("job")), null).status());
        assertEquals(403, get(BOB, ns + "small").status());
    }

    @Test
    void quotaGroupsShowEveryGroupToAnAdminAndATenantTheirOwnWithItsAncestors() {
        String groups = "/apis/visibility.kube-queue.io/v1alpha1/quotagroups";
        assertEquals(List.of("root", "root.c", "root.shared"), groupNames(get(ADMIN, groups).body()));
        assertEquals(List.of("root", "root.shared"), groupNames(get(ALICE, groups).body()),
                "the group of team-a and its root, not root.c");
        assertEquals(403, get(BOB, groups).status());
        JsonNode shared = get(ALICE, groups + "/root.shared").body();
        assertEquals("QuotaGroup", shared.path("kind").asText());
        assertEquals("[\"team-a\",\"team-b\"]", shared.path("namespaces").toString());
        assertEquals("4", shared.path("max").path("cpu").asText());
        assertEquals("3", shared.path("used").path("cpu").asText());
        assertEquals(2, shared.path("pending").asInt());
        assertEquals(403, get(ALICE, groups + "/root.c").status());
        assertEquals(404, get(ADMIN, groups + "/root.none").status());
    }

    private static List<String> groupNames(JsonNode list) {
        return StreamSupport.stream(list.path("items").spliterator(), false)
                .map(i -> i.path("metadata").path("name").asText()).toList();
    }

    @Test
    void aGroupsPendingJobsAreEveryJobWithTheSubresourceOrTheCallersOwn() {
        String path = "/apis/visibility.kube-queue.io/v1alpha1/quotagroups/root.shared/pendingjobs";
        assertEquals(List.of("team-b/head", "team-a/small"), names(get(OPS, path).body()), "queue order");
        assertEquals(List.of("team-a/small"), names(get(ALICE, path).body()));
        assertEquals(403, get(BOB, path).status());
        assertEquals(403, get(ALICE, "/apis/visibility.kube-queue.io/v1alpha1/quotagroups/root.c/pendingjobs")
                .status());
        assertEquals(404, get(OPS, "/apis/visibility.kube-queue.io/v1alpha1/quotagroups/root.none/pendingjobs")
                .status());
    }

    @Test
    void whatIsNotServedIsRefusedAsTheApiServerRefusesIt() {
        String list = "/apis/visibility.kube-queue.io/v1alpha1/namespaces/team-a/pendingjobs";
        assertEquals(405, call(ADMIN, "GET", list, Map.of("watch", List.of("true")), null).status());
        assertEquals(405, call(ADMIN, "POST", list, Map.of(), null).status());
        assertEquals(405, call(ADMIN, "DELETE", list + "/small", Map.of(), null).status());
        assertEquals(404, get(ADMIN, "/apis/visibility.kube-queue.io/v1alpha1/widgets").status());
        assertEquals(404, get(ADMIN, "/apis/other.io/v1").status());
        assertEquals(404, get(ADMIN, "/apis/visibility.kube-queue.io/v1alpha1/namespaces/team-a/dryruns").status(),
                "no dry run wired here");
        assertEquals(404, call(ADMIN, "POST", "/apis/visibility.kube-queue.io/v1alpha1/whatifs", Map.of(), null)
                .status(), "no what-if wired here");
    }

    @Test
    void anAuthoriserThatCannotAnswerIs503() {
        VisibilityApi failing = new VisibilityApi(scheduler, q -> {
            throw new VisibilityAccess.Unanswered("the API server did not answer a SubjectAccessReview; try again");
        }, null);
        VisibilityApi.Reply reply = failing.answer(ALICE, new VisibilityApi.Request("GET",
                "/apis/visibility.kube-queue.io/v1alpha1/namespaces/team-a/pendingjobs", Map.of(), null, null));
        assertEquals(503, reply.status());
        assertEquals("ServiceUnavailable", reply.body().path("reason").asText());
    }

    @Test
    void theTableVersionFollowsAccept() {
        assertEquals("v1", Tables.version(KUBECTL_ACCEPT));
        assertEquals("v1beta1", Tables.version("application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json"));
        assertEquals(null, Tables.version("application/json, application/json;as=Table;v=v1;g=meta.k8s.io"),
                "JSON first: JSON");
        assertEquals(null, Tables.version("application/json;as=Table;v=v2;g=meta.k8s.io"));
        assertEquals(null, Tables.version(null));
    }

    @Test
    void routesNameTheResourceNeverTheObject() {
        assertEquals("discovery", VisibilityApi.route("/apis/visibility.kube-queue.io/v1alpha1/"));
        assertEquals("pendingjobs", VisibilityApi.route("/apis/visibility.kube-queue.io/v1alpha1/namespaces/a/pendingjobs/x"));
        assertEquals("pendingjobs", VisibilityApi.route("/apis/visibility.kube-queue.io/v1alpha1/pendingjobs"));
        assertEquals("quotagroups", VisibilityApi.route("/apis/visibility.kube-queue.io/v1alpha1/quotagroups/root"));
        assertEquals("quotagroup_pendingjobs",
                VisibilityApi.route("/apis/visibility.kube-queue.io/v1alpha1/quotagroups/root/pendingjobs"));
        assertEquals("dryruns", VisibilityApi.route("/apis/visibility.kube-queue.io/v1alpha1/namespaces/a/dryruns"));
        assertEquals("whatifs", VisibilityApi.route("/apis/visibility.kube-queue.io/v1alpha1/whatifs"));
        assertEquals("other", VisibilityApi.route("/apis/visibility.kube-queue.io/v1alpha1/whatifs/x"));
        assertEquals("other", VisibilityApi.route("/apis/visibility.kube-queue.io/v1alpha1/namespaces/a/widgets"));
        assertEquals("other", VisibilityApi.route("/apis/other.io/v1"));
    }
}
