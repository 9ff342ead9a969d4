package io.kubequeue.admission;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.EvictionAnnotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.job.JobKind;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.EvictionSettling;
import io.kubequeue.scheduler.Scheduler;

/**
 * Carries out one {@link Eviction} (a reclaim's victim, or an admission that timed out): suspends the admitted job
 * again with one JSON Patch ({@link EvictionPatch}), through the write path admissions take too
 * ({@link SuspendWrites}: one non-blocking round trip, a read on any answer but a plain success), and works out what became of it ({@link #evict}); {@link #report} then tells the
 * scheduler, with exactly one {@link Scheduler#settleEviction} per answer, and writes the events.
 *
 * <p>What an answer means: applied, the job is suspended ({@link EvictionOutcome.Applied}: it stays charged until
 * the informer shows it suspended); 404, gone. Any other failure reads the job back: absent or another uid, gone;
 * suspended with this eviction's reason and still under the decided admission, applied (another leader's write, or
 * ours whose answer was lost); otherwise refused (the job moved on: suspended by someone else, admitted again, its
 * record changed). A read that fails too leaves the outcome unknown after an ambiguous answer (5xx, timeout: it may
 * have applied), and refused after a definite one (400, 401, 403, 409, 422: it did not). An unknown outcome is read
 * again later ({@link #recheck}) while {@link Scheduler#evictionUnsettled} says so.
 *
 * <p>Only jobs whose kind stops when suspended ({@link io.kubequeue.job.StopsWhenSuspended}, and this job's stop mark
 * known) are written; others are refused without a write. An admission timeout is not written either when a pod of
 * the job runs ({@link #podRuns}): the scheduler is told ({@link Scheduler#podRan}) and the eviction is refused.
 */
@Singleton
public class Evicter {

    private static final Logger LOG = Logger.getLogger(Evicter.class);

    private final EvictionSettling core;
    private final JobDirectory directory;
    private final EventRecorder events;
    private final RecordSignatures signatures;
    private final SuspendWrites writes;
    private volatile Predicate<JobKey> podRuns = key -> false;

    /** Built by CDI; tests pass their own {@code core}. */
    @Inject
    public Evicter(AsyncJobRequests requests, EvictionSettling core, JobDirectory directory, EventRecorder events,
                   RecordSignatures signatures) {
        this.signatures = signatures;
        this.core = core;
        this.directory = directory;
        this.events = events;
        this.writes = new SuspendWrites(requests, directory);
    }

    /**
     * Sets what tells whether a pod of a job runs now (or has run): asked before an admission timeout is written,
     * so that a job whose pod started since the decision is not suspended. Default: never (the pods are not
     * watched). Called from the thread that sends evictions; it must answer from memory.
     */
    public void podRuns(Predicate<JobKey> podRuns) {
        this.podRuns = podRuns;
    }

    /**
     * Sends one eviction and works out what became of it (see the class comment): one round trip, a second (a
     * read) only when the answer is not a plain success. Never blocks: the future completes on the HTTP client's
     * thread, and never exceptionally. The scheduler is told nothing here (pass the result to {@link #report}),
     * except {@link Scheduler#podRan} for a timeout whose job runs a pod.
     *
     * @param eviction the decision, as it is written: its history holds the time of this write if the sender stamped
     *                 it ({@link Eviction#writtenAt}), and an applied outcome carries that time
     * @return {@link EvictionOutcome.Applied} with the resourceVersion the write produced (or read back),
     *         {@link EvictionOutcome#REFUSED}, {@link EvictionOutcome#GONE} or {@link EvictionOutcome#UNKNOWN}
     */
    public CompletableFuture<EvictionOutcome> evict(Eviction eviction) {
        return writes.write(new EvictionWrite(eviction));
    }

