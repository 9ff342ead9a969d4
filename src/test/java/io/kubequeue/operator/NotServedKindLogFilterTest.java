package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletionException;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClientException;

class NotServedKindLogFilterTest {

    private static final String REFLECTOR = "io.fabric8.kubernetes.client.informers.impl.cache.Reflector";

    private static LogRecord record(String logger, Throwable thrown) {
        LogRecord r = new LogRecord(Level.WARNING, "listSyncAndWatch failed for argoproj.io/v1alpha1/workflows, will retry");
        r.setLoggerName(logger);
        r.setThrown(thrown);
        return r;
    }

    @Test
    void dropsOnlyTheInformerRetryWarningsOfKindsNotServed() {
        NotServedKindLogFilter filter = new NotServedKindLogFilter();
        assertFalse(filter.isLoggable(record(REFLECTOR,
                new CompletionException(new KubernetesClientException("not found", 404, null)))));
        assertTrue(filter.isLoggable(record(REFLECTOR,
                new CompletionException(new KubernetesClientException("forbidden", 403, null)))), "RBAC problems stay");
        assertTrue(filter.isLoggable(record(REFLECTOR, null)));
        assertTrue(filter.isLoggable(record("io.kubequeue.operator.StartupRecovery",
                new KubernetesClientException("not found", 404, null))), "only fabric8's informer retries");
    }
}
