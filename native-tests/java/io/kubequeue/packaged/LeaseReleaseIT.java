package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/**
 * A leader stopped with SIGTERM (a rollout, a drained node) hands its Lease back on the way out, so another
 * replica leads at once instead of after the Lease's 15 s. It did not: JOSDK closed the shared client before
 * kube-queue released the Lease, and the release failed unseen. The default Lease timings (15 s) are used, so a
 * Lease left to run out is told apart from a released one (renewed for one second on the way out).
 */
class LeaseReleaseIT {

    @Test
    void aStoppedLeaderHandsItsLeaseBack() {
        KubernetesMockServer api = PackagedOperator.mockApiServer();
        try (KubernetesClient client = api.createClient();
             PackagedOperator leader = PackagedOperator.start("replica-stopped", client.getConfiguration().getMasterUrl(),
                     Map.of())) {
            await("leads").atMost(Duration.ofSeconds(90)).until(() -> leader.ready() && leader.leads());

            int exit = leader.stop();
            assertTrue(exit == 0 || exit == 143, "ended by SIGTERM: " + exit + "; log: " + leader.logFile());
            // fabric8 releases by renewing for one second (the holder's name stays): it must run out at once
            Lease lease = client.leases().inNamespace("kube-queue").withName("kube-queue-leader").get();
            Instant runsOut = lease.getSpec().getRenewTime().toInstant()
                    .plusSeconds(lease.getSpec().getLeaseDurationSeconds());
            assertTrue(runsOut.isBefore(Instant.now().plusSeconds(2)), "the stopped leader's Lease runs until "
                    + runsOut + "; log: " + leader.logFile().toAbsolutePath());
        } finally {
            api.destroy();
        }
    }
}
