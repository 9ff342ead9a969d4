package io.kubequeue.admission;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;


import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.job.ShowsQueuingCondition;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.AdmissionSettling;
import io.kubequeue.scheduler.Scheduler;

/**
 * Carries out one {@link Admission} as a single JSON Patch (RFC 6902), built by {@link AdmissionPatch}, through the
 * one write path of writes that change whether a job runs ({@link SuspendWrites}, which evictions take too,
 * {@link Evicter}). The other writes to jobs are this package's too: the record on a job started by hand
 * ({@link StartedOutsideRecords}), the pod-ran mark ({@link PodRanRecords}) and the Queuing condition
 * ({@link QueuingConditions}).
 *
 * <p>The patch holds a {@code test} of the uid the decision was made for, then, for each suspend mark the job
 * carries, a {@code test} op on the mark followed by its removal, then the admission record annotations. If the
 * job changed since the decision (another replica admitted it, the user edited the mark, it was deleted and
 * created again) a {@code test} fails and nothing is written: a stale decision can never admit twice, nor admit
 * another object. Any answer but a plain success is settled by reading the job back ({@link AdmissionWrite#read}); an
 * answer and read-back both lost leave the admission {@link Settlement.Kind#UNCONFIRMED}, to be {@link #recheck}ed. A
 * refused admission is handed back to the scheduler, which uncharges it and retries; after
 * {@value #REFUSALS_BEFORE_WARNING} refusals in a row with the same HTTP status, the job gets one Warning event
 * ({@code AdmissionRefused}) with the API server's message, so a patch the server will never take does not loop
 * unseen.
 *
 * <p>The patch is one a real API server applies (RFC 6902 strictly): an {@code add} never targets a child of a
 * missing member, so a job without annotations gets the record as a whole map
 * (../shared/reference/real-apiserver.md, "JSON Patch").
 */
@Singleton
public class Admitter {

    private static final Logger LOG = Logger.getLogger(Admitter.class);
    /** Refusals of one job's admission in a row, with the same HTTP status, before its Warning event. */
    static final int REFUSALS_BEFORE_WARNING = 3;
    /** Jobs whose refusal streaks are remembered (the oldest forgotten first): bounded memory. */
    private static final int REFUSAL_STREAKS_KEPT = 10_000;

    /** One job's refusals in a row, all with this HTTP status. */
    private record RefusalStreak(int code, int count) {
    }

    private final Map<JobKey, RefusalStreak> refusalStreaks = BoundedMaps.keepingNewest(REFUSAL_STREAKS_KEPT);

    private final AsyncJobRequests requests;
    private final AdmissionSettling scheduler;
    private final JobDirectory directory;
    private final EventRecorder events;
    private final QueuingConditions queuing;
    private final RecordSignatures signatures;
    private final SuspendWrites writes;

    public Admitter(AsyncJobRequests requests, AdmissionSettling scheduler, JobDirectory directory, EventRecorder events,
                    QueuingConditions queuing, RecordSignatures signatures) {
        this.signatures = signatures;
        this.requests = requests;
        this.scheduler = scheduler;
        this.directory = directory;
        this.events = events;
        this.queuing = queuing;
        this.writes = new SuspendWrites(requests, directory);
    }

    /**
     * What became of one admission, as the API server's answer (or a read of the job after it) shows; the one
     * report the scheduler gets for it ({@link #report}).
     *
     * @param kind            what happened
     * @param resourceVersion the job's {@code resourceVersion} as read or as patched (APPLIED, TAKEN_OVER,
     *                        STARTED_BY_HAND), or the newer one it was found at (OUTDATED, OUTDATED_UNSENT); else null
     * @param found           the admission record another replica wrote (TAKEN_OVER); else null
     * @param job             the job as the patch left it (APPLIED by the patch's own answer); else null
     */
    public record Settlement(Kind kind, String resourceVersion, AdmissionRecord found, HasMetadata job) {

