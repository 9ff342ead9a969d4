package io.kubequeue.operator;

import java.time.Duration;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.kubequeue.admission.AdmissionLoop;
import io.kubequeue.admission.Evicter;
import io.kubequeue.job.JobPods;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.Scheduler;

/**
 * Start-up's part in the pod watch ({@link JobPods}): starting it when admission timeouts or reclaim need it, telling
 * the scheduler whose pods are left, and (step "pods that ran") reporting which admitted jobs have a pod that ran
 * and, from then on, which jobs' pods went (docs/policies.md, "Admission timeout", "When a victim's room is free").
 */
@Singleton
public class PodRunReporting {

    private static final Logger LOG = Logger.getLogger(PodRunReporting.class);
    /** How long start-up waits for the pods' first list before it goes on without admission timeouts. */
    private static final Duration FIRST_LIST_WAIT = Duration.ofSeconds(10);

    private final Scheduler scheduler;
    private final JobPods jobPods;
    private final Evicter evicter;
    private final AdmissionLoop loop;

    /** Built by CDI. */
    public PodRunReporting(Scheduler scheduler, JobPods jobPods, Evicter evicter, AdmissionLoop loop) {
        this.scheduler = scheduler;
        this.jobPods = jobPods;
        this.evicter = evicter;
        this.loop = loop;
    }

    /**
     * Before recovery lists the jobs: with a global admission timeout or reclaim on, the pod watch starts first (an
     * evicted job found suspended whose pods are not known to be gone yet stays charged until they are:
     * docs/policies.md, "When a victim's room is free"); and the scheduler reads from it whose pods are left.
     */
    void beforeRecovery() {
        if (scheduler.settings().admissionTimeout() != null || scheduler.settings().reclaim().enabled()) {
            jobPods.start();
        }
        scheduler.watchPods(jobPods::podsLeft);
    }

    /** A tree whose groups set an admission timeout starts the pod watch (once; later calls do nothing). */
    void watchPodsIfTimedOutIn(QuotaTree tree) {
        if (tree.nodes().stream().anyMatch(n -> n.admissionTimeout() != null && !n.admissionTimeout().isZero())) {
            jobPods.start(); // a group's timeout needs to know which admitted jobs have a pod that ran
        }
    }

    /**
     * Step "pods that ran": the pod watch was started by recovery if the global admission timeout or reclaim is on
     * (else if a quota group sets a timeout, when its tree is applied, or never); once it has listed, every admitted job with a pod that ran is
     * reported to the scheduler, which decides admission timeouts only from then on. Not before recovery: a pod
     * whose job is not known yet cannot be traced to it. A watch not listed in time (RBAC, an API server away)
     * delays timeouts, not start-up.
     */
    void report() {
        // the last check before a timeout is written: a pod may have started since the decision
        evicter.podRuns(jobPods::runs);
        scheduler.writePodRanMarksTo(loop::recordPodRan);
        jobPods.reportRunsTo(new JobPods.RunReport() {
            @Override
            public void podRan(JobKey job) {
                scheduler.podRan(job);
            }

            @Override
            public void podsListed() {
                if (scheduler.podsListed()) {
                    loop.triggerAtOnce(); // a victim whose pods were not known to be gone is free
                }
            }

            @Override
            public void podsChanged(JobKey job) {
                if (scheduler.podsChanged(job)) {
                    loop.triggerAtOnce(); // the last pod of a victim is gone: its preemptor may go
                }
            }
        });
        if (jobPods.started() && !jobPods.awaitFirstList(FIRST_LIST_WAIT)) {
            LOG.warnf("pods of managed jobs not listed within %s: no admission times out until they are", FIRST_LIST_WAIT);
        }
    }
}
