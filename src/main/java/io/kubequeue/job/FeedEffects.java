package io.kubequeue.job;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.JobKey;

/**
 * What the job feed's observations set off outside the feed: the port {@link JobFeed} is given when it is built,
 * declared here and implemented by the admission side ({@code io.kubequeue.admission.FeedToAdmission}), so that
 * {@code job/} needs nothing above it. Every method is called on the thread that observed the job, after the
 * scheduler took the observation, and must return at once (hand work to another thread).
 */
public interface FeedEffects {

    /** Effects that go nowhere and Queued events written at once by the feed (unit tests of the feed alone). */
    FeedEffects NONE = new FeedEffects() {
    };

    /** After every observation but a release: a scheduling cycle should run soon. */
    default void changed() {
    }

    /** After a job finished or was deleted: its room can be given out at once. */
    default void released() {
    }

    /** A queued job whose kind shows condition {@code Queuing=True} and that does not show it yet. */
    default void showQueuing(JobFeed.Queued<?> queued) {
    }

    /**
     * A queued job was seen started without kube-queue (its mark removed by hand) and has just been charged to its
     * group: the charge should be written on the job, so that a restart keeps it.
     */
    default void startedOutside(JobFeed.StartedOutside started) {
    }

    /**
     * A new suspended copy of a job arrived while the answer to its admission is lost: the cue to read the job back
     * now (see {@code Scheduler#unconfirmedAdmission}).
     */
    default void unconfirmedCopy(Admission admission) {
    }

    /**
     * A job was queued (first seen, or suspended again) with this {@code Queued} event message.
     *
     * @return true if the port says the event itself (the admission loop says it after the cycle that first sees the
     *         job, and not at all if that cycle admits it); false: the feed writes it now
     */
    default boolean deferQueuedEvent(JobKey key, String message) {
        return false;
    }
}
