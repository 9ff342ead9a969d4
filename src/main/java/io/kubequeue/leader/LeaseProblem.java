package io.kubequeue.leader;

import java.util.Optional;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Why this replica cannot take part in leader election at all, as opposed to an API server that is briefly away:
 * the Lease's namespace does not exist, or RBAC does not let the replica read or write Leases there. Neither heals
 * by retrying alone, and fabric8 would only repeat a stack trace every retry period, so each gets one log line
 * that says how to fix it, and the replica reports itself not ready meanwhile.
 *
 * @param reason  a short machine-readable reason ({@code NamespaceNotFound}, {@code Forbidden}, {@code Unauthorized})
 * @param message one line: what is wrong and how to fix it
 */
public record LeaseProblem(String reason, String message) {

    private static final String SINGLE_REPLICA = "or run a single replica without leader election"
            + " (KUBE_QUEUE_LEADER_ELECTION_ENABLED=false)";

    /**
     * The problem an API server answer shows, if it is one that retrying cannot fix: 404 for the namespace when the
     * Lease is created, 403, 401. Anything else (an outage, 5xx, a conflict) is left to fabric8's retries.
     *
     * @param error     what a Lease read or write answered
     * @param namespace the Lease's namespace
     * @param leaseName the Lease's name
     */
    public static Optional<LeaseProblem> of(KubernetesClientException error, String namespace, String leaseName) {
        String lease = "Lease " + namespace + "/" + leaseName;
        String until = "; until then this replica admits nothing and reports not ready";
        return switch (error.getCode()) {
            case 404 -> namespaceNotFound(error) ? Optional.of(new LeaseProblem("NamespaceNotFound",
                    "leader election cannot run: namespace \"" + namespace + "\" of the " + lease + " does not exist."
                            + " Fix: create it (kubectl create namespace " + namespace + "), point POD_NAMESPACE or"
                            + " KUBE_QUEUE_LEADER_ELECTION_NAMESPACE at an existing namespace, " + SINGLE_REPLICA + until))
                    : Optional.empty();
            case 403 -> Optional.of(new LeaseProblem("Forbidden", "leader election cannot run: the API server"
                    + " forbids this replica the " + lease + " (" + serverMessage(error) + "). Fix: grant get, create,"
                    + " update and patch on leases.coordination.k8s.io in namespace " + namespace + " to its"
                    + " ServiceAccount (Role kube-queue-controller-leader-election of the install manifests), "
                    + SINGLE_REPLICA + until));
            case 401 -> Optional.of(new LeaseProblem("Unauthorized", "leader election cannot run: the API server"
                    + " does not accept this replica's credentials for the " + lease + " (" + serverMessage(error)
                    + "). Fix: its kubeconfig or ServiceAccount token" + until));
            default -> Optional.empty();
        };
    }

    /** A 404 on creating an object says which is missing: the namespace, not the object itself. */
    private static boolean namespaceNotFound(KubernetesClientException error) {
        if (error.getStatus() != null && error.getStatus().getDetails() != null
                && "namespaces".equals(error.getStatus().getDetails().getKind())) {
            return true;
        }
        String message = serverMessage(error);
        return message != null && message.contains("namespaces \"") && message.contains("not found");
    }

    private static String serverMessage(KubernetesClientException error) {
        return error.getStatus() != null && error.getStatus().getMessage() != null
                ? error.getStatus().getMessage() : error.getMessage();
    }
}
