package io.kubequeue.operator;

import java.nio.file.Files;
import java.nio.file.Path;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.client.Config;

/**
 * Says, in one start-up line, which API server kube-queue talks to and where that came from (a kubeconfig
 * context, the pod's ServiceAccount, or explicit settings). Run outside a cluster with no kubeconfig, fabric8
 * falls back to the in-cluster address {@code https://kubernetes.default.svc}, which only resolves inside a pod:
 * every call then fails with timeouts and stack traces that never say why, so that case is a WARN with the fix.
 */
final class ApiServerTarget {

    private static final Logger LOG = Logger.getLogger(ApiServerTarget.class);
    private static final String IN_CLUSTER_HOST = "kubernetes.default.svc";

    private ApiServerTarget() {
    }

    /** Logs the line for this client configuration (INFO, or WARN when nothing points at a cluster). */
    static void log(Config config) {
        boolean inPod = Files.isRegularFile(Path.of(Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH));
        String context = config.getCurrentContext() == null ? null : config.getCurrentContext().getName();
        String line = describe(config.getMasterUrl(), context, inPod);
        if (unconfigured(config.getMasterUrl(), context, inPod)) {
            LOG.warn(line);
        } else {
            LOG.info(line);
        }
    }

    /**
     * The start-up line.
     *
     * @param masterUrl the API server's URL as fabric8 resolved it
     * @param context   the kubeconfig context in use, or null when no kubeconfig was read
     * @param inPod     whether a ServiceAccount token is mounted (kube-queue runs in a pod)
     */
    static String describe(String masterUrl, String context, boolean inPod) {
        if (unconfigured(masterUrl, context, inPod)) {
            return "API server " + masterUrl + ": no kubeconfig was found and this is not a pod, so this in-cluster"
                    + " address cannot be reached. Fix: set KUBECONFIG (or ~/.kube/config), or KUBERNETES_MASTER";
        }
        String from = context != null ? "kubeconfig context " + context
                : inPod ? "this pod's ServiceAccount" : "KUBERNETES_MASTER or kubernetes.master";
        return "API server " + masterUrl + " (" + from + ")";
    }

    private static boolean unconfigured(String masterUrl, String context, boolean inPod) {
        return context == null && !inPod && masterUrl != null && masterUrl.contains("//" + IN_CLUSTER_HOST);
    }
}
