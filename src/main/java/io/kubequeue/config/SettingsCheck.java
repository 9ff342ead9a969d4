package io.kubequeue.config;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every check of kube-queue's settings in one place: each setting is read once (so that each converter, which refuses
 * a value outside its {@link SettingRanges range} or not among the valid values, runs at start-up whether or not the
 * config mapping converts lazily), then the rules that tie settings together. Start-up calls {@link #check} before
 * anything else; a part that needs a rule on its own (the Lease's timings) calls that rule here.
 */
public final class SettingsCheck {

    private SettingsCheck() {
    }

    /**
     * Reads and checks every setting.
     *
     * @param kinds the job kinds kube-queue knows, as their {@code kind} (e.g. {@code TFJob}): what
     *              {@code kube-queue.disabled-kinds} may name
     * @throws IllegalArgumentException (or SmallRye's wrapper of it) naming the setting and what is valid
     */
    public static void check(KubeQueueConfig config, Set<String> kinds) {
        readEverySetting(config);
        if (config.leaderElection().enabled()) {
            leaseTimings(config.leaderElection());
        }
        backoff(config.backoff());
        disabledKinds(config, kinds);
    }

    /**
     * client-go's rule for a Lease: lease-duration &gt; renew-deadline &gt; retry-period &gt; 0, else two leaders may
     * overlap.
     *
     * @throws IllegalArgumentException naming the three values
     */
    public static void leaseTimings(KubeQueueConfig.LeaderElection c) {
        if (c.leaseDuration().compareTo(c.renewDeadline()) > 0 && c.renewDeadline().compareTo(c.retryPeriod()) > 0
                && c.retryPeriod().compareTo(Duration.ZERO) > 0) {
            return;
        }
        throw new IllegalArgumentException(String.format("kube-queue.leader-election: lease-duration (%s) must be "
                + "longer than renew-deadline (%s), and renew-deadline longer than retry-period (%s), which must be "
                + "above zero", c.leaseDuration(), c.renewDeadline(), c.retryPeriod()));
    }

    /** @throws IllegalArgumentException unless initial &le; max (each is in its range already) */
    static void backoff(KubeQueueConfig.Backoff b) {
        if (b.initial().compareTo(b.max()) > 0) {
            throw new IllegalArgumentException("kube-queue.backoff: initial (" + b.initial()
                    + ") must not be longer than max (" + b.max() + ")");
        }
    }

    /** @throws IllegalArgumentException naming the valid kinds if {@code kube-queue.disabled-kinds} names another */
    static void disabledKinds(KubeQueueConfig config, Set<String> kinds) {
        Set<String> known = new TreeSet<>(kinds);
        for (String kind : new TreeSet<>(config.disabledKindNames())) {
            if (!known.contains(kind)) {
                throw new IllegalArgumentException("kube-queue.disabled-kinds: unknown kind '" + kind
                        + "'; valid kinds: " + String.join(", ", known));
            }
        }
    }

    /** Reads each setting once: a converter that refuses a value throws here (a config mapping may convert lazily). */
    static void readEverySetting(KubeQueueConfig c) {
        c.queueGroupPlugin();
        c.strictPriority();
        c.strictConsistency();
        SettingRanges.FIRST_LIST_TIMEOUT.check(c.firstListTimeout()); // also when a test builds the mapping bare
        c.disabledKinds();
        c.watchNamespaces();
        c.shutdownDeadline();
        c.admissionTimeout();
        c.reclaim().enabled();
        c.reclaim().maxPerHour();
        c.backoff().initial();
        c.backoff().max();
        c.elasticQuota().namespace();
        c.admission().inFlight();
        c.admission().workers();
        c.admission().batchWindow();
        c.leaderElection().enabled();
        c.leaderElection().leaseDuration();
        c.leaderElection().renewDeadline();
        c.leaderElection().retryPeriod();
        c.events().rate();
        c.events().burst();
        c.events().aggregateInterval();
        c.events().maxWait();
        c.events().queueSize();
        c.estimates().enabled();
        c.estimates().interval();
        c.estimates().horizon();
        c.estimates().maxCycles();
        c.readApi().authentication();
        c.readApi().cacheFor();
    }
}
