package io.kubequeue.operator;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.leader.LeaseProblem;
import io.quarkus.logging.LoggingFilter;

/**
 * Drops fabric8's warnings that would repeat, each with a stack trace, for as long as the cluster stays as it is,
 * where kube-queue has already said once, in one line, what is wrong:
 * <ul>
 *   <li>an informer's retry for a kind the API server does not serve (404): a cluster serves only one of the two
 *       MPIJob versions, and often no Argo; start-up recovery names each kind left out;</li>
 *   <li>the stack trace of JOSDK's "Informer startup error" past the cache-sync timeout (the line stays): for a kind
 *       not served it came at every start;</li>
 *   <li>leader election's retry when the Lease cannot be used at all (its namespace missing, RBAC): {@link
 *       io.kubequeue.leader.Leadership} logs the {@link LeaseProblem} with its fix.</li>
 *   <li>once the operator is asked to stop, JOSDK's "Interrupted." warning, with a stack trace, of each controller
 *       whose start the stop interrupted (a SIGTERM within the cache-sync timeout of start-up, with a kind not
 *       served): {@link StoppableOperator} says in one line that their start is cancelled (issue 32).</li>
 * </ul>
 * Every other failure (403 on jobs, 500, timeouts) is still logged.
 */
@LoggingFilter(name = "kube-queue-repeated-failures")
public final class RepeatedFailureLogFilter implements Filter {

    private static boolean timedOut(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.util.concurrent.TimeoutException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        String logger = record.getLoggerName();
        if (logger == null) {
            return true;
        }
        if (logger.endsWith(".informer.InformerWrapper") && timedOut(record.getThrown())) {
            // JOSDK's "Informer startup error. Will periodically retry. Informer: <kind>: TimeoutException", past
            // the cache-sync timeout for a kind not served (recovery named it) or slow: the line says it all, the
            // stack trace of a timeout says nothing, and came at every start (issue 29)
            record.setThrown(null);
            return true;
        }
        if (logger.endsWith(".api.config.ExecutorServiceManager")
                && record.getThrown() instanceof InterruptedException && StoppableOperator.stopRequested()) {
            return false; // a controller's start interrupted by the shutdown: StoppableOperator said so
        }
        boolean informer = logger.endsWith(".informers.impl.cache.Reflector");
        boolean leaderElection = logger.endsWith(".extended.leaderelection.LeaderElector");
        if (!informer && !leaderElection) {
            return true;
        }
        for (Throwable t = record.getThrown(); t != null; t = t.getCause()) {
            if (t instanceof KubernetesClientException e) {
                if (informer && e.getCode() == 404) {
                    return false;
                }
                if (leaderElection && LeaseProblem.of(e, "", "").isPresent()) {
                    return false;
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return true;
    }
}
