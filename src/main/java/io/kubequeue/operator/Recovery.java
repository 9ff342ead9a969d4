package io.kubequeue.operator;

import java.time.Duration;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.JobReconciler;

/**
 * Start-up's recovery: state is rebuilt from the cluster, never from memory (docs/behaviour.md §1). Lists every job of
 * every kind switched on and feeds each to the scheduler as its reconciler would: one carrying an admission record is
 * charged to its group, a suspended one is queued (queue order puts them back in their original order). The order
 * around it (the pod watch first, the quota plugin's recount after) is {@link StartupRecovery}'s.
 */
final class Recovery {

    private static final Logger LOG = Logger.getLogger(Recovery.class);
    private static final int RECOVERY_ATTEMPTS = 5;

    private final KubernetesClient client;
    private final JobFeed feed;

    Recovery(KubernetesClient client, JobFeed feed) {
        this.client = client;
        this.feed = feed;
    }

    /**
     * Feeds every job of each kind the feed has switched on; logs the kinds switched off.
     *
     * @return how many jobs were fed
     * @throws IllegalStateException if a kind cannot be listed after {@value #RECOVERY_ATTEMPTS} tries
     */
    int recoverAll(Iterable<JobKind<?>> kinds) {
        int jobs = 0;
        for (JobKind<?> kind : kinds) {
            if (feed.enabled(kind.kind())) {
                jobs += recover(kind);
            } else {
                LOG.infof("%s %s switched off by kube-queue.disabled-kinds: left alone", kind.kind(),
                        kind.apiGroup() + "/" + kind.version());
            }
        }
        return jobs;
    }

    /**
     * The job as its informer caches it ({@link JobKind#pruned}), which reads the same: what the scheduler and the job
     * directory keep of this read (its uid, resourceVersion, reference) is then the interned strings the cache and
     * every later read share, not this list's own (issue 27: memory per pending job). A job the pruning fails on is
     * fed whole, as the cache keeps it ({@link io.kubequeue.job.PruningItemStore}).
     */
    static <R extends HasMetadata> R asCached(JobKind<R> kind, R job) {
        try {
            return kind.pruned(job);
        } catch (RuntimeException e) {
            return job;
        }
    }

    /**
     * Feeds every job of one kind, listed in pages of {@value JobReconciler#LIST_PAGE}; a failure lists the kind again
     * from the start. A kind the API server does not serve (404: its CRD is not installed) has no
     * admitted jobs to recover and is skipped with one log line; any other failure is retried, then fails
     * start-up, since admitting without knowing what already runs could exceed a quota. A job that cannot be read
     * is skipped and reported at the job ({@link JobFeed#observeOrReport}); the list goes on. A list page that
     * cannot be parsed at all fails as the list does: fabric8 parses a page whole, so it cannot be split into its
     * objects; the page bounds ({@code io.kubequeue.input.JsonBounds}) are set at what a real API server sends.
     */
    <R extends HasMetadata> int recover(JobKind<R> kind) {
        for (int attempt = 1;; attempt++) {
            try {
                // page by page: one list of every job would hold them all whole at once (15,000 jobs do not fit
                // a small heap); the pages of one list show one version of the cluster, as a single list does
                int n = 0;
                int skipped = 0;
                String next = null;
                do {
                    KubernetesResourceList<R> page = kind.resources(client).inAnyNamespace().list(
                            new ListOptionsBuilder().withLimit(JobReconciler.LIST_PAGE).withContinue(next).build());
                    for (R job : page.getItems()) {
                        // a job that cannot be read is skipped, and reported
                        if (feed.observeOrReport(kind, asCached(kind, job))) {
                            n++;
                        } else {
                            skipped++;
                        }
                    }
                    next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
                } while (next != null && !next.isEmpty());
                if (skipped > 0) {
                    LOG.warnf("recovery skipped %d %s that cannot be read (each has its InvalidJob Warning)", skipped,
                            kind.kind());
                }
                return n;
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404) {
                    LOG.warnf("%s %s is not served (CRD not installed): left out, and picked up without a restart"
                            + " once its CRD is installed", kind.kind(), kind.apiGroup() + "/" + kind.version());
                    return 0;
                }
                if (attempt == RECOVERY_ATTEMPTS) {
                    throw new IllegalStateException("cannot list " + kind.kind() + " to recover admitted jobs", e);
                }
                LOG.warnf("listing %s failed (%s); retrying", kind.kind(), e.getMessage());
                sleep(Duration.ofSeconds(attempt));
            }
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during recovery", e);
        }
    }

}