        /** The kinds of settlement. */
        public enum Kind {
            /** Our patch applied: the job runs, charged as decided. */
            APPLIED,
            /** Not applied, and will not be: the charge is handed back and the job waits again. */
            REFUSED,
            /**
             * Refused by the API server because the job changed since the decision (the patch's version test
             * failed; a read shows it suspended at a newer version): handed back, and decided again on the new copy.
             */
            OUTDATED,
            /**
             * Not sent: the informer already showed the job changed since the decision in something the decision
             * read (its request, quota label, priority): handed back, and decided again on the new copy.
             */
            OUTDATED_UNSENT,
            /** The job (or the object the decision was made for) no longer exists. */
            GONE,
            /** Another replica admitted it meanwhile: charged as that replica recorded. */
            TAKEN_OVER,
            /** Someone removed its suspend mark by hand meanwhile: charged as started outside kube-queue. */
            STARTED_BY_HAND,
            /** Neither the answer nor a read-back is known: stays charged, to be re-read. */
            UNCONFIRMED
        }

        static Settlement of(Kind kind) {
            return new Settlement(kind, null, null, null);
        }

        /** The same, as the scheduler settles it. */
        public AdmissionOutcome outcome() {
            return switch (kind) {
                case APPLIED -> new AdmissionOutcome.Applied(resourceVersion);
                case REFUSED -> AdmissionOutcome.REFUSED;
                case OUTDATED, OUTDATED_UNSENT -> new AdmissionOutcome.Refused(resourceVersion);
                case GONE -> AdmissionOutcome.GONE;
                case TAKEN_OVER -> new AdmissionOutcome.TakenOver(found, resourceVersion);
                case STARTED_BY_HAND -> new AdmissionOutcome.StartedByHand(resourceVersion);
                case UNCONFIRMED -> AdmissionOutcome.UNKNOWN;
            };
        }
    }

    /**
     * Sends one admission and works out what became of it: one API-server round trip, a second (a read of the
     * job) only when the answer is not a plain success, and a third (the same patch again, see {@link FenceWrite}) only
     * when an ambiguous answer is followed by a read that shows the job unchanged. Never blocks: the future completes
     * on the HTTP client's thread, and never exceptionally. Nothing is told to the scheduler here: pass the result to
     * {@link #report}.
     *
     * <p>The patch is bound to the version the decision was made on ({@link AdmissionPatch}). If the informer already
     * shows a newer copy, the admission is rebound to it when the decision still stands for it
     * ({@link Scheduler#rebind}: a status write, say), else handed back unsent ({@link Settlement.Kind#OUTDATED_UNSENT}).
     */
    public CompletableFuture<Settlement> admit(Admission decided) {
        return writes.write(new AdmissionWrite(decided, true, null));
    }

    /**
     * Reads the job of an admission whose outcome is unknown and works out what became of it (see {@link #admit});
     * {@link Settlement.Kind#UNCONFIRMED} while the job cannot be read, or while the lost patch may still apply.
     * Settles nothing if anything else settled it meanwhile: then the result is null.
     *
     * @param mayWrite whether a read that shows the job unchanged may be answered with a fence (the same patch sent
     *                 again, {@link FenceWrite}: the replica that leads); else only reads, and the room is kept until
     *                 the lost patch's lifetime has passed
     */
    public CompletableFuture<Settlement> recheck(Admission admission, boolean mayWrite) {
        Optional<JobDirectory.Entry> seen = writes.seen(admission.key());
        if (seen.isEmpty() || !scheduler.admissionUnsettled(admission.key(), admission.record())) {
            return CompletableFuture.completedFuture(null);
        }
        JobDirectory.Entry entry = seen.get();
        Ambiguous open = ambiguousOf(admission);
        Fence fence = null;
        if (mayWrite && open != null && open.version() != null && open.version().equals(entry.resourceVersion())
                && !entry.marks().isEmpty()) {
            // the same patch as sent: built on the job as seen at the version it tests
            fence = new Fence(entry, AdmissionPatch.of(entry, admission.boundTo(open.version()), signatures).toString());
        }
        return writes.readBack(entry.kind(), new AdmissionWrite(admission, false, fence), null);
    }

    /** A re-check that only reads (see {@link #recheck(Admission, boolean)}). */
    public CompletableFuture<Settlement> recheck(Admission admission) {
        return recheck(admission, false);
    }

