package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletionException;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;

class RepeatedFailureLogFilterTest {

    private static final String REFLECTOR = "io.fabric8.kubernetes.client.informers.impl.cache.Reflector";
    private static final String ELECTOR = "io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector";
    private final RepeatedFailureLogFilter filter = new RepeatedFailureLogFilter();

    private static LogRecord record(String logger, Throwable thrown) {
        LogRecord r = new LogRecord(Level.WARNING, "listSyncAndWatch failed for argoproj.io/v1alpha1/workflows, will retry");
        r.setLoggerName(logger);
        r.setThrown(thrown);
        return r;
    }

    private static KubernetesClientException answered(int code, String message) {
        return new KubernetesClientException(new StatusBuilder().withCode(code).withMessage(message).build());
    }

    @Test
    void dropsOnlyTheInformerRetryWarningsOfKindsNotServed() {
        assertFalse(filter.isLoggable(record(REFLECTOR,
                new CompletionException(new KubernetesClientException("not found", 404, null)))));
        assertTrue(filter.isLoggable(record(REFLECTOR,
                new CompletionException(new KubernetesClientException("forbidden", 403, null)))), "RBAC problems stay");
        assertTrue(filter.isLoggable(record(REFLECTOR, null)));
        assertTrue(filter.isLoggable(record("io.kubequeue.operator.StartupRecovery",
                new KubernetesClientException("not found", 404, null))), "only fabric8's informer retries");
    }

    @Test
    void dropsLeaderElectionRetriesOnlyForLeaseProblemsKubeQueueReportsItself() {
        assertFalse(filter.isLoggable(record(ELECTOR, answered(404, "namespaces \"kube-queue\" not found"))));
        assertFalse(filter.isLoggable(record(ELECTOR, answered(403,
                "leases.coordination.k8s.io is forbidden: User \"x\" cannot create resource \"leases\""))));
        assertTrue(filter.isLoggable(record(ELECTOR, answered(500, "etcdserver: request timed out"))),
                "an outage is still logged by fabric8");
        assertTrue(filter.isLoggable(record(ELECTOR, answered(404, "leases \"kube-queue-leader\" not found"))),
                "a missing Lease is not a missing namespace");
    }

    /** Issue 32: JOSDK's warnings of controller starts interrupted, only once the operator is asked to stop. */
    @Test
    void dropsInterruptedControllerStartsOnlyOnceTheOperatorStops() {
        String executors = "io.javaoperatorsdk.operator.api.config.ExecutorServiceManager";
        try {
            StoppableOperator.stopRequested(false);
            assertTrue(filter.isLoggable(record(executors, new InterruptedException())), "an interrupt while running");
            StoppableOperator.stopRequested(true);
            assertFalse(filter.isLoggable(record(executors, new InterruptedException())));
            assertTrue(filter.isLoggable(record(executors, new IllegalStateException())), "only interrupts");
            assertTrue(filter.isLoggable(record(REFLECTOR, new InterruptedException())), "only JOSDK's executors");
        } finally {
            StoppableOperator.stopRequested(false);
        }
    }

    /** Issue 29, item 5: JOSDK's informer start-up timeout keeps its line and loses its stack trace. */
    @Test
    void theInformerStartupTimeoutIsOneLine() {
        String wrapper = "io.javaoperatorsdk.operator.processing.event.source.informer.InformerWrapper";
        LogRecord timedOut = record(wrapper, new io.javaoperatorsdk.operator.OperatorException(
                new java.util.concurrent.TimeoutException()));
        assertTrue(filter.isLoggable(timedOut), "the line stays");
        assertEquals(null, timedOut.getThrown(), "without its trace");
        LogRecord other = record(wrapper, new IllegalStateException("something else"));
        assertTrue(filter.isLoggable(other));
        assertTrue(other.getThrown() != null, "any other failure keeps its trace");
    }
}