    /**
     * Reads the job of an eviction whose outcome is unknown and works out what became of it (see {@link #evict});
     * {@link EvictionOutcome#UNKNOWN} while it cannot be read. Null, without a read, once nothing is left to settle
     * (the scheduler no longer waits for this eviction, or the job is no longer managed).
     */
    public CompletableFuture<EvictionOutcome> recheck(Eviction eviction) {
        Optional<JobDirectory.Entry> seen = directory.get(eviction.key());
        if (seen.isEmpty() || !core.evictionUnsettled(eviction.key(), eviction.record())) {
            return CompletableFuture.completedFuture(null);
        }
        return writes.readBack(seen.get().kind(), new EvictionWrite(eviction), null);
    }

    /**
     * Tells the scheduler what became of one eviction ({@link Scheduler#settleEviction}, once): the one place every
     * eviction's answer is reported. Writes one INFO log line; an applied eviction also gets its Warning event on the
     * job: {@code Reclaimed} (naming the preemptor and the quota group that reclaims its min) or
     * {@code AdmissionTimedOut}.
     *
     * @param eviction the decision
     * @param outcome  what {@link #evict} or {@link #recheck} found, or {@link EvictionOutcome#REFUSED} for one not
     *                 sent (leadership lost)
     * @return {@code outcome}
     */
    public EvictionOutcome report(Eviction eviction, EvictionOutcome outcome) {
        JobKey key = eviction.key();
        core.settleEviction(key, eviction.record(), outcome);
        String what = eviction.reason() == Eviction.Reason.RECLAIM
                ? "reclaim for " + eviction.preemptor() + " of quota group " + eviction.preemptorGroup()
                : "admission timeout";
        if (outcome instanceof EvictionOutcome.Applied) {
            directory.get(key).ifPresent(entry -> events.warning(entry.ref(),
                    eviction.reason() == Eviction.Reason.RECLAIM ? "Reclaimed" : "AdmissionTimedOut", message(eviction)));
            LOG.info("evicted " + key + " of quota group " + eviction.record().group() + " (" + what + ", request "
                    + eviction.request() + "): suspended again; its quota is released once it is seen suspended");
        } else if (outcome instanceof EvictionOutcome.Gone) {
            LOG.infof("eviction of %s (%s): the job is gone", key, what);
        } else if (outcome instanceof EvictionOutcome.Unknown) {
            LOG.warnf("eviction of %s (%s) is unconfirmed: the job stays charged, and is read again until it is known"
                    + " whether it was suspended", key, what);
        } else {
            LOG.infof("eviction of %s (%s) not applied: it stays admitted", key, what);
        }
        return outcome;
    }

    /**
     * The applied eviction's event message, for the job's owner: it names the preemptor only if it is in the same
     * namespace (an Event is read by who may read events there), else "a job in quota group G".
     */
    static String message(Eviction eviction) {
        int times = eviction.times(eviction.reason()).size();
        String often = times > 1 ? " (" + times + " times in the last hour)" : "";
        if (eviction.reason() == Eviction.Reason.RECLAIM) {
            String group = eviction.preemptorGroup() == null ? "?" : eviction.preemptorGroup();
            return "suspended again to make room for " + Explanation.job(eviction.preemptor(), group)
                    .render(CycleEvents.sameNamespace(eviction.key())) + ", which reclaims the min of quota group "
                    + group + "; requeued at its old position" + often;
        }
        return "admitted" + ago(eviction) + " but no pod of it ran: admission timed out; suspended again, requeued"
                + " with backoff, quota released" + often;
    }

    /** How long before the decision the job was admitted, e.g. " 1h5m ago"; empty if its record has no time. */
    private static String ago(Eviction eviction) {
        try {
            Duration d = Duration.between(Instant.parse(eviction.record().admittedAt()), eviction.at());
            long s = Math.max(0, d.toSeconds());
            String text = (s >= 3600 ? s / 3600 + "h" : "") + (s % 3600 >= 60 ? s % 3600 / 60 + "m" : "")
                    + (s % 60 != 0 || s == 0 ? s % 60 + "s" : "");
            return " " + text + " ago";
        } catch (DateTimeParseException e) {
            return ""; // e.g. the charge of a job started outside kube-queue
        }
    }

