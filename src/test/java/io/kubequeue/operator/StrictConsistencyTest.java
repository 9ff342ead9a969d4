package io.kubequeue.operator;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.kubequeue.testing.WithStrictApiServer;

/**
 * {@code StrictConsistency=true}, the seed's strict priority: a release retries the backed-off jobs at once,
 * highest priority first. The backoff is 30 s, so only the release can explain a prompt admission.
 */
@QuarkusTest
@TestProfile(StrictConsistencyTest.RetryOnRelease.class)
@WithStrictApiServer
class StrictConsistencyTest extends PolicyScenario {

    public static class RetryOnRelease implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("StrictConsistency", "true", "kube-queue.backoff.initial", "30s", "kube-queue.backoff.max", "60s");
        }
    }

    @Test
    void theSmallJobMayPassButAReleaseRetriesTheWaitingJobAtOnce() {
        runningThenWaitingLargeSmall();
        admittedWithin("d-small", 10);

        cluster.complete("a-running");
        admittedWithin("b-waiting", 5);
        staysSuspended("c-large", 1);
    }

    @Test
    void aPriorityClassCreatedAfterTheJobsDecidesWhichGoesFirst() {
        cluster.submitJob("a-running", "4", Map.of(), null);
        admittedWithin("a-running", 10);
        cluster.submitJob("b-plain", "4", Map.of(), null);
        cluster.submitJob("c-urgent", "4", Map.of(), "urgent"); // the class does not exist yet: priority 0
        staysSuspended("c-urgent", 1);

        client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata()
                .withName("urgent").endMetadata().withValue(1000).build()).create();
        cluster.complete("a-running");
        admittedWithin("c-urgent", 5);
        staysSuspended("b-plain", 1);
    }
}
