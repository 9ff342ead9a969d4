package io.kubequeue.leader;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Event;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.SettingsCheck;

/**
 * Which replica leads: fabric8's leader election on a Lease. Only the leader admits and writes (admission patches,
 * conditions, events); every replica keeps its scheduler fed by the informers and serves the read API and metrics.
 * A replica that loses the Lease stops writing at once and competes again. One that gains it admits from the state
 * its informers kept current all along: a leader that cannot renew gives up at its renew deadline, before its
 * Lease can expire, so its last admissions are known by then (the timing client-go's leader election relies on;
 * fabric8 checks the deadline between its calls, so a very slow API server can delay the give-up, see
 * docs/architecture.md).
 */
@Singleton
public class Leadership {

    private static final Logger LOG = Logger.getLogger(Leadership.class);

    private final KubernetesClient client;
    private final KubeQueueConfig.LeaderElection config;
    private final String identity;
    /** Told, asynchronously, of each term this replica starts to lead ({@link ReadApiLeaderAddress} publishes it). */
    private final Event<Term> terms;
    private final ExecutorService elections = Executors.newSingleThreadExecutor(DaemonThreads.named("kube-queue-leader"));
    private final java.util.concurrent.ScheduledExecutorService retries =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kube-queue-leader-retry"));
    private volatile boolean leader;
    /** Bumped at every start and stop of leading, so a confirmation still waiting for an old term gives up. */
    private final AtomicLong term = new AtomicLong();
    private volatile boolean stopped;
    private volatile CompletableFuture<?> running;
    /** Why the Lease cannot be used now, if it cannot (for readiness); empty while it can or is not tried yet. */
    private volatile Optional<LeaseProblem> problem = Optional.empty();
    /** The problem last logged: each is logged once, until a write of the Lease shows it solved. */
    private LeaseProblem logged;
    private final ReportingLeaseLock.Outcome leaseOutcome = new ReportingLeaseLock.Outcome() {
        @Override
        public void usable(boolean wrote) {
            problem = Optional.empty();
            if (wrote) {
                announceTerm();
                synchronized (this) {
                    if (logged != null) {
                        LOG.infof("leader election runs: the Lease is written, the earlier problem (%s) is gone",
                                logged.reason());
                        logged = null;
                    }
                }
            }
        }

        @Override
        public void problem(LeaseProblem p) {
            problem = Optional.of(p);
            synchronized (this) {
                if (!p.equals(logged)) {
                    LOG.error(p.message());
                    logged = p;
                }
            }
        }
    };

    /**
     * @throws IllegalArgumentException unless lease-duration &gt; renew-deadline &gt; retry-period &gt; 0 (as
     *                                  client-go's leader election requires), naming the settings
     */
    public Leadership(KubernetesClient client, KubeQueueConfig config, Event<Term> terms) {
        this.client = client;
        this.config = config.leaderElection();
        this.terms = terms;
        if (this.config.enabled()) {
            SettingsCheck.leaseTimings(this.config);
        }
        this.identity = this.config.identity().filter(i -> !i.isBlank())
                .or(() -> Optional.ofNullable(System.getenv("HOSTNAME")).filter(h -> !h.isBlank()))
                .orElse("kube-queue-" + UUID.randomUUID().toString().substring(0, 8));
    }

    /** The term last announced to {@link Term}'s observers, so that each term is announced once. */
    private final AtomicLong announced = new AtomicLong();

    /**
     * Announces a confirmed term at this replica's first write of the Lease in it (called on the elector's thread
     * just after the write): the observers' own writes of the Lease then fall into the retry period before the next
     * renewal, not between a renewal's read and its write, where they would make it fail with a conflict.
     */
    private void announceTerm() {
        long now;
        synchronized (term) {
            now = term.get();
            if (!leader || announced.getAndSet(now) == now) {
                return;
            }
        }
        terms.fireAsync(new Term(now));
    }

    /** Whether this replica leads now (always, when leader election is off). */
    public boolean isLeader() {
        return leader;
    }

    /**
     * Why this replica cannot take part in leader election, if it cannot (its Lease's namespace is missing, RBAC
     * refuses it): it then admits nothing and reports not ready. Empty with leader election off.
     */
    public Optional<LeaseProblem> problem() {
        return problem;
    }

    /** {@code leader} or {@code follower}, for the {@code replica_role} label. */
    public String role() {
        return leader ? "leader" : "follower";
    }

    /**
     * kube-queue's own namespace, where its Lease (and its record key's Secret) live:
     * {@code kube-queue.leader-election.namespace}, else {@code POD_NAMESPACE}, else {@code kube-queue}. The same with
     * leader election off.
     */
    public String namespace() {
        return config.namespace().or(() -> Optional.ofNullable(System.getenv("POD_NAMESPACE")))
                .filter(n -> !n.isBlank()).orElse("kube-queue");
    }

    /** This replica's identity in the Lease (the pod name). */
    public String identity() {
        return identity;
    }

    /** Whether replicas elect a leader on a Lease ({@code kube-queue.leader-election.enabled}). */
    public boolean elects() {
        return config.enabled();
    }


    /** The Lease's name. */
    public String leaseName() {
        return config.leaseName();
    }

