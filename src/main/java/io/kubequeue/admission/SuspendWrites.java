package io.kubequeue.admission;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.JobKind;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The one write path for every write that changes whether a job runs (its suspend mark): an admission
 * ({@link Admitter}), a reclaim eviction and an admission-timeout eviction ({@link Evicter}) are three
 * {@link Decision}s through it. The skeleton is the same for all three:
 * <ol>
 *   <li>find the job as last seen ({@link JobDirectory}): not managed any more ends the write unsent;</li>
 *   <li>plan the patch for the decision on that copy ({@link Decision#plan}), which may also end it unsent (another
 *       object of that name now, a job that has no mark to change, a decision the copy outdates);</li>
 *   <li>send it, bound to that object by the patch's own {@code test} ops (one non-blocking round trip,
 *       {@link AsyncJobRequests});</li>
 *   <li>a plain success is applied; a 404 is gone; any other answer is a {@link Failure}, definite (400, 401, 403,
 *       409, 422: not applied) or ambiguous (5xx, 429, a timeout: it may have applied), which the decision answers,
 *       most often by reading the job back ({@link #readBack});</li>
 *   <li>the decision turns each of these into its one outcome type {@code O}, which its settling takes.</li>
 * </ol>
 * Nothing here blocks or throws into the future: every future completes with an outcome (or null where a re-read
 * finds nothing left to settle). Each write is one round trip, a second (the read) only after an answer that is not
 * a plain success.
 */
final class SuspendWrites {

    private final AsyncJobRequests requests;
    private final JobDirectory directory;

    SuspendWrites(AsyncJobRequests requests, JobDirectory directory) {
        this.requests = requests;
        this.directory = directory;
    }

    /**
     * An answer that was neither a plain success nor a 404.
     *
     * @param code    the HTTP status, 0 when there was none (a timeout, a lost connection)
     * @param message the API server's own message ({@code Status.message}), else the client's
     */
    record Failure(int code, String message) {

        static Failure of(Throwable failure) {
            if (failure instanceof java.util.concurrent.CompletionException wrapped && wrapped.getCause() != null) {
                failure = wrapped.getCause();
            }
            if (failure instanceof KubernetesClientException e) {
                String server = e.getStatus() == null ? null : e.getStatus().getMessage();
                return new Failure(e.getCode(), server != null && !server.isBlank() ? server : e.getMessage());
            }
            return new Failure(0, String.valueOf(failure.getMessage()));
        }

        /**
         * Whether the API server answered that it did not apply the write and will not without a change: a bad or
         * stale patch (400, 409, 422) or missing rights (401, 403). Anything else may have applied.
         */
        boolean definite() {
            return definiteRefusal(code);
        }
    }

    /** See {@link Failure#definite}. */
    static boolean definiteRefusal(int code) {
        return code == 400 || code == 401 || code == 403 || code == 409 || code == 422;
    }

    /**
     * What one write is, on the job as last seen: the patch and the decision that answers for it, or the outcome the
     * decision reached without a write.
     *
     * @param by     the decision the answer goes to (the planning one, or one it made on this copy: an admission
     *               rebound to a newer version), or null when nothing is sent
     * @param patch  the JSON Patch to send, or null
     * @param unsent the outcome when nothing is sent, or null
     */
    record Plan<O>(Decision<O> by, String patch, O unsent) {

        static <O> Plan<O> send(Decision<O> by, String patch) {
            return new Plan<>(by, patch, null);
        }

        static <O> Plan<O> unsent(O outcome) {
            return new Plan<>(null, null, outcome);
        }
    }

    /**
     * One decision that changes whether a job runs, as the write path carries it out.
     *
     * @param <O> the one outcome type the decision's settling takes
     */
    interface Decision<O> {

        /** The job decided about. */
        JobKey key();

        /** The uid of the object the decision was made for, or null (any object of that name). */
        String uid();

        /** The outcome when the job is no longer managed (absent from the directory): nothing is sent. */
        O unmanaged();

        /** The outcome when the job is gone (404, absent when read, or another uid). */
        O gone();

        /**
         * The patch for this decision on the job as last seen, or the outcome reached without sending: among others
         * gone when {@code seen} is another object than the decision's ({@link #sameObject}: deleted and created again
         * since).
         */
        Plan<O> plan(JobDirectory.Entry seen);

        /**
         * The patch applied.
         *
         * @param answer the job as the patch left it
         */
        O applied(HasMetadata answer);

        /**
         * An answer that was not a plain success nor a 404, to the patch {@code patch} sent on {@code seen}: most
         * decisions read the job back ({@link #readBack}).
         */
        CompletableFuture<O> failed(JobDirectory.Entry seen, String patch, Failure failure);

        /**
         * What a read of the job says about this decision.
         *
         * @param job the job as read: the object the decision was made for (absent or another uid is {@link #gone})
         */
        CompletableFuture<O> read(JobKind<?> kind, HasMetadata job);

        /**
         * The read failed too.
         *
         * @param after the failure that asked for the read, or null for a re-read
         */
        O unread(Failure after, Failure read);
    }

    /** Carries out one decision (see the class comment). */
    <O> CompletableFuture<O> write(Decision<O> decision) {
        Optional<JobDirectory.Entry> seen = directory.get(decision.key());
        if (seen.isEmpty()) {
            return CompletableFuture.completedFuture(decision.unmanaged());
        }
        Plan<O> plan = decision.plan(seen.get());
        if (plan.patch() == null) {
            return CompletableFuture.completedFuture(plan.unsent());
        }
        return send(seen.get(), plan.by(), plan.patch());
    }

    /** Sends {@code patch} for {@code decision}, built on {@code seen}, and turns its answer into the outcome. */
    <O> CompletableFuture<O> send(JobDirectory.Entry seen, Decision<O> decision, String patch) {
        return requests.patch(seen.kind(), decision.key(), patch).handle((answer, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(decision.applied(answer));
            }
            Failure failed = Failure.of(failure);
            if (failed.code() == 404) {
                // its delete event may never come if it was deleted before the informers listed it
                return CompletableFuture.completedFuture(decision.gone());
            }
            return decision.failed(seen, patch, failed);
        }).thenCompose(Function.identity());
    }

    /**
     * Reads the job back (one round trip) and has the decision say what the read means: gone when it is absent or
     * another object of that name, else {@link Decision#read}; {@link Decision#unread} when the read fails too.
     *
     * @param after the failure that asked for the read, or null for a re-read
     */
    <O> CompletableFuture<O> readBack(JobKind<?> kind, Decision<O> decision, Failure after) {
        return requests.get(kind, decision.key()).handle((job, failure) -> {
            if (failure != null) {
                return CompletableFuture.completedFuture(decision.unread(after, Failure.of(failure)));
            }
            if (job == null || !sameObject(decision.uid(), job.getMetadata().getUid())) {
                return CompletableFuture.completedFuture(decision.gone());
            }
            return decision.read(kind, job);
        }).thenCompose(Function.identity());
    }

    /** The job as last seen, if it is still managed. */
    Optional<JobDirectory.Entry> seen(JobKey key) {
        return directory.get(key);
    }

    /** Whether two uids name the same object (an unknown uid names any). */
    static boolean sameObject(String decided, String seen) {
        return decided == null || seen == null || decided.equals(seen);
    }
}
