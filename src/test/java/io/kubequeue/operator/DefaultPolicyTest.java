package io.kubequeue.operator;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.kubequeue.testing.WithStrictApiServer;

/**
 * Both switches false (the seed's default): a job that does not fit backs off and the jobs behind it may pass;
 * a release does not cut a backoff short. The backoff is 30 s here so the test can see it.
 */
@QuarkusTest
@TestProfile(DefaultPolicyTest.LongBackoff.class)
@WithStrictApiServer
class DefaultPolicyTest extends PolicyScenario {

    public static class LongBackoff implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.backoff.initial", "30s", "kube-queue.backoff.max", "60s");
        }
    }

    @Test
    void theSmallJobPassesTheOnesThatDoNotFitAndAReleaseWaitsForTheBackoff() {
        runningThenWaitingLargeSmall();
        admittedWithin("d-small", 10);
        staysSuspended("b-waiting", 1);

        cluster.complete("a-running");
        staysSuspended("b-waiting", 2); // it fits now, but waits out its 30 s backoff
    }
}
