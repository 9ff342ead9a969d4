package io.kubequeue.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * The self-signed certificate: what the API server needs of it (the Service's DNS names as subject alternative
 * names, a CA that signs it, serving and client use), served by Vert.x as made, renewed under the same CA, and judged
 * unfit when it should be made anew.
 */
class ServingCertificateTest {

    private static final Instant NOW = Instant.parse("2026-12-04T00:00:00Z");
    private static final List<String> NAMES = ServingCertificate.serviceNames("kube-queue-controller", "kube-queue");

    @Test
    void itNamesTheServiceAndIsSignedByItsCa() throws Exception {
        ServingCertificate c = ServingCertificate.selfSigned(NAMES, null, Instant.now());
        X509Certificate leaf = c.leaf();
        assertEquals(List.of("kube-queue-controller.kube-queue.svc", "kube-queue-controller.kube-queue.svc.cluster.local",
                "kube-queue-controller.kube-queue", "kube-queue-controller"),
                leaf.getSubjectAlternativeNames().stream().map(s -> String.valueOf(s.get(1))).toList());
        leaf.verify(c.caCertificates().get(0).getPublicKey());
        assertEquals(List.of("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"), leaf.getExtendedKeyUsage(),
                "server and client authentication (a follower presents it to the leader)");
        assertEquals(-1, leaf.getBasicConstraints(), "not a CA");
        assertTrue(c.caCertificates().get(0).getBasicConstraints() >= 0, "its CA is one");
        assertTrue(c.unfitFor(NAMES, Instant.now()).isEmpty());
        assertTrue(c.toString().indexOf("PRIVATE") < 0, "no key in a log line");
    }

    @Test
    void vertxServesItAndAClientTrustingTheCaTakesIt() throws Exception {
        ServingCertificate c = ServingCertificate.selfSigned(NAMES, null, Instant.now());
        Vertx vertx = Vertx.vertx();
        try {
            HttpServer server = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setPort(0)
                    .setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(c.certificatePem()))
                            .setKeyValue(Buffer.buffer(c.keyPem())))).requestHandler(r -> r.response().end("ok"))
                    .listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            String body = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setVerifyHost(false)
                            .setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(c.caPem()))))
                    .request(HttpMethod.GET, server.actualPort(), "localhost", "/").compose(r -> r.send())
                    .compose(r -> r.body()).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS)
                    .toString();
            assertEquals("ok", body);
        } finally {
            vertx.close();
        }
    }

    @Test
    void aRenewalKeepsTheCaSoTheApiServersBundleStaysGood() {
        ServingCertificate first = ServingCertificate.selfSigned(NAMES, null, NOW);
        ServingCertificate renewed = ServingCertificate.selfSigned(NAMES, first, NOW.plus(Duration.ofDays(340)));
        assertEquals(first.caPem(), renewed.caPem());
        assertNotEquals(first.leaf(), renewed.leaf());
        ServingCertificate late = ServingCertificate.selfSigned(NAMES, first,
                NOW.plus(ServingCertificate.CA_VALIDITY).minus(ServingCertificate.CA_RENEW_BEFORE));
        assertNotEquals(first.caPem(), late.caPem(), "a CA near its end is replaced");
    }

    @Test
    void itIsMadeAnewWhenItExpiresSoonNamesOthersOrLostItsKeys() {
        ServingCertificate c = ServingCertificate.selfSigned(NAMES, null, NOW);
        assertTrue(c.unfitFor(NAMES, NOW.plus(Duration.ofDays(340))).orElseThrow().startsWith("it expires at"));
        assertTrue(c.unfitFor(ServingCertificate.serviceNames("other", "kube-queue"), NOW).orElseThrow()
                .startsWith("it names"));
        assertEquals("its key or its CA's key is missing",
                new ServingCertificate(c.certificatePem(), c.keyPem(), c.caPem(), null).unfitFor(NAMES, NOW).orElseThrow());
        ServingCertificate other = ServingCertificate.selfSigned(NAMES, null, NOW);
        assertEquals("its CA's key is not the CA's", new ServingCertificate(c.certificatePem(), c.keyPem(), c.caPem(),
                other.caKeyPem()).unfitFor(NAMES, NOW).orElseThrow());
        assertEquals("it is not signed by its CA", new ServingCertificate(c.certificatePem(), c.keyPem(), other.caPem(),
                other.caKeyPem()).unfitFor(NAMES, NOW).orElseThrow());
        assertTrue(new ServingCertificate("garbage", "garbage", null, null).unfitFor(NAMES, NOW).orElseThrow()
                .startsWith("it cannot be read"));
    }
}