    /**
     * Tells the scheduler what became of one admission: the one place every admission's end is reported. Logs
     * and records an {@code Admitted} event for an applied one; a job started by hand meanwhile gets its
     * started-outside record through {@code recordStartedOutside} (which may block: run it off this thread).
     */
    public void report(Admission admission, Settlement settlement,
                          java.util.function.Consumer<JobFeed.StartedOutside> recordStartedOutside) {
        JobKey key = admission.key();
        AdmissionRecord record = admission.record();
        Optional<AdmissionRecord> startedOutside = scheduler.settle(key, record, settlement.outcome());
        switch (settlement.kind()) {
            case APPLIED -> {
                endRefusalStreak(key);
                if (settlement.job() == null) {
                    LOG.infof("admission of %s confirmed by reading it back", key);
                } else {
                    directory.get(key).ifPresent(entry -> {
                        showAdmitted(entry.kind(), settlement.job());
                        events.normal(entry.ref(), "Admitted", "admitted into quota group " + record.group()
                                + " with request " + admission.request());
                    });
                    // concatenated, not printf: this line is written for every admission
                    LOG.info("admitted " + key + " into quota group " + record.group() + " (request "
                            + admission.request() + ", waited " + admission.waited() + " ms)");
                }
            }
            case REFUSED, OUTDATED, OUTDATED_UNSENT -> {
                // handed back: counted and logged where the refusal was read (countRefusal)
            }
            case GONE -> endRefusalStreak(key);
            case TAKEN_OVER -> {
                if (startedOutside.isPresent()) { // the record found was spent: started by hand under it
                    LOG.debugf("%s was started by hand meanwhile, under a spent record: its charge stays", key);
                    recordStartedOutside.accept(new JobFeed.StartedOutside(new Admission(key, admission.uid(),
                            startedOutside.get(), Resources.NONE, 0), "its suspend mark was removed by hand"));
                } else {
                    LOG.infof("%s was admitted meanwhile elsewhere (%s): charged as recorded", key,
                            settlement.found());
                }
            }
            case STARTED_BY_HAND -> {
                LOG.debugf("%s was started by hand meanwhile: its charge stays", key);
                startedOutside.ifPresent(kept -> recordStartedOutside.accept(new JobFeed.StartedOutside(
                        new Admission(key, admission.uid(), kept, Resources.NONE, 0),
                        "its suspend mark was removed by hand")));
            }
            case UNCONFIRMED -> {
                // stays charged; the admission side reads the job again
            }
        }
    }

    /**
     * One admission through the write path ({@link SuspendWrites}), bound to one version of its job.
     *
     * <p>Its plan: not sent when the job shows no suspend mark (refused) or is another object now (gone); if the
     * informer already shows a newer copy, rebound to it when the decision still stands for it
     * ({@link Scheduler#rebind}: a status write, say), else handed back unsent ({@link Settlement.Kind#OUTDATED_UNSENT}).
     *
     * <p>A definite refusal reads the job back: refused (counted towards the job's Warning event), or outdated when it
     * is suspended at a newer version; an outdated one whose newer copy the decision still stands for is sent once
     * more, rebound to it ({@code mayRebind}, once). An ambiguous answer (5xx, timeout) may have applied, and may
     * still: the API server can apply it after the client gave up (fabric8 waits 10 s, the server's handler runs
     * until its own request timeout, 60 s by default). So it is settled only by a read that cannot be overtaken
     * (docs/behaviour.md, "An ambiguous answer"): one that shows the job at a newer version than the patch tests (the
     * patch can never apply: a version never comes back), or gone, or running. A read that shows it still suspended at
     * that very version is answered by a {@link FenceWrite} when {@code fence} is given (right after the ambiguous
     * answer), else the admission stays unconfirmed, its room kept, until {@link #AMBIGUOUS_PATCH_LIFETIME} has passed
     * since the answer. If the read fails too, a refusal is handed back, and an ambiguous admission stays charged as
     * unconfirmed.
     */
    private class AdmissionWrite implements SuspendWrites.Decision<Settlement> {

        final Admission bound;
        private final boolean mayRebind;
        /** What to send again if a read shows the job unchanged since an ambiguous answer, or null. */
        private final Fence fence;

        AdmissionWrite(Admission bound, boolean mayRebind, Fence fence) {
            this.bound = bound;
            this.mayRebind = mayRebind;
            this.fence = fence;
        }

        @Override
        public JobKey key() {
            return bound.key();
        }

        @Override
        public String uid() {
            return bound.uid();
        }

        @Override
        public Settlement unmanaged() {
            return Settlement.of(Settlement.Kind.REFUSED);
        }

