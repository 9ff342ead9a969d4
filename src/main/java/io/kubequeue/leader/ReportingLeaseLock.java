package io.kubequeue.leader;

import java.util.function.Supplier;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;

/**
 * fabric8's {@link LeaseLock}, unchanged, except that each read and write of the Lease reports whether it shows a
 * {@link LeaseProblem}: fabric8's elector catches every failure itself and only logs it, so this is where
 * kube-queue learns that leader election cannot run.
 */
final class ReportingLeaseLock implements Lock {

    /** What one call on the Lease showed. */
    interface Outcome {
        /** A write (create, update) went through, or a read found the Lease: the Lease can be used. */
        void usable(boolean wrote);

        /** The Lease cannot be used, and retrying alone will not change that. */
        void problem(LeaseProblem problem);
    }

    private final LeaseLock lock;
    private final String namespace;
    private final String name;
    private final Outcome outcome;

    ReportingLeaseLock(String namespace, String name, String identity, Outcome outcome) {
        this.lock = new LeaseLock(namespace, name, identity);
        this.namespace = namespace;
        this.name = name;
        this.outcome = outcome;
    }

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
        LeaderElectionRecord record = reported(() -> lock.get(client));
        if (record != null) {
            outcome.usable(false);
        }
        return record;
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
        write(() -> lock.create(client, record));
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
        write(() -> lock.update(client, record));
    }

    private void write(Runnable write) {
        reported(() -> {
            write.run();
            return null;
        });
        outcome.usable(true);
    }

    @Override
    public String identity() {
        return lock.identity();
    }

    @Override
    public String describe() {
        return lock.describe();
    }

    private <T> T reported(Supplier<T> call) {
        try {
            return call.get();
        } catch (KubernetesClientException e) {
            LeaseProblem.of(e, namespace, name).ifPresent(outcome::problem);
            throw e;
        }
    }
}
