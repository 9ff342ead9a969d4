package io.kubequeue.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;

/** Which Lease answers mean "this replica cannot take part", and the one line that says how to fix each. */
class LeaseProblemTest {

    private static Optional<LeaseProblem> of(int code, String message) {
        return LeaseProblem.of(new KubernetesClientException(new StatusBuilder().withCode(code).withMessage(message)
                .build()), "ops", "kube-queue-leader");
    }

    @Test
    void aMissingNamespaceNamesItAndTheThreeFixes() {
        LeaseProblem p = of(404, "namespaces \"ops\" not found").orElseThrow();
        assertEquals("NamespaceNotFound", p.reason());
        assertTrue(p.message().contains("namespace \"ops\" of the Lease ops/kube-queue-leader does not exist")
                && p.message().contains("kubectl create namespace ops")
                && p.message().contains("KUBE_QUEUE_LEADER_ELECTION_NAMESPACE")
                && p.message().contains("KUBE_QUEUE_LEADER_ELECTION_ENABLED=false"), p.message());
    }

    @Test
    void forbiddenQuotesTheServerAndNamesTheRole() {
        LeaseProblem p = of(403, "leases.coordination.k8s.io is forbidden: User \"x\" cannot create resource \"leases\"")
                .orElseThrow();
        assertEquals("Forbidden", p.reason());
        assertTrue(p.message().contains("User \"x\" cannot create resource \"leases\"")
                && p.message().contains("kube-queue-controller-leader-election"), p.message());
    }

    @Test
    void whatRetryingCanFixIsNoProblem() {
        assertTrue(of(404, "leases.coordination.k8s.io \"kube-queue-leader\" not found").isEmpty(),
                "a missing Lease is created by the election");
        assertTrue(of(409, "the object has been modified").isEmpty());
        assertTrue(of(500, "etcdserver: request timed out").isEmpty());
        assertTrue(of(0, "connect timed out").isEmpty());
    }
}