        @Override
        public Settlement gone() {
            LOG.debugf("admission of %s: the job is gone", bound.key());
            forgetAmbiguous(bound);
            return Settlement.of(Settlement.Kind.GONE);
        }

        @Override
        public SuspendWrites.Plan<Settlement> plan(JobDirectory.Entry seen) {
            if (seen.marks().isEmpty()) {
                return SuspendWrites.Plan.unsent(Settlement.of(Settlement.Kind.REFUSED));
            }
            if (!SuspendWrites.sameObject(bound.uid(), seen.uid())) {
                // deleted and created again since the decision: the decision was for an object that is gone
                return SuspendWrites.Plan.unsent(Settlement.of(Settlement.Kind.GONE));
            }
            String current = seen.resourceVersion();
            Admission admission = bound;
            if (bound.resourceVersion() != null && current != null && !current.equals(bound.resourceVersion())) {
                if (!scheduler.rebind(bound.key(), bound.record(), current)) {
                    LOG.debugf("admission of %s not sent: the job changed since the decision (version %s, now %s)",
                            bound.key(), bound.resourceVersion(), current);
                    return SuspendWrites.Plan.unsent(new Settlement(Settlement.Kind.OUTDATED_UNSENT, current, null, null));
                }
                rebound.incrementAndGet();
                admission = bound.boundTo(current);
            }
            // the answer goes to the admission as bound now (rebound, or as decided)
            AdmissionWrite sent = admission == bound ? this : new AdmissionWrite(admission, mayRebind, fence);
            return SuspendWrites.Plan.send(sent, sent.patchOn(seen));
        }

        String patchOn(JobDirectory.Entry seen) {
            return AdmissionPatch.of(seen, bound, signatures).toString();
        }

        @Override
        public Settlement applied(HasMetadata answer) {
            return new Settlement(Settlement.Kind.APPLIED, answer.getMetadata().getResourceVersion(), null, answer);
        }

        @Override
        public CompletableFuture<Settlement> failed(JobDirectory.Entry seen, String patch,
                                                    SuspendWrites.Failure failure) {
            if (!failure.definite()) {
                LOG.warnf("admission of %s got no clear answer (%d: %s); reading the job back", bound.key(),
                        failure.code(), failure.message());
                noteAmbiguous(bound);
                return writes.readBack(seen.kind(), new AdmissionWrite(bound, false, new Fence(seen, patch)), failure);
            }
            // not applied: most often the job changed since the decision (its version test failed), which the read
            // shows; a refusal of an unchanged job counts towards its Warning event
            LOG.debugf("admission of %s refused (%d): %s", bound.key(), failure.code(), failure.message());
            return writes.readBack(seen.kind(), new AdmissionWrite(bound, false, null), failure)
                    .thenCompose(settlement -> {
                        if (settlement.kind() == Settlement.Kind.REFUSED) {
                            countRefusal(seen, bound.key(), failure.code(), failure.message());
                        }
                        if (settlement.kind() == Settlement.Kind.OUTDATED) {
                            versionRefusals.incrementAndGet();
                            if (mayRebind) {
                                return sendRebound(settlement);
                            }
                        }
                        return CompletableFuture.completedFuture(settlement);
                    });
        }

        /** The admission sent again on the copy read at {@code outdated}'s version, if the decision stands for it. */
        private CompletableFuture<Settlement> sendRebound(Settlement outdated) {
            Optional<JobDirectory.Entry> now = writes.seen(bound.key());
            String version = outdated.resourceVersion();
            if (now.isEmpty() || now.get().marks().isEmpty() || !version.equals(now.get().resourceVersion())
                    || !scheduler.rebind(bound.key(), bound.record(), version)) {
                return CompletableFuture.completedFuture(outdated);
            }
            rebound.incrementAndGet();
            LOG.debugf("admission of %s refused: the job changed in nothing the decision read; sent again at version"
                    + " %s", bound.key(), version);
            AdmissionWrite again = new AdmissionWrite(bound.boundTo(version), false, null);
            return writes.send(now.get(), again, again.patchOn(now.get()));
        }

