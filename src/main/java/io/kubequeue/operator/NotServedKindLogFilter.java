package io.kubequeue.operator;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.logging.LoggingFilter;

/**
 * Drops fabric8's retry warning for an informer whose kind the API server does not serve (404): a cluster
 * serves only one of the two MPIJob versions, and often no Argo, so these warnings would repeat, with a stack
 * trace, every half minute forever. Start-up recovery has already said once which kinds are left out; every
 * other informer failure (403, 500, timeouts) is still logged.
 */
@LoggingFilter(name = "kube-queue-not-served-kinds")
public final class NotServedKindLogFilter implements Filter {

    @Override
    public boolean isLoggable(LogRecord record) {
        String logger = record.getLoggerName();
        if (logger == null || !logger.endsWith(".informers.impl.cache.Reflector")) {
            return true;
        }
        for (Throwable t = record.getThrown(); t != null; t = t.getCause()) {
            if (t instanceof KubernetesClientException e && e.getCode() == 404) {
                return false;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return true;
    }
}