    /**
     * One eviction through the write path ({@link SuspendWrites}): what it plans on the job as last seen, and what
     * each answer means for it (see the class comment).
     */
    private final class EvictionWrite implements SuspendWrites.Decision<EvictionOutcome> {

        private final Eviction eviction;

        EvictionWrite(Eviction eviction) {
            this.eviction = eviction;
        }

        @Override
        public JobKey key() {
            return eviction.key();
        }

        @Override
        public String uid() {
            return eviction.uid();
        }

        @Override
        public EvictionOutcome unmanaged() {
            LOG.debugf("eviction of %s: the job is no longer managed", eviction.key());
            return EvictionOutcome.REFUSED;
        }

        @Override
        public EvictionOutcome gone() {
            return EvictionOutcome.GONE;
        }

        @Override
        public SuspendWrites.Plan<EvictionOutcome> plan(JobDirectory.Entry seen) {
            JobKey key = eviction.key();
            if (!SuspendWrites.sameObject(eviction.uid(), seen.uid())) {
                return SuspendWrites.Plan.unsent(EvictionOutcome.GONE); // deleted and created again since
            }
            if (seen.stopMark() == null) {
                LOG.warnf("eviction of %s refused: suspending it would not stop it (%s); it stays admitted", key,
                        "its kind " + seen.kind().kind() + " has no mark that stops a running job, or this job lacks it");
                return SuspendWrites.Plan.unsent(EvictionOutcome.REFUSED);
            }
            if (eviction.reason() == Eviction.Reason.TIMEOUT && podRuns.test(key)) {
                LOG.debugf("admission timeout of %s not written: a pod of it runs", key);
                core.podRan(key);
                return SuspendWrites.Plan.unsent(EvictionOutcome.REFUSED);
            }
            return SuspendWrites.Plan.send(this,
                    EvictionPatch.of(seen.stopMark(), eviction, seen.uid(), signatures).toString());
        }

        @Override
        public EvictionOutcome applied(HasMetadata answer) {
            return new EvictionOutcome.Applied(answer.getMetadata().getResourceVersion(), eviction.written());
        }

        @Override
        public CompletableFuture<EvictionOutcome> failed(JobDirectory.Entry seen, String patch,
                                                         SuspendWrites.Failure failure) {
            if (failure.definite()) {
                LOG.debugf("eviction of %s refused (%d): %s; reading it back", eviction.key(), failure.code(),
                        failure.message());
            } else {
                LOG.warnf("eviction of %s got no clear answer (%d: %s); reading the job back", eviction.key(),
                        failure.code(), failure.message());
            }
            return writes.readBack(seen.kind(), this, failure);
        }

        /**
         * Applied if the job as read is suspended, carrying this eviction's reason and the admission record decided
         * about; else refused (it runs on under our record, or moved on: suspended by someone else, admitted again).
         */
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public CompletableFuture<EvictionOutcome> read(JobKind<?> kind, HasMetadata job) {
            Map<String, String> annotations = job.getMetadata().getAnnotations() == null ? Map.of()
                    : job.getMetadata().getAnnotations();
            boolean ours = eviction.record().admittedAt().equals(annotations.get(Annotations.ADMITTED_AT));
            if (((JobKind) kind).held(job) && ours
                    && EvictionAnnotations.reason(eviction.reason()).equals(annotations.get(Annotations.EVICTED))) {
                return CompletableFuture.completedFuture(
                        new EvictionOutcome.Applied(job.getMetadata().getResourceVersion(), eviction.written()));
            }
            return CompletableFuture.completedFuture(EvictionOutcome.REFUSED);
        }

        /** A definite refusal did not apply: refused; after an ambiguous answer (or on a re-read), unknown. */
        @Override
        public EvictionOutcome unread(SuspendWrites.Failure after, SuspendWrites.Failure read) {
            LOG.debugf("could not read %s back after its eviction (%s)", eviction.key(), read.message());
            return after != null && after.definite() ? EvictionOutcome.REFUSED : EvictionOutcome.UNKNOWN;
        }
    }
}