        /**
         * What the job as read says about this admission (see the class comment for a read after an ambiguous
         * answer): applied (our record on it, running); admitted by another replica (its record, signed by
         * kube-queue, no mark: the charge moves to that record); started by hand (no mark, and no record kube-queue
         * wrote: the charge stays, as started outside kube-queue); else not applied: outdated if it is suspended at a
         * newer version than the patch tests (decided again on it), else refused (handed back). The read only decides
         * about this admission; the job's state still reaches the scheduler through the informer.
         */
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public CompletableFuture<Settlement> read(JobKind<?> kind, HasMetadata job) {
            Ambiguous open = ambiguousOf(bound);
            String version = open != null ? open.version() : bound.resourceVersion();
            boolean held = ((JobKind) kind).held(job);
            if (open != null && version != null && held && version.equals(job.getMetadata().getResourceVersion())) {
                // still suspended at the very version the lost patch tests: it may yet apply
                if (fence != null) {
                    return new FenceWrite(bound).send(fence);
                }
                if (nanoClock.getAsLong() - open.answeredAt() < AMBIGUOUS_PATCH_LIFETIME.toNanos()) {
                    LOG.debugf("admission of %s: still suspended at version %s, which its lost patch tests; its room"
                            + " is kept until the API server's request timeout has passed", bound.key(), version);
                    return CompletableFuture.completedFuture(Settlement.of(Settlement.Kind.UNCONFIRMED));
                }
                LOG.infof("admission of %s: still suspended at version %s %d s after its answer was lost: the API"
                        + " server's request timeout has passed, so it never applied; handed back", bound.key(),
                        version, AMBIGUOUS_PATCH_LIFETIME.toSeconds());
            }
            forgetAmbiguous(bound);
            Map<String, String> annotations = job.getMetadata().getAnnotations() == null ? Map.of()
                    : job.getMetadata().getAnnotations();
            String rv = job.getMetadata().getResourceVersion();
            if (held) {
                return CompletableFuture.completedFuture(version != null && rv != null && !version.equals(rv)
                        ? new Settlement(Settlement.Kind.OUTDATED, rv, null, null)
                        : Settlement.of(Settlement.Kind.REFUSED));
            }
            if (bound.record().admittedAt().equals(annotations.get(Annotations.ADMITTED_AT))) {
                return CompletableFuture.completedFuture(new Settlement(Settlement.Kind.APPLIED, rv, null, null));
            }
            // a record kube-queue did not write moves no charge (docs/security.md): it reads as started by hand
            AdmissionRecord found = signatures.read(job.getMetadata().getUid(), annotations).record();
            return CompletableFuture.completedFuture(found != null
                    ? new Settlement(Settlement.Kind.TAKEN_OVER, rv, found, null)
                    : new Settlement(Settlement.Kind.STARTED_BY_HAND, rv, null, null));
        }

        @Override
        public Settlement unread(SuspendWrites.Failure after, SuspendWrites.Failure read) {
            if (ambiguousOf(bound) == null) {
                LOG.debugf("could not read %s after a refused admission (%s): handing the charge back", bound.key(),
                        read.message());
                return Settlement.of(Settlement.Kind.REFUSED);
            }
            LOG.warnf("admission of %s is unconfirmed (%s); its quota stays charged, and the job is read again until"
                    + " it is known whether it applied", bound.key(), read.message());
            return Settlement.of(Settlement.Kind.UNCONFIRMED);
        }
    }

    /**
     * An admission patch to send again, as a fence, if a read shows the job unchanged since its ambiguous answer.
     *
     * @param seen  the job as last seen, which the patch was built on
     * @param patch the patch as sent
     */
    private record Fence(JobDirectory.Entry seen, String patch) {
    }

    /**
     * The fence of an ambiguous answer: the same patch sent again, bound to the same version. Whichever of the two
     * the API server applies first, the other's version test fails, so the job is admitted at most once and a read
     * after this answer cannot be overtaken. Applied: admitted. Refused: the version moved on (the lost patch
     * applied, or the job changed), which a read now shows for good. Ambiguous again: unconfirmed, re-read later.
     * One more write, only after an ambiguous answer (docs/behaviour.md counts them).
     */
    private final class FenceWrite extends AdmissionWrite {

        FenceWrite(Admission bound) {
            super(bound, false, null);
        }

        CompletableFuture<Settlement> send(Fence fence) {
            fences.incrementAndGet();
            LOG.infof("admission of %s: still suspended at the version its lost patch tests; sending the same patch"
                    + " again so that only one of the two can apply", bound.key());
            return writes.send(fence.seen(), this, fence.patch());
        }

