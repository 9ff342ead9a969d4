package io.kubequeue.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.leader.Leadership;
import io.kubequeue.leader.ReadApiLeaderAddress;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.ManagementPort;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * A follower's read API forwards to the leader the Lease names (issue 25, one answer per cluster). Another replica
 * holds the Lease for the whole test; its read API is played by a small HTTP server here, which records what
 * reaches it and answers with a status, headers and body of its own: the follower must pass the call on whole
 * (method, path, query, body, the caller's tokens, a hop header) and the answer back whole, and must answer 503,
 * never its own view, when no leader can be reached.
 */
@QuarkusTest
@TestProfile(ReadApiForwardingTest.Follower.class)
@WithStrictApiServer(setup = ReadApiForwardingTest.AnotherReplicaLeads.class)
class ReadApiForwardingTest {

    private static final String OTHER = "other-replica";
    private static final String LEASE_NAMESPACE = "kube-queue";
    private static final String LEASE = "kube-queue-leader";
    /** The other replica's read API, started before kube-queue (the Lease must name it from the start). */
    static volatile HttpServer leaderApi;
    static final List<Recorded> RECEIVED = new CopyOnWriteArrayList<>();

    /** One call the played leader received. */
    record Recorded(String method, String uri, Map<String, List<String>> headers, String body) {
        String header(String name) {
            List<String> values = headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(Map.Entry::getValue).findFirst().orElse(null);
            return values == null ? null : String.join(",", values);
        }
    }

    public static class Follower implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // the read API's token check is the leader's business: this follower forwards before any check
            return Map.of("kube-queue.leader-election.identity", "replica-under-test",
                    "kube-queue.leader-election.retry-period", "300ms",
                    "kube-queue.leader-election.renew-deadline", "2s",
                    "kube-queue.leader-election.lease-duration", "3s",
                    // a follower holds a call this long for a leader to appear before it answers 503 (default 5 s)
                    "kube-queue.read-api.forward-wait", "300ms");
        }
    }

    /** Before this replica starts: the other replica holds the Lease for 10 minutes and has published its address. */
    public static class AnotherReplicaLeads implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            startLeaderApi();
            KubernetesClient client = server.createClient();
            client.leases().inNamespace(LEASE_NAMESPACE).resource(new LeaseBuilder().withNewMetadata()
                    .withName(LEASE).withNamespace(LEASE_NAMESPACE)
                    .withAnnotations(Map.of(ReadApiLeaderAddress.HOLDER, OTHER, ReadApiLeaderAddress.URL, leaderUrl()))
                    .endMetadata().withNewSpec()
                    .withHolderIdentity(OTHER).withLeaseDurationSeconds(600)
                    .withAcquireTime(ZonedDateTime.now()).withRenewTime(ZonedDateTime.now()).withLeaseTransitions(0)
                    .endSpec().build()).create();
            new Cluster(client).apply("/seed/elasticquotatree.yaml");
        }
    }

    static void startLeaderApi() {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            s.createContext("/", exchange -> {
                byte[] body = exchange.getRequestBody().readAllBytes();
                RECEIVED.add(new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
                        new HashMap<>(exchange.getRequestHeaders()), new String(body, StandardCharsets.UTF_8)));
                byte[] answer = "{\"error\":\"the leader's own words\"}".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.getResponseHeaders().add("X-Kube-Queue-Answered-By", OTHER);
                exchange.getResponseHeaders().add("Www-Authenticate", "Bearer");
                exchange.getResponseHeaders().add("Keep-Alive", "timeout=5"); // about one hop: not passed on
                exchange.sendResponseHeaders(403, answer.length);
                exchange.getResponseBody().write(answer);
                exchange.close();
            });
            s.start();
            leaderApi = s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String leaderUrl() {
        return "http://127.0.0.1:" + leaderApi.getAddress().getPort();
    }

    @Inject
    KubernetesClient client;

    @Inject
    Leadership leadership;

    @BeforeEach
    void clear() {
        RECEIVED.clear();
    }

    @AfterEach
    void publishTheLeaderAgain() {
        setAnnotations(Map.of(ReadApiLeaderAddress.HOLDER, OTHER, ReadApiLeaderAddress.URL, leaderUrl()));
    }

    @Test
    void aCallIsPassedOnWholeAndTheLeadersAnswerComesBackWhole() {
        assertTrue(!leadership.isLeader(), "this replica follows");
        Response answer = given().urlEncodingEnabled(false).header("Authorization", "Bearer caller-token")
                .header("X-Kube-Queue-Authorization", "Bearer proxied-token")
                .header("Cookie", "session=not-for-the-leader")
                .when().get("/api/v1/jobs/team-a/some%20job?kind=TFJob&x=1");
        assertEquals(403, answer.statusCode(), answer.asString());
        assertEquals("{\"error\":\"the leader's own words\"}", answer.asString());
        assertEquals(OTHER, answer.header("X-Kube-Queue-Answered-By"));
        assertEquals("Bearer", answer.header("WWW-Authenticate"));
        assertEquals(null, answer.header("Keep-Alive"), "a hop-by-hop header stays on its hop");

        assertEquals(1, RECEIVED.size(), RECEIVED.toString());
        Recorded call = RECEIVED.get(0);
        assertEquals("GET", call.method());
        assertEquals("/api/v1/jobs/team-a/some%20job?kind=TFJob&x=1", call.uri());
        assertEquals("Bearer caller-token", call.header("Authorization"));
        assertEquals("Bearer proxied-token", call.header("X-Kube-Queue-Authorization"));
        assertEquals("replica-under-test", call.header(ReadApiForwarding.FORWARDED_BY));
        assertEquals(null, call.header("Cookie"), "only the headers the read API reads are passed on");
    }

    @Test
    void aDryRunsBodyIsPassedOnAsSent() {
        String manifest = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: would-it-fit\n" + "#".repeat(100_000) + "\n";
        given().contentType("application/yaml").body(manifest.getBytes(StandardCharsets.UTF_8)).when().post("/api/v1/dry-run").then().statusCode(403);
        assertEquals(1, RECEIVED.size());
        Recorded call = RECEIVED.get(0);
        assertEquals("POST", call.method());
        assertEquals("/api/v1/dry-run", call.uri());
        assertEquals(manifest, call.body());
        assertTrue(call.header("Content-Type").startsWith("application/yaml"), call.header("Content-Type"));
    }

    @Test
    void aForwardedCallIsNeverForwardedAgain() {
        given().header(ReadApiForwarding.FORWARDED_BY, "some-replica").when().get("/api/v1/queues").then()
                .statusCode(503).header("Retry-After", "1")
                .body("error", containsString("does not lead"));
        assertEquals(List.of(), RECEIVED, "a replica that does not lead answers a forwarded call itself: 503");
    }

    @Test
    void withoutAPublishedLeaderTheAnswerIs503NeverTheFollowersOwn() {
        // the holder has not published yet (or an address from an earlier term names another replica)
        setAnnotations(Map.of(ReadApiLeaderAddress.HOLDER, "earlier-leader", ReadApiLeaderAddress.URL, leaderUrl()));
        awaitUnavailable("other-replica holds Lease kube-queue/kube-queue-leader but has not published");
        setAnnotations(Map.of());
        awaitUnavailable("has not published");
        // an address that is not a plain http(s) host and port is not used: a token must not go there (the other
        // forms are in ReadApiLeaderAddressTest)
        setAnnotations(Map.of(ReadApiLeaderAddress.HOLDER, OTHER, ReadApiLeaderAddress.URL,
                "http://user:pw@127.0.0.1:" + leaderApi.getAddress().getPort() + "/elsewhere"));
        awaitUnavailable("holds no valid read API address");
        assertEquals(List.of(), RECEIVED, "nothing reached any address");
    }

    @Test
    void anUnreachableLeaderIs503() {
        setAnnotations(Map.of(ReadApiLeaderAddress.HOLDER, OTHER, ReadApiLeaderAddress.URL,
                "http://127.0.0.1:" + closedPort()));
        awaitUnavailable("did not take the connection");
    }

    @Test
    void onlyTheReadApiIsForwardedAndMetricsStayThisReplicas() {
        given().when().get("/api/v10/queues").then().statusCode(404);
        given().when().get("/apiv1").then().statusCode(404);
        assertEquals(List.of(), RECEIVED);
        String metrics = ManagementPort.given().get("/q/metrics").asString();
        assertTrue(metrics.contains("kube_queue_replica{replica_role=\"follower\"} 1.0"), metrics);
        ManagementPort.given().get("/q/health/ready").then().statusCode(200).body("checks[0].data.role", equalTo("follower"));
        given().when().get("/api/v1/queues").then().statusCode(403);
        assertTrue(ManagementPort.given().get("/q/metrics").asString()
                .matches("(?s).*kube_queue_read_api_forwards_total\\{outcome=\"forwarded\"} [1-9].*"));
    }

    /** Once the follower reads the Lease again (it remembers it for half a second), calls get 503 with the reason. */
    private void awaitUnavailable(String reason) {
        await().atMost(Duration.ofSeconds(20)).until(() -> given().when().get("/api/v1/queues").asString()
                .contains(reason));
        given().when().get("/api/v1/queues").then().statusCode(503).header("Retry-After", "1")
                .header(ReadApiForwarding.ANSWERED_BY, nullValue())
                .body("error", containsString("no replica leads now; try again"))
                .body("error", containsString(reason));
    }

    private void setAnnotations(Map<String, String> annotations) {
        for (int attempt = 0; attempt < 20; attempt++) {
            Lease lease = client.leases().inNamespace(LEASE_NAMESPACE).withName(LEASE).get();
            lease.getMetadata().setAnnotations(new HashMap<>(annotations));
            try {
                client.leases().inNamespace(LEASE_NAMESPACE).resource(lease).update();
                return;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
        }
        throw new AssertionError("the Lease could not be written");
    }

    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
