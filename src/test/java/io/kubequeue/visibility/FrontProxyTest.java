package io.kubequeue.visibility;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.cert.Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.kubequeue.serving.ServingCertificate;

/**
 * Who the front proxy says calls (k8s.io/apiserver's request-header authentication): believed only from a client
 * certificate that chains to the published CA and carries an allowed name; user, groups and extra from the published
 * header names; bounded; and what a peer replica sends (fixed names) read back as it was sent.
 */
class FrontProxyTest {

    private static final ServingCertificate PROXY = ServingCertificate.selfSigned(List.of("front-proxy-client"), null,
            Instant.now());
    private static final ServingCertificate OTHER_NAME = ServingCertificate.selfSigned(List.of("someone-else"), null,
            Instant.now());
    private static final ServingCertificate OTHER_CA = ServingCertificate.selfSigned(List.of("front-proxy-client"),
            null, Instant.now());

    private static FrontProxy published(String allowedNames) {
        return FrontProxy.of(Map.of("requestheader-client-ca-file", PROXY.caPem(),
                "requestheader-allowed-names", allowedNames,
                "requestheader-username-headers", "[\"X-Remote-User\"]",
                "requestheader-group-headers", "[\"X-Remote-Group\"]",
                "requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]"));
    }

    private static List<Certificate> chain(ServingCertificate c) {
        return new ArrayList<>(c.chain());
    }

    /** Headers as an HTTP server hands them: case-insensitive names. */
    private static FrontProxy.Authenticated call(FrontProxy proxy, List<Certificate> peer, Map<String, List<String>> h) {
        TreeMap<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(h);
        return proxy.authenticate(peer, name -> headers.getOrDefault(name, List.of()), headers.keySet());
    }

    @Test
    void theProxysCertificateAndHeadersNameTheCaller() {
        FrontProxy.Authenticated who = call(published("[\"front-proxy-client\"]"), chain(PROXY), Map.of(
                "x-remote-user", List.of("alice"), "X-Remote-Group", List.of("team-a", "system:authenticated"),
                "X-Remote-Extra-Scopes", List.of("view"), "X-Remote-Extra-acme.com%2Fproject", List.of("p1")));
        Caller alice = who.caller().orElseThrow();
        assertEquals("alice", alice.user());
        assertEquals(List.of("team-a", "system:authenticated"), alice.groups());
        assertEquals(Map.of("scopes", List.of("view"), "acme.com/project", List.of("p1")), alice.extra(),
                "extra keys unescaped and lower-cased, as k8s.io/apiserver reads them");
    }

    /**
     * Extra keys are path-escaped by the API server (Go's url.PathEscape: {@code +} is sent as it is) and read back
     * as k8s.io/apiserver reads them (url.PathUnescape: {@code +} stays {@code +}; a key that does not unescape is
     * kept as sent), so the SubjectAccessReview names the extra the API server holds. A peer's round trip keeps
     * spaces and pluses apart.
     */
    @Test
    void extraKeysAreUnescapedAsThePathEscapeTheApiServerSends() {
        Caller who = call(published("[]"), chain(PROXY), Map.of("X-Remote-User", List.of("alice"),
                "X-Remote-Extra-a+b", List.of("1"), "X-Remote-Extra-50%zz", List.of("2"),
                "X-Remote-Extra-c%20d", List.of("3"))).caller().orElseThrow();
        assertEquals(Map.of("a+b", List.of("1"), "50%zz", List.of("2"), "c d", List.of("3")), who.extra());
        Caller caller = new Caller("bob", List.of(), Map.of("a b+c", List.of("p1")));
        TreeMap<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(FrontProxy.forwardHeaders(caller));
        assertEquals(caller, FrontProxy.forwarded(name -> headers.getOrDefault(name, List.of()), headers.keySet())
                .caller().orElseThrow());
    }

    @Test
    void anyoneElseIsNotBelievedAndHearsWhy() {
        Map<String, List<String>> alice = Map.of("X-Remote-User", List.of("alice"));
        FrontProxy proxy = published("[\"front-proxy-client\"]");
        assertTrue(call(proxy, List.of(), alice).why().startsWith("no client certificate"));
        assertEquals("the client certificate is not the front proxy's: not signed by the request-header CA, out of its"
                + " validity, or not for client authentication",
                call(proxy, chain(OTHER_CA), alice).why());
        assertTrue(call(published("[\"front-proxy-client\"]"), chain(PROXY), Map.of()).why()
                .startsWith("no user in the request headers"));
        assertTrue(call(FrontProxy.none(), chain(PROXY), alice).why().startsWith("kube-queue has no request-header CA"));
    }

    @Test
    void allowedNamesLimitWhichCertificateOfTheCaSpeaks() {
        ServingCertificate sameCaOtherName = ServingCertificate.selfSigned(List.of("someone-else"), PROXY,
                Instant.now());
        Map<String, List<String>> alice = Map.of("X-Remote-User", List.of("alice"));
        assertEquals("the client certificate's name someone-else is not a requestheader-allowed-name",
                call(published("[\"front-proxy-client\"]"), chain(sameCaOtherName), alice).why());
        assertTrue(call(published("[]"), chain(sameCaOtherName), alice).caller().isPresent(),
                "no allowed names: any certificate of the CA, as k8s.io/apiserver");
        assertTrue(call(published("[\"front-proxy-client\"]"), chain(OTHER_NAME), alice).caller().isEmpty());
    }

    @Test
    void aFloodOfGroupsIsRefusedNotRead() {
        List<String> groups = new ArrayList<>();
        for (int i = 0; i <= FrontProxy.MAX_VALUES; i++) {
            groups.add("g" + i);
        }
        assertTrue(call(published("[]"), chain(PROXY), Map.of("X-Remote-User", List.of("a"), "X-Remote-Group", groups))
                .why().startsWith("more than"));
    }

    @Test
    void whatAPeerSendsIsReadBackAsSent() {
        Caller caller = new Caller("bob", List.of("team-b", "system:authenticated"),
                Map.of("acme.com/project", List.of("p1", "p2")));
        TreeMap<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(FrontProxy.forwardHeaders(caller));
        assertEquals(caller, FrontProxy.forwarded(name -> headers.getOrDefault(name, List.of()), headers.keySet())
                .caller().orElseThrow());
    }

    @Test
    void aMalformedPublicationIsRefusedWithTheKeyAtFault() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FrontProxy.of(Map.of(
                "requestheader-client-ca-file", PROXY.caPem(), "requestheader-allowed-names", "not json")));
        assertEquals("requestheader-allowed-names is not a JSON list of strings", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FrontProxy.of(Map.of("requestheader-client-ca-file",
                "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")));
    }
}
