package io.kubequeue.config;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;

/**
 * kube-queue's settings. Each is a property under {@code kube-queue.}; the seed's env vars
 * ({@code QueueGroupPlugin}, {@code StrictPriority}, {@code StrictConsistency}) feed them through
 * {@code application.properties}, so {@code kubectl edit deploy kube-queue-controller -nkube-queue} works as the
 * seed says. An invalid value stops start-up with a message that names the valid values.
 */
@ConfigMapping(prefix = "kube-queue")
public interface KubeQueueConfig {

    /** {@code QueueGroupPlugin}: {@code elasticquota} (default) or {@code resourcequota}. */
    @WithConverter(QueueGroupPluginConverter.class)
    @WithDefault("elasticquota")
    QueueGroupPlugin queueGroupPlugin();

    /** {@code StrictPriority}: blocking queue, only the head of each group is tried. */
    @WithConverter(StrictBooleanConverter.StrictPriority.class)
    @WithDefault("false")
    Boolean strictPriority();

    /** {@code StrictConsistency}: on every release retry backed-off jobs at once, highest priority first. */
    @WithConverter(StrictBooleanConverter.StrictConsistency.class)
    @WithDefault("false")
    Boolean strictConsistency();

    /**
     * {@code KUBE_QUEUE_LOG_JSON}: whether log lines are JSON objects (Quarkus' JSON logging, which reads the same
     * value through {@code quarkus.log.console.json.enabled}) rather than text. Only {@code true} and {@code false}:
     * this setting is read here so that a typo stops start-up instead of leaving the logs as text.
     */
    @WithConverter(StrictBooleanConverter.class)
    @WithDefault("false")
    boolean logJson();

    /**
     * How long start-up waits for the first list of quota objects. Past it kube-queue starts with no quota
     * groups (every job held) and applies them as soon as the list succeeds. From 0s to 1h ({@link SettingRanges}).
     */
    @WithConverter(SettingRanges.FirstListTimeout.class)
    @WithDefault("30s")
    Duration firstListTimeout();

    /**
     * Job kinds kube-queue leaves alone, by kind name: {@code Job}, {@code TFJob}, {@code PyTorchJob},
     * {@code MPIJob}, {@code Workflow} (comma-separated in the env var {@code KUBE_QUEUE_DISABLED_KINDS}). Their
     * jobs are neither queued nor admitted, and their informers watch nothing. An unknown name stops start-up.
     */
    Optional<Set<String>> disabledKinds();

    /**
     * Namespaces whose jobs kube-queue manages (comma-separated in {@code KUBE_QUEUE_WATCH_NAMESPACES}); unset:
     * every namespace. A suspended job elsewhere is left alone, as for a kind switched off, and the job kinds'
     * informers watch only these namespaces.
     */
    Optional<Set<String>> watchNamespaces();

    /**
     * Where a job of a managed kind created without its suspend mark (so never queued) is charged all the same, as
     * running outside kube-queue, with a {@code StartedOutsideQueue} Warning (comma-separated in
     * {@code KUBE_QUEUE_CHARGE_UNSUSPENDED_IN}): namespace names, or {@value #EVERY_QUOTA_GROUP} for every
     * namespace a quota group in force lists. Unset: nowhere, as the original (docs/security.md, "Jobs that skip the
     * queue"). Such a job still runs (nothing stops it without a webhook), but its group's room shrinks by its request,
     * so the queued jobs are not admitted past the quota on top of it.
     */
    Optional<Set<String>> chargeUnsuspendedIn();

    /** {@link #chargeUnsuspendedIn()}'s word for every namespace a quota group lists (no namespace can be named so). */
    String EVERY_QUOTA_GROUP = "*";

    /** {@link #chargeUnsuspendedIn()}, each entry trimmed; empty: nowhere. */
    default Set<String> chargeUnsuspendedInNames() {
        return trimmed(chargeUnsuspendedIn());
    }

    /** {@link #watchNamespaces()}, each name trimmed; empty: every namespace. */
    default Set<String> watchedNamespaceNames() {
        return trimmed(watchNamespaces());
    }

    /** {@link #disabledKinds()}, each name trimmed ({@code "TFJob, Workflow"} is written as people write lists). */
    default Set<String> disabledKindNames() {
        return trimmed(disabledKinds());
    }

    /** A comma-separated list's names, trimmed, blanks left out. */
    private static Set<String> trimmed(Optional<Set<String>> names) {
        return names.orElse(Set.of()).stream().map(String::trim).filter(n -> !n.isEmpty())
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
    }

