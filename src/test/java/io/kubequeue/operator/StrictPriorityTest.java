package io.kubequeue.operator;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.kubequeue.testing.WithStrictApiServer;

/** {@code StrictPriority=true}, the seed's blocking queue: nothing passes a head that does not fit. */
@QuarkusTest
@TestProfile(StrictPriorityTest.Blocking.class)
@WithStrictApiServer
class StrictPriorityTest extends PolicyScenario {

    /** Sets the seed's env var name, as {@code kubectl edit deploy} would. */
    public static class Blocking implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("StrictPriority", "true");
        }
    }

    @Test
    void theSmallJobWaitsBehindTheHeadAndTheHeadIsRetriedOnRelease() {
        runningThenWaitingLargeSmall();
        staysSuspended("d-small", 3); // 1 cpu is free, but b-waiting (3) heads the queue

        cluster.complete("a-running");
        admittedWithin("b-waiting", 10);
        staysSuspended("d-small", 2); // now c-large (4) heads the queue and does not fit
        staysSuspended("c-large", 0);
    }
}