        @Override
        public Settlement applied(HasMetadata answer) {
            forgetAmbiguous(bound);
            return super.applied(answer);
        }

        @Override
        public CompletableFuture<Settlement> failed(JobDirectory.Entry seen, String patch,
                                                    SuspendWrites.Failure failure) {
            if (failure.definite()) {
                return writes.readBack(seen.kind(), new AdmissionWrite(bound, false, null), failure);
            }
            noteAmbiguous(bound);
            LOG.warnf("admission of %s: its second patch got no clear answer either (%d); its quota stays charged,"
                    + " and the job is read again until it is known", bound.key(), failure.code());
            return CompletableFuture.completedFuture(Settlement.of(Settlement.Kind.UNCONFIRMED));
        }
    }

    /**
     * How long after an ambiguous answer its patch may still be applied: kube-apiserver's default request timeout
     * ({@code --request-timeout}, 60 s), plus 5 s for a write already in etcd's hands when it fires.
     */
    static final java.time.Duration AMBIGUOUS_PATCH_LIFETIME = java.time.Duration.ofSeconds(65);

    /** An admission patch answered ambiguously: its record, the version it tests, when (nanoTime) it was answered. */
    private record Ambiguous(AdmissionRecord record, String version, long answeredAt) {
    }

    /** Admissions whose patch was answered ambiguously and is not settled yet, per job (bounded, newest kept). */
    private final Map<JobKey, Ambiguous> ambiguous = BoundedMaps.keepingNewest(REFUSAL_STREAKS_KEPT);
    private final java.util.concurrent.atomic.AtomicLong rebound = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong fences = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong versionRefusals = new java.util.concurrent.atomic.AtomicLong();
    /** The clock of {@link #AMBIGUOUS_PATCH_LIFETIME} (tests replace it). */
    java.util.function.LongSupplier nanoClock = System::nanoTime;

    private void noteAmbiguous(Admission admission) {
        synchronized (ambiguous) {
            ambiguous.put(admission.key(), new Ambiguous(admission.record(), admission.resourceVersion(),
                    nanoClock.getAsLong()));
        }
    }

    private Ambiguous ambiguousOf(Admission admission) {
        synchronized (ambiguous) {
            Ambiguous open = ambiguous.get(admission.key());
            return open != null && open.record().equals(admission.record()) ? open : null;
        }
    }

    private void forgetAmbiguous(Admission admission) {
        synchronized (ambiguous) {
            Ambiguous open = ambiguous.get(admission.key());
            if (open != null && open.record().equals(admission.record())) {
                ambiguous.remove(admission.key());
            }
        }
    }

    /** Admissions rebound to a newer copy of their job before sending ({@link Scheduler#rebind}), since start. */
    public long rebound() {
        return rebound.get();
    }

    /**
     * Admission patches the API server refused because the job's version had moved on since the decision (a read
     * showed it suspended at a newer one), whether then sent again rebound or decided again, since start.
     */
    public long versionRefusals() {
        return versionRefusals.get();
    }

    /** Admission patches sent again to fence an ambiguous answer ({@link FenceWrite}), since start. */
    public long fences() {
        return fences.get();
    }

    /**
     * Counts one more refusal of this job's admission; the {@value #REFUSALS_BEFORE_WARNING}th in a row with the
     * same HTTP status gives the job one Warning event with the server's message (and one log line).
     */
    private void countRefusal(JobDirectory.Entry entry, JobKey key, int code, String message) {
        RefusalStreak streak;
        synchronized (refusalStreaks) {
            RefusalStreak before = refusalStreaks.get(key);
            streak = new RefusalStreak(code, before != null && before.code() == code ? before.count() + 1 : 1);
            refusalStreaks.put(key, streak);
        }
        if (streak.count() == REFUSALS_BEFORE_WARNING) {
            events.warning(entry.ref(), "AdmissionRefused", "the API server refused the admission patch "
                    + streak.count() + " times in a row (HTTP " + code + ": " + message
                    + "); kube-queue keeps retrying with backoff");
        }
    }

    private void endRefusalStreak(JobKey key) {
        synchronized (refusalStreaks) {
            refusalStreaks.remove(key);
        }
    }