    /**
     * How long a stopping replica may take (env {@code KUBE_QUEUE_SHUTDOWN_DEADLINE}): past it the process halts,
     * whatever its threads are doing (a call to an API server that never answers, a thread broken by an
     * OutOfMemoryError), so that it ends by itself within the pod's {@code terminationGracePeriodSeconds}
     * (30 s in the shipped manifests) instead of being killed, or hanging outside Kubernetes. From 1s to 1h, or
     * start-up fails.
     */
    @WithConverter(SettingRanges.ShutdownDeadline.class)
    @WithDefault("25s")
    Duration shutdownDeadline();

    /**
     * How long an admitted job may go without a pod that runs (env {@code KUBE_QUEUE_ADMISSION_TIMEOUT}): past it,
     * kube-queue suspends the job again and queues it (docs/policies.md, "Admission timeout"). A pod counts once it is
     * Running, Succeeded or Failed. Unset or {@code 0}: off, unless a quota group sets its own (docs/configuration.md,
     * "Per-group admission timeout"). Read by {@link TimeoutConverter}: a negative or unreadable value, or one outside
     * 1s to 365d, stops start-up naming the valid forms and range.
     */
    @WithConverter(TimeoutConverter.class)
    Optional<Duration> admissionTimeout();

    /** Reclaim of guaranteed quota from groups that borrow (docs/policies.md, "Reclaim"). */
    Reclaim reclaim();

    /** Unschedulable backoff bounds. */
    Backoff backoff();

    /** Where the ElasticQuotaTree lives. */
    ElasticQuota elasticQuota();

    /** Admission writes. */
    Admission admission();

    /** Leader election between replicas. */
    LeaderElection leaderElection();

    /** The events' write budget (docs/observability.md, "Events and their budget"). */
    Events events();

    /** Start-time estimates (issue 30; docs/observability.md, "Start-time estimates"). */
    Estimates estimates();

    /** Who may read the queues through the read API ({@code /api/v1}). */
    ReadApi readApi();

    /**
     * kube-queue's HTTPS endpoint (docs/security.md, "The visibility API and the webhook"): the aggregated
     * visibility API ({@code visibility.kube-queue.io/v1alpha1}) and the mutating admission webhook.
     */
    Serving serving();

    /**
     * The HTTPS endpoint: its port, its certificate, and the API objects that name kube-queue's CA.
     */
    interface Serving {
        /** Whether the HTTPS endpoint is served (env {@code KUBE_QUEUE_SERVING_ENABLED}; the shipped manifests say true). */
        @WithDefault("false")
        @WithConverter(StrictBooleanConverter.class)
        boolean enabled();

        /** Its port (the Service's port https, 8443, targets it; the APIService and the webhook name that Service port). */
        @WithDefault("8443")
        int port();

        /**
         * A PEM certificate (chain) to serve, e.g. cert-manager's {@code tls.crt} mounted from its Secret; with
         * {@link #keyFile()}. Unset: kube-queue makes a self-signed one and keeps it in {@link #secret()}.
         * Re-read every minute, so a renewed certificate is served without a restart.
         */
        Optional<String> certFile();

        /** The PEM private key of {@link #certFile()}. */
        Optional<String> keyFile();

        /** The Secret (type {@code kubernetes.io/tls}, in kube-queue's namespace) holding the self-signed certificate. */
        @WithDefault("kube-queue-tls")
        String secret();

        /** The Service in front of the endpoint, whose DNS names the self-signed certificate is made for. */
        @WithDefault("kube-queue-controller")
        String service();

        /** The APIService whose {@code spec.caBundle} kube-queue writes (self-signed certificate only). */
        @WithDefault("v1alpha1.visibility.kube-queue.io")
        String apiService();

        /** The MutatingWebhookConfiguration whose webhooks' {@code clientConfig.caBundle} kube-queue writes. */
        @WithDefault("kube-queue-suspend-at-creation")
        String webhookConfiguration();

        /**
         * Where the webhook suspends a job created without its suspend mark (env
         * {@code KUBE_QUEUE_SERVING_SUSPEND_AT_CREATION_IN}): namespace names, or {@value KubeQueueConfig#EVERY_QUOTA_GROUP}
         * for every namespace a quota group in force lists. Unset: nowhere (the webhook allows every job unchanged).
         */
        Optional<Set<String>> suspendAtCreationIn();

        /** {@link #suspendAtCreationIn()}, each entry trimmed; empty: nowhere. */
        default Set<String> suspendAtCreationInNames() {
            return trimmed(suspendAtCreationIn());
        }
    }

