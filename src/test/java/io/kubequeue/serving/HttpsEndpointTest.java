package io.kubequeue.serving;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.leader.Leadership;
import io.kubequeue.testing.SeedTreeFixture;
import io.kubequeue.testing.StrictApiServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * kube-queue's HTTPS port as the API server uses it (docs/visibility.md), against the strict stand-in API server:
 * the self-signed certificate made once and its CA written into the APIService and the webhook configuration; the
 * visibility API believing a caller only from the front proxy's client certificate (allowed, forbidden, no headers,
 * another CA, no certificate) or from a peer replica's serving certificate; kubectl's table over TLS; the webhook's
 * answer per namespace; a certificate made anew served without a restart.
 * <p>The front proxy is played by the test: a request-header CA published in ConfigMap
 * {@code kube-system/extension-apiserver-authentication}, and a client certificate {@code front-proxy-client} it
 * signs. Alice may list pendingjobs in {@code default}; admin may list them everywhere; bob may do nothing.
 */
@QuarkusTest
@WithStrictApiServer(setup = HttpsEndpointTest.Cluster.class)
@TestProfile(HttpsEndpointTest.Serving.class)
class HttpsEndpointTest extends SeedTreeFixture {

    private static final String API = "/apis/visibility.kube-queue.io/v1alpha1";
    private static final String KUBECTL_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,"
            + "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    /** The front proxy's CA and client certificate (the leaf's common name is front-proxy-client). */
    static final ServingCertificate FRONT_PROXY = ServingCertificate.selfSigned(List.of("front-proxy-client"), null,
            Instant.now());
    /** A client certificate from a CA the API server never published. */
    static final ServingCertificate STRANGER = ServingCertificate.selfSigned(List.of("front-proxy-client"), null,
            Instant.now());
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The HTTPS port switched on, on a free port (a fixed one: the leader publishes it on its Lease for followers),
     * suspending at creation in team-a; the leader's address on the loopback.
     */
    public static class Serving implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            int free;
            try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
                free = socket.getLocalPort();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            return Map.of("kube-queue.serving.enabled", "true", "kube-queue.serving.port", Integer.toString(free),
                    "kube-queue.serving.suspend-at-creation-in", "team-a",
                    "kube-queue.read-api.advertised-url", "http://127.0.0.1:8080");
        }
    }

    /** What the cluster holds before kube-queue starts: the front proxy's CA, the APIService, the webhooks, RBAC. */
    public static final class Cluster implements java.util.function.Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient c = server.createClient();
            c.configMaps().inNamespace("kube-system").resource(new ConfigMapBuilder().withNewMetadata()
                    .withName("extension-apiserver-authentication").withNamespace("kube-system").endMetadata()
                    .addToData("requestheader-client-ca-file", FRONT_PROXY.caPem())
                    .addToData("requestheader-allowed-names", "[\"front-proxy-client\"]")
                    .addToData("requestheader-username-headers", "[\"X-Remote-User\"]")
                    .addToData("requestheader-group-headers", "[\"X-Remote-Group\"]")
                    .addToData("requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]").build()).create();
            c.genericKubernetesResources(CaBundles.API_SERVICES).resource(new GenericKubernetesResourceBuilder()
                    .withApiVersion("apiregistration.k8s.io/v1").withKind("APIService").withNewMetadata()
                    .withName("v1alpha1.visibility.kube-queue.io").endMetadata()
                    .addToAdditionalProperties("spec", Map.of("group", "visibility.kube-queue.io", "version",
                            "v1alpha1", "groupPriorityMinimum", 100, "versionPriority", 100,
                            "service", Map.of("name", "kube-queue-controller", "namespace", "kube-queue", "port", 8443)))
                    .build()).create();
            c.admissionRegistration().v1().mutatingWebhookConfigurations().resource(
                    new MutatingWebhookConfigurationBuilder().withNewMetadata()
                            .withName("kube-queue-suspend-at-creation").endMetadata()
                            .addNewWebhook().withName("jobs.suspend-at-creation.kube-queue.io").withNewClientConfig()
                            .withNewService().withName("kube-queue-controller").withNamespace("kube-queue")
                            .withPath(HttpsEndpoint.WEBHOOK_PATH).withPort(8443).endService().endClientConfig()
                            .withAdmissionReviewVersions("v1").withSideEffects("None").endWebhook()
                            .addNewWebhook().withName("kubeflow.suspend-at-creation.kube-queue.io").withNewClientConfig()
                            .withNewService().withName("kube-queue-controller").withNamespace("kube-queue")
                            .withPath(HttpsEndpoint.WEBHOOK_PATH).withPort(8443).endService().endClientConfig()
                            .withAdmissionReviewVersions("v1").withSideEffects("None").endWebhook().build()).create();
            StrictApiServer.access(server)
                    .grant("alice", "list", "visibility.kube-queue.io", "pendingjobs", "default")
                    .grant("alice", "get", "visibility.kube-queue.io", "pendingjobs", "default")
                    .grant("admin", "list", "visibility.kube-queue.io", "pendingjobs", "")
                    .grant("admin", "list", "visibility.kube-queue.io", "quotagroups", "")
                    .grant("alice", "create", "visibility.kube-queue.io", "dryruns", "default");
        }
    }

    @Inject
    Vertx vertx;

    @Inject
    HttpsEndpoint https;

    @Inject
    Leadership leadership;

    @KubernetesTestServer
    KubernetesMockServer server;

    @Inject
    io.micrometer.core.instrument.MeterRegistry registry;

    private int port() {
        return await().atMost(Duration.ofSeconds(20)).until(() -> https.port().orElse(-1), p -> p > 0);
    }

    private Secret servingSecret() {
        return await().atMost(Duration.ofSeconds(20)).until(() -> client.secrets().inNamespace(leadership.namespace())
                .withName("kube-queue-tls").get(), java.util.Objects::nonNull);
    }

    private ServingCertificate served() {
        Map<String, String> d = servingSecret().getData();
        return new ServingCertificate(unb64(d.get("tls.crt")), unb64(d.get("tls.key")), unb64(d.get("ca.crt")),
                unb64(d.get("ca.key")));
    }

    /** One call over TLS, trusting kube-queue's CA, presenting a client certificate if one is given. */
    private Answer call(ServingCertificate client, HttpMethod method, String path, Map<String, List<String>> headers,
                        String body) throws Exception {
        return call(port(), client, method, path, headers, body);
    }

    private Answer call(int port, ServingCertificate client, HttpMethod method, String path,
                        Map<String, List<String>> headers, String body) throws Exception {
        HttpClientOptions options = new HttpClientOptions().setSsl(true).setVerifyHost(false)
                .setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(served().caPem())));
        if (client != null) {
            options.setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(client.certificatePem()))
                    .setKeyValue(Buffer.buffer(client.keyPem())));
        }
        HttpClient http = vertx.createHttpClient(options);
        try {
            RequestOptions request = new RequestOptions().setMethod(method).setHost("localhost").setPort(port)
                    .setURI(path);
            headers.forEach((k, v) -> request.putHeader(k, List.<CharSequence>copyOf(v)));
            return http.request(request).compose(r -> body == null ? r.send() : r.send(body))
                    .compose(r -> r.body().map(b -> new Answer(r.statusCode(), b.toString(StandardCharsets.UTF_8),
                            serverChain(r.request().connection()), r.getHeader(HttpsEndpoint.ANSWERED_BY))))
                    .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        } finally {
            http.close();
        }
    }

    /**
     * A GET over TLS presenting the client certificate whatever issuers the server names (a JDK client sends none
     * whose issuer is not named; openssl, curl and a hand-written client send it anyway).
     */
    private Answer presenting(int port, ServingCertificate client, String path, Map<String, List<String>> headers)
            throws Exception {
        javax.net.ssl.X509KeyManager keys = (javax.net.ssl.X509KeyManager) new PemKeyCertOptions()
                .setCertValue(Buffer.buffer(client.certificatePem())).setKeyValue(Buffer.buffer(client.keyPem()))
                .getKeyManagerFactory(vertx).getKeyManagers()[0];
        javax.net.ssl.X509ExtendedKeyManager anyway = new javax.net.ssl.X509ExtendedKeyManager() {
            private String alias(String[] keyTypes) {
                for (String type : keyTypes) {
                    String[] aliases = keys.getClientAliases(type, null);
                    if (aliases != null && aliases.length > 0) {
                        return aliases[0];
                    }
                }
                return null;
            }

            @Override
            public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers,
                                                  javax.net.ssl.SSLEngine engine) {
                return alias(keyType);
            }

            @Override
            public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, java.net.Socket s) {
                return alias(keyType);
            }

            @Override
            public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
                return keys.getClientAliases(keyType, null);
            }

            @Override
            public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
                return keys.getServerAliases(keyType, issuers);
            }

            @Override
            public String chooseServerAlias(String keyType, java.security.Principal[] issuers, java.net.Socket s) {
                return keys.chooseServerAlias(keyType, issuers, s);
            }

            @Override
            public java.security.cert.X509Certificate[] getCertificateChain(String alias) {
                return keys.getCertificateChain(alias);
            }

            @Override
            public java.security.PrivateKey getPrivateKey(String alias) {
                return keys.getPrivateKey(alias);
            }
        };
        HttpClient http = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setVerifyHost(false)
                .setTrustAll(true).setKeyCertOptions(io.vertx.core.net.KeyCertOptions.wrap(anyway)));
        try {
            RequestOptions request = new RequestOptions().setMethod(HttpMethod.GET).setHost("localhost").setPort(port)
                    .setURI(path);
            headers.forEach((k, v) -> request.putHeader(k, List.<CharSequence>copyOf(v)));
            return http.request(request).compose(r -> r.send())
                    .compose(r -> r.body().map(b -> new Answer(r.statusCode(), b.toString(StandardCharsets.UTF_8),
                            List.of(), r.getHeader(HttpsEndpoint.ANSWERED_BY))))
                    .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        } finally {
            http.close();
        }
    }

    private static List<java.security.cert.Certificate> serverChain(io.vertx.core.http.HttpConnection connection) {
        try {
            return connection.peerCertificates();
        } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Answer(int status, String body, List<java.security.cert.Certificate> serverChain,
                          String answeredBy) {
        JsonNode json() throws Exception {
            return JSON.readTree(body);
        }
    }

    private Answer asUser(String user, String path) throws Exception {
        return call(FRONT_PROXY, HttpMethod.GET, path, Map.of("X-Remote-User", List.of(user),
                "X-Remote-Group", List.of("system:authenticated")), null);
    }

    private static String unb64(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.US_ASCII);
    }

    private String waitingJob() {
        cluster.apply("/jobs/batch-2cpu.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.pending(SEED_GROUP).size() == 1
                && scheduler.usage(SEED_GROUP).get("cpu") == 4000 && leadership.isLeader());
        return scheduler.pending(SEED_GROUP).get(0).status().key().name();
    }

    @Test
    void theCertificateIsMadeOnceAndTheApiServerToldItsCa() throws Exception {
        port();
        Secret secret = servingSecret();
        assertEquals("kubernetes.io/tls", secret.getType());
        ServingCertificate c = served();
        assertTrue(c.unfitFor(ServingCertificate.serviceNames("kube-queue-controller", leadership.namespace()),
                Instant.now()).isEmpty(), "made for the Service's names, signed by its CA");
        // the Secret's CA first (another test may have made a new one within two minutes: the one before follows)
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertEquals(c.caCertificates().get(0), bundled().get(0));
            MutatingWebhookConfiguration hooks = client.admissionRegistration().v1().mutatingWebhookConfigurations()
                    .withName("kube-queue-suspend-at-creation").get();
            String apiServiceBundle = (String) ((Map<?, ?>) client.genericKubernetesResources(CaBundles.API_SERVICES)
                    .withName("v1alpha1.visibility.kube-queue.io").get().getAdditionalProperties().get("spec"))
                    .get("caBundle");
            assertEquals(List.of(apiServiceBundle, apiServiceBundle), hooks.getWebhooks().stream()
                    .map(MutatingWebhook::getClientConfig).map(cc -> cc.getCaBundle()).toList());
        });
        String version = secret.getMetadata().getResourceVersion();
        https.refresh();
        assertEquals(version, servingSecret().getMetadata().getResourceVersion(), "a fit certificate is not rewritten");
        assertEquals(c.leaf(), call(null, HttpMethod.GET, "/healthz", Map.of(), null).serverChain().get(0),
                "the Secret's certificate is the one served");
    }

    @Test
    void aCallerTheFrontProxyNamesReadsTheNamespacesTheyMayList() throws Exception {
        String waiting = waitingJob();
        Answer alice = asUser("alice", API + "/namespaces/default/pendingjobs");
        assertEquals(200, alice.status(), alice.body());
        JsonNode item = alice.json().path("items").get(0);
        assertEquals(waiting, item.path("metadata").path("name").asText());
        assertEquals(SEED_GROUP, item.path("quotaGroup").asText());
        assertEquals(1, item.path("position").asInt());
        assertTrue(item.path("reason").asText().contains("in use 4 of max 4"), item.toString());

        double forbidden = registry.counter("kube_queue_visibility_answers", "route", "pendingjobs", "code", "403")
                .count();
        Answer bob = asUser("bob", API + "/namespaces/default/pendingjobs");
        assertEquals(403, bob.status());
        assertEquals(forbidden + 1, registry.counter("kube_queue_visibility_answers", "route", "pendingjobs", "code",
                "403").count(), "counted by route and code");
        assertTrue(bob.json().path("message").asText().contains("User \"bob\" cannot list resource \"pendingjobs\""),
                bob.body());
        assertEquals(200, asUser("admin", API + "/quotagroups").status());
        assertEquals(403, asUser("bob", API + "/quotagroups").status());
    }

    /**
     * The API server passes a caller's own headers on: a caller who adds {@code X-Kube-Queue-Forwarded-By} is still
     * counted (only a peer replica's forward is counted where it came in), and a follower still forwards their call.
     */
    @Test
    void aCallerWhoSaysTheCallWasForwardedIsCountedAsAnyOther() throws Exception {
        waitingJob();
        double before = registry.counter("kube_queue_visibility_answers", "route", "pendingjobs", "code", "200")
                .count();
        Answer answer = call(FRONT_PROXY, HttpMethod.GET, API + "/namespaces/default/pendingjobs",
                Map.of("X-Remote-User", List.of("alice"), HttpsEndpoint.FORWARDED_BY, List.of("nobody")), null);
        assertEquals(200, answer.status(), answer.body());
        assertEquals(before + 1, registry.counter("kube_queue_visibility_answers", "route", "pendingjobs", "code",
                "200").count(), "counted: the header is the caller's, not a replica's");
    }

    @Test
    void kubectlGetsItsTableOverTls() throws Exception {
        String waiting = waitingJob();
        Answer table = call(FRONT_PROXY, HttpMethod.GET, API + "/namespaces/default/pendingjobs",
                Map.of("X-Remote-User", List.of("alice"), "Accept", List.of(KUBECTL_ACCEPT)), null);
        assertEquals(200, table.status(), table.body());
        assertEquals("Table", table.json().path("kind").asText());
        assertEquals(waiting, table.json().path("rows").get(0).path("cells").get(0).asText());
        assertEquals("default", table.json().path("rows").get(0).path("object").path("metadata").path("namespace")
                .asText());
    }

    @Test
    void withoutTheFrontProxysCertificateNobodyIsBelieved() throws Exception {
        waitingJob();
        String path = API + "/namespaces/default/pendingjobs";
        Map<String, List<String>> alice = Map.of("X-Remote-User", List.of("alice"));
        Answer noCertificate = call(null, HttpMethod.GET, path, alice, null);
        assertEquals(401, noCertificate.status());
        assertTrue(noCertificate.body().contains("no client certificate"), noCertificate.body());
        // the handshake names the issuers it takes, so a client holding another CA's certificate sends none
        // (FrontProxyTest shows the check of a certificate that is sent anyway)
        assertEquals(401, call(STRANGER, HttpMethod.GET, path, alice, null).status());
        Answer noUser = call(FRONT_PROXY, HttpMethod.GET, path, Map.of(), null);
        assertEquals(401, noUser.status());
        assertTrue(noUser.body().contains("no user in the request headers"), noUser.body());
        assertEquals(401, call(null, HttpMethod.GET, API, Map.of(), null).status(), "discovery needs a caller too");
        assertEquals(401, call(null, HttpMethod.POST, API + "/namespaces/default/dryruns", alice,
                "x".repeat(HttpsEndpoint.LONGEST_BODY + 1)).status(),
                "an unknown caller is turned away before its body is read (else: 413, body too large)");
        assertEquals(200, call(FRONT_PROXY, HttpMethod.GET, API, alice, null).status());
    }

    /**
     * The API server names every group of the caller, one {@code X-Remote-Group} header each: a user of a directory
     * with a couple of hundred groups (FrontProxy reads up to 256) sends more than Vert.x's default 8 KiB of headers,
     * and must be answered, not refused before kube-queue reads them.
     */
    @Test
    void aCallerInManyGroupsIsAnswered() throws Exception {
        waitingJob();
        List<String> groups = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            groups.add("oidc:/example.com/engineering/platform/team-" + i + "-developers");
        }
        Answer answer = call(FRONT_PROXY, HttpMethod.GET, API + "/namespaces/default/pendingjobs",
                Map.of("X-Remote-User", List.of("alice"), "X-Remote-Group", groups), null);
        assertEquals(200, answer.status(), answer.body());
    }

    @Test
    void aPeerReplicaIsBelievedOnlyWithTheServingCertificateItself() throws Exception {
        waitingJob();
        String path = API + "/namespaces/default/pendingjobs";
        Map<String, List<String>> admin = Map.of("X-Remote-User", List.of("admin"));
        Answer peer = call(served(), HttpMethod.GET, path, admin, null);
        assertEquals(200, peer.status(), "a replica holding the serving key names the caller it authenticated");
        ServingCertificate sameNamesOtherKey = ServingCertificate.selfSigned(
                ServingCertificate.serviceNames("kube-queue-controller", leadership.namespace()), null, Instant.now());
        assertEquals(401, call(sameNamesOtherKey, HttpMethod.GET, path, admin, null).status(),
                "a certificate for the same names but another key is nobody");
    }

    /**
     * The key served before a renewal is a peer's only while the replicas swap the new certificate in (each within a
     * minute): a renewal is also how a leaked key is retired (delete the Secret), and whoever holds that key could
     * otherwise name any user to the visibility API until the next renewal, a year later.
     */
    @Test
    void theKeyBeforeARenewalIsAPeersOnlyWhileTheReplicasSwap() throws Exception {
        ServingCertificate leaked = served();
        io.kubequeue.scheduler.MutableClock clock = new io.kubequeue.scheduler.MutableClock(Instant.now());
        HttpsEndpoint replica = replica("replica-3", 0, clock);
        try {
            replica.refresh();
            int port = replica.port().orElseThrow();
            Map<String, List<String>> admin = Map.of("X-Remote-User", List.of("admin"));
            assertEquals(200, presenting(port, leaked, API, admin).status(), "the key served now");
            client.secrets().inNamespace(leadership.namespace()).withName("kube-queue-tls").delete();
            await().atMost(Duration.ofSeconds(10)).until(() -> client.secrets().inNamespace(leadership.namespace())
                    .withName("kube-queue-tls").get() == null);
            replica.refresh();
            assertNotEquals(leaked.leaf(), served().leaf(), "renewed");
            assertEquals(200, presenting(port, leaked, API, admin).status(), "a peer that has not swapped yet");
            clock.advance(Duration.ofMinutes(3));
            assertEquals(401, presenting(port, leaked, API, admin).status(),
                    "every replica has swapped: the key before is nobody's");
            assertEquals(200, presenting(port, served(), API, admin).status());
        } finally {
            replica.stop();
            https.refresh(); // the leader serves the new certificate too
        }
    }

    /**
     * A new CA (the Secret deleted, or the CA near its end) is told to the API server beside the one before, while the
     * other replicas still serve a certificate the one before signs (each swaps within a minute): with the new CA
     * alone the API server refuses those replicas' TLS, and the webhook, {@code failurePolicy: Ignore}, lets the jobs
     * it sends them through unsuspended. Once every replica has swapped, the new CA alone.
     */
    @Test
    void aNewCaIsToldBesideTheOneBeforeWhileTheReplicasSwap() throws Exception {
        ServingCertificate before = served();
        io.kubequeue.scheduler.MutableClock clock = new io.kubequeue.scheduler.MutableClock(Instant.now());
        HttpsEndpoint replica = replica("replica-4", 0, clock);
        try {
            replica.refresh();
            client.secrets().inNamespace(leadership.namespace()).withName("kube-queue-tls").delete();
            await().atMost(Duration.ofSeconds(10)).until(() -> client.secrets().inNamespace(leadership.namespace())
                    .withName("kube-queue-tls").get() == null);
            replica.refresh();
            ServingCertificate after = served();
            assertNotEquals(before.caPem(), after.caPem(), "a new CA");
            assertEquals(java.util.Set.of(after.caCertificates().get(0), before.caCertificates().get(0)),
                    new java.util.HashSet<>(bundled()), "the new CA and the one before");
            clock.advance(Duration.ofMinutes(3));
            replica.refresh();
            assertEquals(List.of(after.caCertificates().get(0)), bundled(), "every replica has swapped");
        } finally {
            replica.stop();
            https.refresh();
        }
    }

    /** The CA certificates the APIService's caBundle holds. */
    private List<java.security.cert.X509Certificate> bundled() {
        GenericKubernetesResource apiService = client.genericKubernetesResources(CaBundles.API_SERVICES)
                .withName("v1alpha1.visibility.kube-queue.io").get();
        String pem = unb64((String) ((Map<?, ?>) apiService.getAdditionalProperties().get("spec")).get("caBundle"));
        return new ServingCertificate(pem, null, pem, null).caCertificates();
    }

    @Test
    void theWebhookSuspendsAJobCreatedUnsuspendedInASelectedNamespaceOnly() throws Exception {
        Answer teamA = call(null, HttpMethod.POST, HttpsEndpoint.WEBHOOK_PATH,
                Map.of("Content-Type", List.of("application/json")), review("team-a"));
        assertEquals(200, teamA.status(), teamA.body());
        JsonNode response = teamA.json().path("response");
        assertEquals("uid-1", response.path("uid").asText());
        assertTrue(response.path("allowed").asBoolean());
        assertEquals("[{\"op\":\"add\",\"path\":\"/spec/suspend\",\"value\":true}]",
                new String(Base64.getDecoder().decode(response.path("patch").asText()), StandardCharsets.UTF_8));
        JsonNode other = call(null, HttpMethod.POST, HttpsEndpoint.WEBHOOK_PATH, Map.of(), review("team-b")).json()
                .path("response");
        assertTrue(other.path("allowed").asBoolean());
        assertFalse(other.has("patch"), "team-b is not selected: left as sent");
        assertEquals(400, call(null, HttpMethod.POST, HttpsEndpoint.WEBHOOK_PATH, Map.of(), "{not json").status());
        assertEquals(400, call(null, HttpMethod.POST, HttpsEndpoint.WEBHOOK_PATH, Map.of(), "{}").status());
    }

    private static String review(String namespace) {
        return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"uid-1\","
                + "\"kind\":{\"group\":\"batch\",\"version\":\"v1\",\"kind\":\"Job\"},\"operation\":\"CREATE\","
                + "\"namespace\":\"" + namespace + "\",\"object\":{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
                + "\"metadata\":{\"name\":\"j\",\"namespace\":\"" + namespace + "\"},\"spec\":{\"template\":{}}}}}";
    }

    @Test
    void aCertificateMadeAnewIsServedWithoutARestart() throws Exception {
        ServingCertificate before = served();
        assertEquals(before.leaf(), call(null, HttpMethod.GET, "/healthz", Map.of(), null).serverChain().get(0));
        client.secrets().inNamespace(leadership.namespace()).withName("kube-queue-tls").delete();
        await().atMost(Duration.ofSeconds(10)).until(() -> client.secrets().inNamespace(leadership.namespace())
                .withName("kube-queue-tls").get() == null);
        https.refresh();
        ServingCertificate after = served();
        assertNotEquals(before.leaf(), after.leaf());
        assertEquals(after.leaf(), call(null, HttpMethod.GET, "/healthz", Map.of(), null).serverChain().get(0),
                "the new certificate is served by the running server");
        assertEquals(List.of(after.caCertificates().get(0), before.caCertificates().get(0)), bundled(),
                "and the API server is told its new CA (beside the one before, while the replicas swap)");
        assertNotNull(after.caKeyPem());
    }

    /**
     * A port that cannot be bound at one pass (held by another process a moment) is bound at a later pass: the
     * certificate was had, only the listen failed. Else the port never listens until a restart, the APIService stays
     * unavailable and the webhook, with {@code failurePolicy: Ignore}, lets every job through unsuspended.
     */
    @Test
    void aPortThatCouldNotBeBoundIsBoundAtTheNextPass() throws Exception {
        port();
        try (java.net.ServerSocket busy = new java.net.ServerSocket(0)) {
            int taken = busy.getLocalPort();
            HttpsEndpoint second = replica("replica-2", taken, java.time.Clock.systemUTC());
            try {
                second.refresh();
                assertTrue(second.port().isEmpty(), "the port is taken");
                busy.close();
                second.refresh();
                assertEquals(Optional.of(taken), second.port(), "bound once it is free");
                assertEquals(200, call(taken, null, HttpMethod.GET, "/healthz", Map.of(), null).status());
            } finally {
                second.stop();
            }
        }
    }

    /** As {@code kubectl create --raw …/dryruns -f job.yaml} sends it: YAML, no content type. */
    @Test
    void aDryRunOfAManifestSaysWhereItWouldQueueWithoutWritingAnything() throws Exception {
        waitingJob();
        String manifest = """
                apiVersion: batch/v1
                kind: Job
                metadata:
                  name: would-it-fit
                spec:
                  suspend: true
                  template:
                    spec:
                      restartPolicy: Never
                      containers:
                        - name: work
                          image: busybox:stable
                          resources:
                            requests:
                              cpu: "1"
                """;
        Map<String, List<String>> alice = Map.of("X-Remote-User", List.of("alice"));
        Answer verdict = call(FRONT_PROXY, HttpMethod.POST, API + "/namespaces/default/dryruns", alice, manifest);
        assertEquals(201, verdict.status(), verdict.body());
        JsonNode d = verdict.json();
        assertEquals("DryRun", d.path("kind").asText());
        assertTrue(d.path("managed").asBoolean());
        assertEquals(SEED_GROUP, d.path("quotaGroup").asText());
        assertFalse(d.path("fitsNow").asBoolean(), "4 of 4 cpu in use");
        assertEquals(2, d.path("position").asInt(), "behind the job already waiting");
        assertTrue(client.batch().v1().jobs().inNamespace("default").withName("would-it-fit").get() == null,
                "nothing is written");
        Answer elsewhere = call(FRONT_PROXY, HttpMethod.POST, API + "/namespaces/default/dryruns", alice,
                manifest.replace("name: would-it-fit", "name: would-it-fit\n  namespace: team-b"));
        assertEquals(400, elsewhere.status(), elsewhere.body());
        assertEquals(403, call(FRONT_PROXY, HttpMethod.POST, API + "/namespaces/default/dryruns",
                Map.of("X-Remote-User", List.of("bob")), manifest).status());
        assertEquals(400, call(FRONT_PROXY, HttpMethod.POST, API + "/namespaces/default/dryruns", alice,
                "{not a manifest").status());
    }

    @Inject
    io.kubequeue.config.ReadApiForwardingConfig forwarding;

    @Inject
    io.kubequeue.job.DryRuns dryRuns;

    @Inject
    io.kubequeue.job.JobFeed feed;

    /**
     * A second replica in this JVM, a follower (it never competes for the Lease): it authenticates the caller, then
     * forwards to the leader's HTTPS port named on the Lease, presenting the serving certificate, and the leader's
     * answer comes back with the leader's name on it; a call already forwarded is not forwarded again.
     */
    @Test
    void aFollowerForwardsToTheLeaderWhichAnswersForIt() throws Exception {
        String waiting = waitingJob();
        int leaderPort = port();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            io.fabric8.kubernetes.api.model.coordination.v1.Lease lease = client.leases()
                    .inNamespace(leadership.namespace()).withName(leadership.leaseName()).get();
            return lease != null && lease.getMetadata().getAnnotations() != null && Integer.toString(leaderPort)
                    .equals(lease.getMetadata().getAnnotations().get(io.kubequeue.leader.ReadApiLeaderAddress.SERVING_PORT));
        });
        HttpsEndpoint second = replica("follower-1", 0, java.time.Clock.systemUTC());
        second.start();
        try {
            int followerPort = await().atMost(Duration.ofSeconds(20)).until(() -> second.port().orElse(-1), p -> p > 0);
            Answer forwarded = call(followerPort, FRONT_PROXY, HttpMethod.GET, API + "/namespaces/default/pendingjobs",
                    Map.of("X-Remote-User", List.of("alice")), null);
            assertEquals(200, forwarded.status(), forwarded.body());
            assertEquals(leadership.identity(), forwarded.answeredBy(), "the leader's scheduler answered");
            assertEquals(waiting, forwarded.json().path("items").get(0).path("metadata").path("name").asText());
            assertEquals(403, call(followerPort, FRONT_PROXY, HttpMethod.GET, API + "/namespaces/default/pendingjobs",
                    Map.of("X-Remote-User", List.of("bob")), null).status(), "the leader authorises the caller named");
            assertEquals(200, call(followerPort, FRONT_PROXY, HttpMethod.GET, API + "/namespaces/default/pendingjobs",
                    Map.of("X-Remote-User", List.of("alice"), HttpsEndpoint.FORWARDED_BY, List.of("someone")), null)
                    .status(), "the header from a caller, not a replica, stops no forward");
            Answer again = call(followerPort, served(), HttpMethod.GET, API + "/namespaces/default/pendingjobs",
                    Map.of("X-Remote-User", List.of("alice"), HttpsEndpoint.FORWARDED_BY, List.of("someone")), null);
            assertEquals(503, again.status(), "a follower never forwards a forwarded call");
            assertEquals(200, call(followerPort, FRONT_PROXY, HttpMethod.GET, API, Map.of("X-Remote-User",
                    List.of("alice")), null).status(), "discovery is answered where it is asked");
        } finally {
            second.stop();
        }
    }

    /**
     * Another replica in this JVM, a follower that never competes for the Lease, serving the same Secret's certificate
     * on its own port (0: any free one), not started.
     */
    private HttpsEndpoint replica(String identity, int port, java.time.Clock clock) {
        io.kubequeue.config.KubeQueueConfig config = io.kubequeue.testing.TestConfig.kubeQueue(Map.of(
                "kube-queue.serving.enabled", "true", "kube-queue.serving.port", Integer.toString(port),
                "kube-queue.leader-election.identity", identity));
        Leadership follower = new Leadership(client, config, null);
        assertFalse(follower.isLeader());
        return new HttpsEndpoint(vertx, config, client, scheduler, dryRuns, null, null, feed, follower,
                new io.kubequeue.leader.ReadApiLeaderAddress(client, follower, forwarding, 8080, true, 0),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), clock);
    }
}
