package io.kubequeue.scheduler.forecast;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.RunTimeHints;

/**
 * A copy of the core that a {@link Replay} drives forward on a clock of its own, as the cluster would if every write
 * applied at once: the port the facade implements on {@code Scheduler.copy}. Nothing it does reaches the cluster.
 */
public interface Simulation {

    /** The simulated time now. */
    Instant now();

    /** Moves the simulated time forward to {@code time} (never back). */
    void advanceTo(Instant time);

    /** Every job the copy holds, in no particular order. */
    List<JobStatus> jobs();

    /**
     * When an admitted job's admission applied (its patch answered), as the original core saw it; empty if it has not
     * yet (its write is on its way) or the core does not know (admitted before a restart).
     */
    Optional<Instant> runningSince(JobKey key);

    /** What the job says of how long it runs ({@link RunTimeHints#NONE} if it is not held or says nothing). */
    RunTimeHints runTime(JobKey key);

    /**
     * Runs one scheduling cycle and applies what it decided as the cluster would at once: every admission is written
     * and its pods run, every eviction is written and the victim's pods are gone (it queues again).
     */
    CycleResult cycle();

    /** The job ends (finished or failed): its charge is released. */
    void end(JobKey key);

    /** The quota groups in force in the copy. */
    QuotaTree tree();

    /** Every pending job with its position and reason, as {@code ReadViews.pendingIn(null)} gives them. */
    List<PendingView> pending();

    /** The job is submitted (or edited) now, as the informer would show it. */
    void submit(JobObservation job);

    /** The quota groups are replaced (a what-if's tree). */
    void replaceTree(QuotaTree tree);

    /** The longest a job backs off ({@code kube-queue.backoff.max}): by then every backed-off job was tried again. */
    java.time.Duration maxBackoff();

    /** When the next backoff expires or admission times out, if any (see {@code Cycles.nextRetry}). */
    Optional<Instant> nextRetry();
}
