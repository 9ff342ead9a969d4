package io.kubequeue.operator;

import org.jboss.logging.Logger;

import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationService;

/**
 * JOSDK's {@link Operator}, which a shutdown may stop while it is still starting its controllers.
 *
 * <p>Why: QOSDK starts the operator in the background ({@code quarkus.operator-sdk.async-start}), and JOSDK's start
 * waits for each controller's informer to list, up to the cache-sync timeout (15 s): for a kind the cluster does not
 * serve (one of the two MPIJob versions, Argo, …) it waits out the whole timeout. A SIGTERM meanwhile makes QOSDK
 * stop the operator; JOSDK's {@link Operator#stop()} on an operator not yet started only shuts its executors down,
 * which interrupts the controllers still starting, and the start then fails ({@code RejectedExecutionException},
 * {@code InterruptedException}) with {@code OperatorException: Error starting operator}, thrown out of QOSDK's
 * start task and logged at ERROR by Quarkus' executor, on every such shutdown (issue 32).
 *
 * <p>Here a start that ends because a stop was asked for meanwhile is what it is, a start cancelled by the
 * shutdown: one line at INFO, nothing thrown. A start that fails without a stop is thrown as before. {@link
 * #stopRequested()} lets the log filter drop JOSDK's own warnings about those interrupted starts ({@link
 * RepeatedFailureLogFilter}).
 */
public class StoppableOperator extends Operator {

    private static final Logger LOG = Logger.getLogger(StoppableOperator.class);

    /** Set by the first {@link #stop()} (one operator per process). */
    private static volatile boolean stopRequested;

    private volatile boolean starting;

    /** @param configuration the configuration service, as for {@link Operator#Operator(ConfigurationService)} */
    public StoppableOperator(ConfigurationService configuration) {
        super(configuration);
    }

    /** Whether the operator of this process has been asked to stop (its starts and stops may be interrupted). */
    public static boolean stopRequested() {
        return stopRequested;
    }

    /** For tests of what depends on it (the log filter): as if the operator had, or had not, been asked to stop. */
    static void stopRequested(boolean requested) {
        stopRequested = requested;
    }

    @Override
    public void start() {
        starting = true;
        try {
            super.start();
        } catch (RuntimeException e) {
            if (!stopRequested) {
                throw e;
            }
            // JOSDK's start has already stopped its executors again; the informers that did start end with the
            // client, as the process does
            LOG.infof("the operator was stopped while it started its controllers: their start is cancelled");
        } finally {
            starting = false;
        }
    }

    @Override
    public void stop() {
        stopRequested = true;
        if (starting) {
            LOG.debugf("stopping the operator while its controllers start");
        }
        super.stop();
    }
}