    /**
     * One term of this replica's leadership, fired (asynchronously, as a CDI event) once it is confirmed, just
     * after this replica's first renewal of the Lease in it: this replica is reported leader from then on, until
     * {@link #isLeader()} turns false or {@link #termNumber()} moves on. Not fired with leader election off (the
     * only replica leads, and no one needs to find it).
     *
     * @param number {@link #termNumber()} while the term lasts; it grows with every start and end of a term
     */
    public record Term(long number) {
    }

    /** The number of the current or last term (it changes when a term starts and when it ends); 0 before any. */
    public long termNumber() {
        return term.get();
    }

    /**
     * Starts competing for the Lease, or leads at once if leader election is off.
     *
     * @param onLeading  run on a thread of its own when this replica starts to lead (it is already reported
     *                   leader; it must check {@link #isLeader()} before it starts admitting)
     * @param onStopping run when it stops leading, after it is reported follower
     */
    public void start(Runnable onLeading, Runnable onStopping) {
        if (!config.enabled()) {
            leader = true;
            onLeading.run();
            LOG.info("leader election off: this replica admits");
            return;
        }
        String namespace = namespace();
        LOG.infof("competing for Lease %s/%s as %s", namespace, config.leaseName(), identity);
        compete(namespace, onLeading, onStopping);
    }

    private void compete(String namespace, Runnable onLeading, Runnable onStopping) {
        if (stopped) {
            return;
        }
        LeaderElector elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName("kube-queue")
                .withLock(new ReportingLeaseLock(namespace, config.leaseName(), identity, leaseOutcome))
                .withLeaseDuration(config.leaseDuration())
                .withRenewDeadline(config.renewDeadline())
                .withRetryPeriod(config.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(
                        () -> {
                            long myTerm = term.incrementAndGet();
                            Instant told = Instant.now();
                            // off the elector's thread: renewals go on meanwhile
                            elections.execute(() -> leadOnceConfirmed(namespace, myTerm, told, onLeading));
                        },
                        () -> {
                            boolean was;
                            synchronized (term) { // no confirmation can set leader after this
                                term.incrementAndGet();
                                was = leader;
                                leader = false;
                            }
                            if (was) {
                                LOG.warnf("%s lost the Lease: no longer admitting", identity);
                            }
                            onStopping.run();
                        },
                        newLeader -> LOG.infof(newLeader == null ? "no replica holds the Lease now"
                                : "the leader is %s", newLeader)))
                .build()).build();
        CompletableFuture<?> started = elector.start();
        running = started;
        if (stopped) {
            started.cancel(true);
            return;
        }
        started.whenComplete((done, error) -> {
            leader = false;
            if (error != null && !(error instanceof java.util.concurrent.CancellationException)) {
                LOG.warnf("leader election failed (%s); competing again in %s", error.getMessage(), config.retryPeriod());
            }
            if (!stopped) {
                // lost, or the election failed: compete again after a pause, as a follower first
                retries.schedule(() -> elections.execute(() -> compete(namespace, onLeading, onStopping)),
                        config.retryPeriod().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        });
    }

    /**
     * fabric8 says "leading" as soon as it reads this replica's name in the Lease, before it has written anything:
     * a Lease left from before a failed renewal (or a restart under the same pod name) would be taken for
     * leadership while another replica may already be taking the expired Lease over. So this replica leads only
     * once the Lease shows a renewal by it made after it was told it leads: a write that got through, which no
     * other replica can make in its name. That costs at most one retry period at the start of a term.
     */
    private void leadOnceConfirmed(String namespace, long myTerm, Instant told, Runnable onLeading) {
        long poll = Math.max(50, Math.min(500, config.retryPeriod().toMillis() / 2));
        while (!stopped && term.get() == myTerm) {
            if (renewedSince(namespace, told)) {
                synchronized (term) {
                    if (stopped || term.get() != myTerm) {
                        return; // lost (or stopped) while the Lease was read
                    }
                    leader = true;
                }
                LOG.infof("%s leads: admitting", identity);
                onLeading.run();
                return;
            }
            try {
                Thread.sleep(poll);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private boolean renewedSince(String namespace, Instant told) {
        try {
            Lease lease = client.leases().inNamespace(namespace).withName(config.leaseName()).get();
            return lease != null && lease.getSpec() != null && identity.equals(lease.getSpec().getHolderIdentity())
                    && lease.getSpec().getRenewTime() != null && lease.getSpec().getRenewTime().toInstant().isAfter(told);
        } catch (KubernetesClientException e) {
            LOG.debugf(e, "could not read Lease %s/%s", namespace, config.leaseName());
            return false;
        }
    }

    /** Gives up the Lease (another replica takes over at once) and stops competing. Idempotent. */
    @PreDestroy
    public void stop() {
        if (stopped) {
            return;
        }
        synchronized (term) {
            stopped = true;
            leader = false;
        }
        CompletableFuture<?> r = running;
        if (r != null) {
            r.cancel(true); // releases the Lease (releaseOnCancel), so another replica takes over at once
        }
        elections.shutdownNow();
        retries.shutdownNow();
    }
}
