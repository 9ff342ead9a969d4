package io.kubequeue.scheduler.queue;

import java.time.Instant;

import io.kubequeue.scheduler.ledger.QuotaLedger.FitShape;

/**
 * Backed-off jobs that wait as one (issue 27): the same group and shape ({@link FitShape}: request with the job count,
 * preemptibility), the same retry time and the same number of tries. Such jobs are decided alike by every expiry, so
 * the global backoff set holds the wave once, by its first member in queue order, and a cycle that finds the shape
 * still short where it last was (no room gained there) counts a try for all of them at once and sets them waiting
 * again, doubled, together: O(1) for the wave, not O(its jobs). When the shape may fit, or a reclaim may start for
 * it, the members are decided one by one as before, in the same order.
 *
 * <p>While a job is a member, {@link JobEntry#attempts()} and {@link JobEntry#retryAt()} read the wave; its own
 * fields are set from the wave when it leaves ({@link QueueManager}). A job waits alone, in no wave, while its
 * admission was refused (only its own expiry retries it) or while it yields to a reclaim; and while no other job
 * waits alike: a wave has two members or more, a lone job waits in {@link LoneWaiters} until another joins it (a
 * wave of one costs more than the job itself in the global set). Only {@link QueueManager} changes a wave (the cycle
 * reads it, and has a try counted through {@link QueueManager#countTry(BackoffWave)}), under {@code Scheduler}'s lock.
 */
public final class BackoffWave {

    /** What makes jobs wait alike. */
    record Key(FitShape shape, Instant retryAt, int attempts) {
    }

    final FitShape shape;
    /** When the members are tried again; changed only while the wave is out of {@link QueueManager}'s map. */
    Instant retryAt;
    /** The members' tries; changed only while the wave is out of {@link QueueManager}'s map. */
    int attempts;
    /** Taken out by a cycle that counts a try for all its members; back when they wait again. */
    boolean taken;
    /**
     * The members, a heap in queue order ({@link JobEntry#waveSlot}); the first stands for the wave in the global
     * backoff set. A heap, not a sorted set: 40 bytes per member less (issue 27), and only the first is read in order.
     */
    final EntryHeap members = new EntryHeap(QueueOrder.JOBS, EntryHeap.Slot.WAVE);

    BackoffWave(Key key) {
        this.shape = key.shape();
        this.retryAt = key.retryAt();
        this.attempts = key.attempts();
    }

    /** What makes its members wait alike: group, request with the job count, preemptibility. */
    public FitShape shape() {
        return shape;
    }

    /** The members' tries ({@link QueueManager}'s). */
    public int attempts() {
        return attempts;
    }

    Key key() {
        return new Key(shape, retryAt, attempts);
    }

    public int size() {
        return members.size();
    }
}
