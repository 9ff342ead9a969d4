package io.kubequeue.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.ServiceUnavailableException;
import jakarta.ws.rs.core.HttpHeaders;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.config.KubeQueueConfig.ReadApi.Authentication;
import io.kubequeue.scheduler.MutableClock;
import io.kubequeue.testing.StrictApiServer;

/**
 * Issue 25, sequence 7: the read API's token check against TokenReviews answered as a real API server answers them
 * ({@link StrictApiServer.Tokens}). An unknown, malformed or expired token is answered {@code authenticated: false}
 * with {@code status.error} set, which was read as "the API server could not decide": 503, uncached, one WARN line
 * per request, where docs/security.md promises 401.
 */
class TokenReviewAnswersTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final KubernetesMockServer server = StrictApiServer.started();
    private final StrictApiServer.Tokens tokens = StrictApiServer.tokens(server)
            .accept("alice-token", "alice")
            .expired("expired-token")
            .rejectWithoutError("refused-token")
            .fail("outage-token", 500)
            .fail("throttled-token", 429)
            .unanswered("no-verdict-token");
    private final KubernetesClient client = server.createClient();
    private final MutableClock clock = new MutableClock(T0);
    private final ReadApiAccess access = new ReadApiAccess(client, null, Authentication.KUBERNETES,
            Duration.ofSeconds(30), clock);

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    private static HttpHeaders bearer(String token) {
        return (HttpHeaders) Proxy.newProxyInstance(TokenReviewAnswersTest.class.getClassLoader(),
                new Class<?>[] {HttpHeaders.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getHeaderString")) {
                        return Map.of(HttpHeaders.AUTHORIZATION, "Bearer " + token).get((String) args[0]);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aTokenTheServerAcceptsIsItsUser() {
        assertEquals("alice", access.viewer(bearer("alice-token")).name());
    }

    @Test
    void unknownMalformedAndExpiredTokensAre401NotTryAgain() {
        for (String token : new String[] {"unknown-token", "eyJhbGciOi.not-a-jwt", "%%%", "expired-token",
                "refused-token"}) {
            NotAuthorizedException e = assertThrows(NotAuthorizedException.class, () -> access.viewer(bearer(token)),
                    token);
            assertEquals(401, e.getResponse().getStatus(), token);
        }
    }

    /** A "no" is remembered, but for less time than a "yes": a token that becomes valid works again soon. */
    @Test
    void aRejectedTokenIsRememberedAsANoForFiveSeconds() {
        assertThrows(NotAuthorizedException.class, () -> access.viewer(bearer("unknown-token")));
        int asked = tokens.reviews();
        assertThrows(NotAuthorizedException.class, () -> access.viewer(bearer("unknown-token")));
        assertEquals(asked, tokens.reviews(), "the no is reused");

        clock.advance(ReadApiAccess.REJECTED_FOR);
        tokens.accept("unknown-token", "bob"); // e.g. a ServiceAccount token that reached the server since
        assertEquals("bob", access.viewer(bearer("unknown-token")).name(), "asked again once the no expired");
        assertEquals(asked + 1, tokens.reviews());
    }

    /** Many rejected tokens never push the accepted ones out of the cache. */
    @Test
    void rejectedTokensDoNotCrowdOutAcceptedOnes() {
        access.viewer(bearer("alice-token"));
        int asked = tokens.reviews();
        for (int i = 0; i < 4_200; i++) { // more than the 4,096 accepted tokens remembered
            String token = "guess-" + i;
            assertThrows(NotAuthorizedException.class, () -> access.viewer(bearer(token)));
        }
        int afterGuesses = tokens.reviews();
        assertEquals(asked + 4_200, afterGuesses);
        access.viewer(bearer("alice-token"));
        assertEquals(afterGuesses, tokens.reviews(), "alice's yes is still remembered");
    }

    /** Only a review that failed, or an answer with no verdict, is "try again": 503, and asked again next time. */
    @Test
    void aFailedReviewIs503AndNotRemembered() {
        for (String token : new String[] {"outage-token", "throttled-token", "no-verdict-token"}) {
            int asked = tokens.reviews();
            ServiceUnavailableException first = assertThrows(ServiceUnavailableException.class,
                    () -> access.viewer(bearer(token)), token);
            assertEquals(503, first.getResponse().getStatus());
            assertThrows(ServiceUnavailableException.class, () -> access.viewer(bearer(token)), token);
            assertEquals(asked + 2, tokens.reviews(), token + ": asked again, the failure was not kept");
        }
    }

    /** A run of identical failures is one log line per interval, not one per request. */
    @Test
    void aRunOfFailuresIsLoggedOncePerInterval() {
        for (int i = 0; i < 50; i++) {
            assertThrows(ServiceUnavailableException.class, () -> access.viewer(bearer("outage-token")));
        }
        assertEquals(1, access.failureLog().linesWritten(), "one line for 50 identical failures");
        clock.advance(ReadApiAccess.FAILURE_LOG_INTERVAL);
        assertThrows(ServiceUnavailableException.class, () -> access.viewer(bearer("outage-token")));
        assertEquals(2, access.failureLog().linesWritten(), "one more once the interval passed, with the count");
        assertTrue(access.failureLog().lastLine().contains("49 more like it"), access.failureLog().lastLine());
    }
}