    /**
     * A job running without kube-queue's admission was charged to its group: writes that charge on the job as an
     * admission record, so that a restart charges it again instead of forgetting it, and tells the owner with a
     * Warning event. The patch applies only to the object of that uid. A write refused because the job changed
     * meanwhile (409, 422: its controller's status write as it starts) is tried again on the job as read now, up to
     * {@value #RECORD_ATTEMPTS} times; a failed write is logged, and the charge holds until the job ends.
     *
     * @param started the charge the scheduler made (its group, and {@code admittedAt} saying how it started)
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void recordStartedOutside(JobFeed.StartedOutside started) {
        Admission charge = started.charge();
        Optional<JobDirectory.Entry> seen = directory.get(charge.key());
        if (seen.isEmpty() || charge.record().group() == null) {
            return;
        }
        JobKind kind = seen.get().kind();
        JobDirectory.Entry entry = seen.get().withMarks(List.of());
        for (int attempt = 1;; attempt++) {
            try {
                awaitAnswer(requests.patch(kind, charge.key(), AdmissionPatch.of(entry, charge, signatures).toString()));
                if (!started.told()) {
                    events.warning(entry.ref(), "StartedOutsideQueue", "started without kube-queue (" + started.how()
                            + "); charged to quota group " + charge.record().group() + " until it ends");
                }
                return;
            } catch (KubernetesClientException e) {
                boolean changed = e.getCode() == 409 || e.getCode() == 422;
                if (!changed || attempt == RECORD_ATTEMPTS) {
                    LOG.warnf("%s was started outside kube-queue; recording its charge failed (%s): it stays charged,"
                            + " but a restart before it ends will not know it", charge.key(), e.getMessage());
                    return;
                }
            }
            // the job changed since it was seen (most often its controller's status write as it starts): read it
            // and write the record on what it is now, unless it is gone, suspended again, or recorded meanwhile
            HasMetadata now;
            try {
                now = (HasMetadata) awaitAnswer(requests.get(kind, charge.key()));
            } catch (KubernetesClientException e) {
                LOG.warnf("%s was started outside kube-queue; reading it to record its charge failed (%s)",
                        charge.key(), e.getMessage());
                return;
            }
            if (now == null || charge.uid() != null && !charge.uid().equals(now.getMetadata().getUid())
                    || kind.held(now)) {
                return;
            }
            RecordSignatures.Reading signed = signatures.read(now.getMetadata().getUid(),
                    now.getMetadata().getAnnotations());
            if (signed.record() != null) {
                return; // recorded by kube-queue meanwhile (a record it did not write is written over)
            }
            entry = JobDirectory.Entry.of(kind, now, List.of(), signed.trusted().history());
        }
    }

    /** Writes of a started-outside record, each on the job as last read, before giving up with a log line. */
    static final int RECORD_ATTEMPTS = 3;

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void showAdmitted(JobKind<?> kind, HasMetadata admitted) {
        if (kind instanceof ShowsQueuingCondition shows && admitted instanceof CustomResource job) {
            queuing.admitted(shows, job);
        }
    }

    /**
     * Waits for a request of the started-outside path (a worker thread of its own may block; admissions never do).
     *
     * @throws KubernetesClientException the request's failure, as the DSL would have thrown it
     */
    /**
     * Writes the pod-ran mark of an admission on its job ({@link PodRanPatch}): one round trip, no thread held. A
     * refusal (the job gone, re-created, admitted again since: 404, 422) or a failure is logged at debug and changes
     * nothing else; the mark is only ever needed after a restart.
     *
     * @return completes when answered, never exceptionally
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public CompletableFuture<Void> recordPodRan(Admission admission) {
        Optional<JobDirectory.Entry> seen = directory.get(admission.key());
        if (seen.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        JobKind kind = seen.get().kind();
        CompletableFuture<?> sent;
        try {
            sent = requests.patch(kind, admission.key(), PodRanPatch.of(admission, signatures).toString());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((job, failure) -> {
            if (failure != null) {
                LOG.debugf("pod-ran mark of %s not written (%s)", admission.key(), failure.getMessage());
            }
            return null;
        });
    }

    private static <T> T awaitAnswer(CompletableFuture<T> request) {
        try {
            return request.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof KubernetesClientException failure) {
                throw failure;
            }
            throw new KubernetesClientException("request failed: " + e.getCause(), e.getCause());
        }
    }
}