    /**
     * The read API's access control (docs/security.md). With {@code kubernetes} (the default) every call carries
     * a Kubernetes bearer token, checked by the API server (TokenReview), and a caller sees a job only if the API
     * server lets them {@code list} that job's kind in its namespace (SubjectAccessReview). The answers are
     * remembered for {@link #cacheFor()}, so a revoked right or token still reads for at most that long.
     */
    interface ReadApi {
        /**
         * {@code kubernetes} (default) or {@code none}; {@code none} opens the read API to anyone who reaches the
         * port, for a cluster where nothing but the API server's proxy can (docs/security.md).
         */
        @WithDefault("kubernetes")
        Authentication authentication();

        /** How long a token's review and an access review are reused: from 1s to 10m. */
        @WithConverter(SettingRanges.ReadApiCacheFor.class)
        @WithDefault("30s")
        Duration cacheFor();

        /** The read API's access-control modes. */
        enum Authentication {
            /** TokenReview, then SubjectAccessReview per namespace and kind. */
            KUBERNETES,
            /** No check: anyone who reaches the port reads every queue. */
            NONE
        }
    }

    /**
     * Leader election on a Lease ({@code coordination.k8s.io/v1}): with several replicas only the leader admits
     * and writes; the others keep their view of the queues current and serve the read API and metrics.
     */
    interface LeaderElection {
        /**
         * Off only for a single replica that must not touch Leases (then it leads at once). Read strictly: a typo
         * read as false would let every replica admit.
         */
        @WithDefault("true")
        @WithConverter(StrictBooleanConverter.class)
        boolean enabled();

        /** The Lease's name. */
        @WithDefault("kube-queue-leader")
        String leaseName();

        /** The Lease's namespace; default: the pod's ({@code POD_NAMESPACE}), else {@code kube-queue}. */
        Optional<String> namespace();

        /** This replica's name in the Lease; default: the pod's ({@code HOSTNAME}), else a random one. */
        Optional<String> identity();

        /** How long a leader's Lease holds without renewal (client-go's default); from 1s to 10m. */
        @WithConverter(SettingRanges.LeaseDuration.class)
        @WithDefault("15s")
        Duration leaseDuration();

        /** How long the leader keeps trying to renew before it steps down; from 1s to 10m. */
        @WithConverter(SettingRanges.RenewDeadline.class)
        @WithDefault("10s")
        Duration renewDeadline();

        /** How often a replica tries to acquire or renew; from 100ms to 1m. */
        @WithConverter(SettingRanges.RetryPeriod.class)
        @WithDefault("2s")
        Duration retryPeriod();
    }

    /**
     * Unschedulable backoff: doubles from {@code initial} up to {@code max} (kube-scheduler: 1 s to 20 s).
     * Start-up fails with an {@code IllegalArgumentException} unless initial ≤ max, each from 10ms to 1h.
     */
    interface Backoff {
        @WithConverter(SettingRanges.BackoffInitial.class)
        @WithDefault("1s")
        Duration initial();

        @WithConverter(SettingRanges.BackoffMax.class)
        @WithDefault("20s")
        Duration max();
    }

    /**
     * Reclaim: a job that fits its group's {@code min} but not the room left suspends jobs of groups that borrow above
     * their own {@code min} (docs/policies.md, "Reclaim").
     */
    interface Reclaim {
        /**
         * On or off (env {@code KUBE_QUEUE_RECLAIM_ENABLED}). Read strictly, like the seed's switches: a typo read as
         * false would silently switch reclaim off.
         */
        @WithDefault("false")
        @WithConverter(StrictBooleanConverter.class)
        boolean enabled();

        /**
         * How many times in an hour one job may be a reclaim's victim (env {@code KUBE_QUEUE_RECLAIM_MAX_PER_HOUR}):
         * past it, the job is left running. From 1 to 60, or start-up fails.
         */
        @WithConverter(SettingRanges.ReclaimMaxPerHour.class)
        @WithDefault("3")
        int maxPerHour();
    }

    /** The ElasticQuotaTree source. */
    interface ElasticQuota {
        /** Namespace the tree is read from (seed: {@code kube-system}). */
        @WithDefault("kube-system")
        String namespace();
    }

    /**
     * The events' write budget: Kubernetes Events share the API server's write budget with the admission patches, so
     * they are written within one of their own, after the admissions (docs/observability.md, "Events and their
     * budget", has the arithmetic behind the defaults). Each setting is bounded ({@link SettingRanges}).
     */
    interface Events {
        /**
         * Events written a second, all together, on average (env {@code KUBE_QUEUE_EVENTS_RATE}); past it, Normal
         * events are dropped (counted) and Warnings borrow up to one {@link #burst()}, then wait. From 1 to 1000.
         */
        @WithConverter(SettingRanges.EventsRate.class)
        @WithDefault("5")
        int rate();

