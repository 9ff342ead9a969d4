package io.kubequeue.visibility;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

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
 * The visibility API against what a careless or hostile tenant sends through the API server (issue 29): paths with
 * escapes, dots, empty and very long segments; any method; field selectors, label selectors, {@code kind},
 * {@code watch} and {@code includeObject} of any shape; any {@code Accept}. Whatever comes, the answer is a
 * {@code Status} or a document with a status code the API documents, never an exception; and a tenant who may list
 * pendingjobs only in {@code team-a} never reads the name of another team's job in any answer, but for a name she
 * sent herself (echoed by a 403 or a 404). The tree is shaped
 * like the seed's: groups with several resources in min and max, one over its min in cpu and under it in memory.
 */
class HostileVisibilityCallsPropertiesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Set<Integer> DOCUMENTED = Set.of(200, 201, 400, 403, 404, 405, 503);
    /** Names of the jobs of namespaces alice may not list: none may appear in what she reads. */
    private static final List<String> SECRETS = List.of("b-secret-head", "c-secret-waiting");
    private static final Caller ALICE = new Caller("alice", List.of("system:authenticated"), Map.of());

    private static final VisibilityApi API = api();

    private static VisibilityApi api() {
        Scheduler s = new Scheduler(new SchedulerSettings(SchedulingPolicy.BLOCKING_QUEUE, Duration.ofSeconds(1),
                Duration.ofSeconds(20)), Clock.fixed(T0, ZoneOffset.UTC));
        s.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L, "memory", 32L << 30,
                        "nvidia.com/gpu", 4L)),
                new QuotaNode("root.shared", "root", List.of("team-a", "team-b"),
                        Resources.of("cpu", 1000L, "memory", 8L << 30, "nvidia.com/gpu", 1L),
                        Resources.of("cpu", 4000L, "memory", 16L << 30, "nvidia.com/gpu", 2L)),
                new QuotaNode("root.c", "root", List.of("team-c"), Resources.of("cpu", 1000L, "memory", 4L << 30),
                        Resources.of("cpu", 2000L, "memory", 8L << 30)))));
        // root.shared over its min in cpu (3 of 1) and under it in memory (1Gi of 8Gi)
        s.observe(job("team-a", "a-running", Resources.of("cpu", 3000L, "memory", 1L << 30), 0));
        s.schedule();
        s.observe(job("team-b", "b-secret-head", Resources.of("cpu", 2000L, "nvidia.com/gpu", 1L), 1));
        s.observe(job("team-a", "a-small", Resources.of("cpu", 500L), 2));
        s.observe(job("team-c", "c-secret-waiting", Resources.of("cpu", 3000L, "memory", 1L << 30), 3));
        s.schedule();
        return new VisibilityApi(s, q -> q.caller().user().equals("alice") && q.resource().equals("pendingjobs")
                && q.namespace().equals("team-a") && Set.of("get", "list").contains(q.verb()), null);
    }

    private static JobObservation job(String namespace, String name, Resources request, int second) {
        return new JobObservation(new JobKey("Job", namespace, name), null, JobObservation.Phase.QUEUED, request,
                JobPriority.of(0), T0.plusSeconds(second), null, true, null);
    }

    @Property(tries = 1500)
    void anyCallIsAnsweredAsDocumentedAndNamesNoOtherTeamsJob(@ForAll("methods") String method,
                                                             @ForAll("paths") String path,
                                                             @ForAll("queries") Map<String, List<String>> query,
                                                             @ForAll("accepts") String accept) {
        VisibilityApi.Reply reply = API.answer(ALICE, new VisibilityApi.Request(method, path, query, accept, null));
        assertTrue(DOCUMENTED.contains(reply.status()), reply.status() + " " + reply.body());
        String body = reply.body().toString();
        for (String secret : SECRETS) { // a name she sent herself may come back in a 403 or 404
            if (!path.contains(secret) && !query.toString().contains(secret)) {
                assertFalse(body.contains(secret), path + " " + query + " told alice " + secret + ": " + body);
            }
        }
        if (reply.status() >= 400) {
            assertTrue(reply.body().path("kind").asText().equals("Status"), body);
        }
    }

    @Provide
    Arbitrary<String> methods() {
        return Arbitraries.oneOf(Arbitraries.of("GET", "GET", "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"),
                Arbitraries.strings().ofMaxLength(12));
    }

    @Provide
    Arbitrary<String> paths() {
        Arbitrary<String> segment = Arbitraries.oneOf(
                Arbitraries.of("namespaces", "team-a", "team-b", "team-c", "pendingjobs", "quotagroups", "dryruns",
                        "root", "root.shared", "root.c", "a-small", "b-secret-head", "c-secret-waiting", "..", ".",
                        "", "%2F", "team-a%2F..%2Fteam-b", "%00", "%", "%zz", "team-b%00", "*", "-", "🙂"),
                Arbitraries.strings().ofMaxLength(30),
                Arbitraries.strings().withChars('a', '%', '/', '.').ofMinLength(1000).ofMaxLength(5000));
        Arbitrary<String> rest = segment.list().ofMaxSize(6).map(l -> String.join("/", l));
        return Combinators.combine(Arbitraries.of(VisibilityApi.PREFIX + "/", VisibilityApi.PREFIX + "//",
                        "/apis/", "/apis/visibility.kube-queue.io/", "/", ""), rest, Arbitraries.of("", "/"))
                .as((prefix, r, end) -> prefix + r + end);
    }

    @Provide
    Arbitrary<Map<String, List<String>>> queries() {
        Arbitrary<String> key = Arbitraries.oneOf(Arbitraries.of("fieldSelector", "labelSelector", "kind", "watch",
                "includeObject", "limit", "continue"), Arbitraries.strings().ofMaxLength(10));
        Arbitrary<String> selector = Arbitraries.oneOf(
                Arbitraries.of("quotaGroup=root.shared", "metadata.namespace=team-b", "metadata.name=b-secret-head",
                        "state==Held", "job.kind=Job,quotaGroup=root.c", "state!=Held", "=", "==", ",", "quotaGroup",
                        "quotaGroup=", "spec.x=1", "metadata.namespace==team-b,metadata.namespace==team-a"),
                Arbitraries.strings().withChars('=', '!', ',', 'a', '.', ' ').ofMaxLength(60),
                Arbitraries.strings().ofMinLength(900).ofMaxLength(3000));
        Arbitrary<String> value = Arbitraries.oneOf(selector, Arbitraries.of("true", "1", "Object", "None", "Metadata",
                "TFJob", "job", ""));
        return Arbitraries.maps(key, value.list().ofMinSize(1).ofMaxSize(3)).ofMaxSize(4);
    }

    @Provide
    Arbitrary<String> accepts() {
        return Arbitraries.oneOf(Arbitraries.of("application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
                        "application/json;as=Table;v=v1beta1;g=meta.k8s.io", "application/json", "*/*", "",
                        ";;;,,,as=Table", "application/json;as=Table;v=v1;g=meta.k8s.io;v=v2"),
                Arbitraries.strings().withChars(';', ',', '=', 'a', 'T', '/').ofMaxLength(80),
                Arbitraries.strings().ofMinLength(4000).ofMaxLength(9000)).injectNull(0.1);
    }

    private static final io.kubequeue.serving.ServingCertificate PROXY = io.kubequeue.serving.ServingCertificate
            .selfSigned(List.of("front-proxy-client"), null, Instant.now());
    private static final FrontProxy FRONT_PROXY = FrontProxy.of(Map.of(
            "requestheader-client-ca-file", PROXY.caPem(), "requestheader-allowed-names", "[\"front-proxy-client\"]",
            "requestheader-username-headers", "[\"X-Remote-User\"]",
            "requestheader-group-headers", "[\"X-Remote-Group\"]",
            "requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]"));

    /**
     * Whatever headers come with the front proxy's certificate (escapes good and bad, empty values, floods of
     * groups and extras), the caller is read or refused with a reason, never an exception, and is who the first user
     * header names.
     */
    @Property(tries = 500)
    void anyHeadersNameTheCallerOrAreRefused(@ForAll("headers") Map<String, List<String>> sent) {
        java.util.TreeMap<String, List<String>> headers = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        sent.forEach((k, v) -> headers.merge(k, v, (a, b) -> java.util.stream.Stream.concat(a.stream(), b.stream())
                .toList()));
        FrontProxy.Authenticated who = FRONT_PROXY.authenticate(new java.util.ArrayList<>(PROXY.chain()),
                name -> headers.getOrDefault(name, List.of()), headers.keySet());
        List<String> users = headers.getOrDefault("X-Remote-User", List.of());
        if (who.caller().isPresent()) {
            assertTrue(who.caller().get().user().equals(users.get(0)), who.caller().toString());
            assertTrue(who.caller().get().groups().size() <= FrontProxy.MAX_VALUES);
        } else {
            assertTrue(who.why() != null && !who.why().isEmpty());
        }
    }

    @Provide
    Arbitrary<Map<String, List<String>>> headers() {
        Arbitrary<String> name = Arbitraries.oneOf(Arbitraries.of("X-Remote-User", "x-remote-user", "X-Remote-Group",
                        "x-remote-group"),
                Arbitraries.strings().withChars('a', 'B', '%', '+', '2', 'F', '-', '.').ofMaxLength(12)
                        .map(k -> "X-Remote-Extra-" + k),
                Arbitraries.strings().alpha().ofMaxLength(8));
        Arbitrary<String> value = Arbitraries.oneOf(Arbitraries.of("alice", "", " ", "system:masters"),
                Arbitraries.strings().ofMaxLength(40));
        return Arbitraries.maps(name, value.list().ofMinSize(1).ofMaxSize(300)).ofMaxSize(12);
    }
}
