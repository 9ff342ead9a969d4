package io.kubequeue.operator;

import java.util.Optional;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import io.kubequeue.leader.Leadership;
import io.kubequeue.leader.LeaseProblem;

/**
 * The readiness check {@code kube-queue-recovery}: start-up's step "readiness" calls {@link #recovered()} once
 * recovery is done.
 */
@Singleton
@Readiness
public class RecoveryReadiness implements HealthCheck {

    private final Leadership leadership;
    private final RecordKeySecret recordKey;
    private volatile boolean recovered;

    /** Built by CDI; both null in a bare test instance, which only reports. */
    public RecoveryReadiness(Leadership leadership, RecordKeySecret recordKey) {
        this.leadership = leadership;
        this.recordKey = recordKey;
    }

    /** Start-up recovery is done: ready, unless leader election cannot take part. */
    void recovered() {
        recovered = true;
    }

    /**
     * Ready once start-up recovery is done (DOWN before): from then on this replica serves the read API and
     * metrics; it admits only while it leads. DOWN again while it cannot take part in leader election (its
     * Lease's namespace missing, RBAC), with the reason and the fix as data {@code leaderElection}; while start-up
     * waits for the record key, the reason and the fix are data {@code recordKey}.
     */
    @Override
    public HealthCheckResponse call() {
        // no leadership yet: the check asked before the bean is wired (HealthTest builds one bare)
        Optional<LeaseProblem> lease = leadership == null ? Optional.empty() : leadership.problem();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("kube-queue-recovery")
                .status(recovered && lease.isEmpty()).withData("role", leadership == null ? "starting" : leadership.role());
        lease.ifPresent(p -> response.withData("leaderElection", p.message()));
        if (recordKey != null) {
            recordKey.problem().ifPresent(p -> response.withData("recordKey", p));
        }
        return response.build();
    }
}