        /** Events written at once after a quiet spell (env {@code KUBE_QUEUE_EVENTS_BURST}). From 1 to 100000. */
        @WithConverter(SettingRanges.EventsBurst.class)
        @WithDefault("200")
        int burst();

        /**
         * The least time between two events of one object and reason (env
         * {@code KUBE_QUEUE_EVENTS_AGGREGATE_INTERVAL}): those within it are combined into one, written when it ends,
         * that says how many it stands for. From 0s (only those waiting together are combined) to 1h.
         */
        @WithConverter(SettingRanges.EventsAggregateInterval.class)
        @WithDefault("10s")
        Duration aggregateInterval();

        /**
         * How long a Normal event may wait behind admissions once due (env {@code KUBE_QUEUE_EVENTS_MAX_WAIT}); past
         * it, it is dropped (counted). Warnings are not dropped for their wait. From 1s to 1h.
         */
        @WithConverter(SettingRanges.EventsMaxWait.class)
        @WithDefault("30s")
        Duration maxWait();

        /**
         * The most events waiting at once (env {@code KUBE_QUEUE_EVENTS_QUEUE_SIZE}); past it the oldest Normal one
         * is dropped (counted). From 1 to 100000.
         */
        @WithConverter(SettingRanges.EventsQueueSize.class)
        @WithDefault("1000")
        int queueSize();
    }

    /**
     * Start-time estimates (issue 30): every pending job's expected start, from replays of copies of the core on the
     * leader, refreshed by a timer (docs/observability.md, "Start-time estimates"). Each setting is bounded
     * ({@link SettingRanges}).
     */
    interface Estimates {
        /**
         * Whether estimates are made (env {@code KUBE_QUEUE_ESTIMATES_ENABLED}); off, the read API's {@code estimate}
         * and {@code unblock} are null, the what-if and the dry run's estimate are not offered, and no replay runs.
         */
        @WithDefault("true")
        @WithConverter(StrictBooleanConverter.class)
        boolean enabled();

        /**
         * The least time between two replays (env {@code KUBE_QUEUE_ESTIMATES_INTERVAL}): an estimate is at most about
         * this old (plus the timer's second) while the queue changes. From 0s (every second the queue changed) to 1h.
         */
        @WithConverter(SettingRanges.EstimatesInterval.class)
        @WithDefault("5s")
        Duration interval();

        /**
         * How far ahead a replay looks (env {@code KUBE_QUEUE_ESTIMATES_HORIZON}); a job not started by then is
         * {@code BEYOND_HORIZON}. From 1m to 365d.
         */
        @WithConverter(SettingRanges.EstimatesHorizon.class)
        @WithDefault("30d")
        Duration horizon();

        /**
         * The most scheduling cycles one replay runs (env {@code KUBE_QUEUE_ESTIMATES_MAX_CYCLES}): a bound on its
         * cost; the jobs it has not started by then are {@code BEYOND_HORIZON}. From 1 to 10000000.
         */
        @WithConverter(SettingRanges.EstimatesMaxCycles.class)
        @WithDefault("200000")
        int maxCycles();
    }

    /** The admission writer. */
    interface Admission {
        /**
         * The most admission patches on the wire at once (sent, answer not yet in). No thread waits on any of
         * them; decisions beyond this wait their turn, quota groups served in turn. At least 1, or start-up fails.
         * The default comes from docs/performance.md: at ~150 ms per write it keeps a busy API server's pace. At most
         * 1024.
         */
        @WithConverter(SettingRanges.InFlight.class)
        @WithDefault("32")
        int inFlight();

        /**
         * Threads that write started-outside records (a job running without kube-queue's admission gets its
         * charge written on it; rare, and each may wait for a few round trips). Not used by admissions. At least
         * 1 and at most 64, or start-up fails.
         */
        @WithConverter(SettingRanges.Workers.class)
        @WithDefault("4")
        int workers();

        /**
         * How long a scheduling cycle waits after the first change that asks for it, so that jobs submitted
         * together are admitted in queue order. Adds this much latency, not per job but per burst. A job that
         * finishes or is deleted does not wait for it: its room is given out at once. From 0s to 1m, or start-up
         * fails.
         */
        @WithConverter(SettingRanges.BatchWindow.class)
        @WithDefault("100ms")
        Duration batchWindow();
    }
}
