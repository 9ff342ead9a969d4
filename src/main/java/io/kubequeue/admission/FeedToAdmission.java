package io.kubequeue.admission;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.client.CustomResource;
import io.kubequeue.job.FeedEffects;
import io.kubequeue.job.JobFeed;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The job feed's effects, carried to the admission side: cycles of the {@link AdmissionLoop}, the records it writes,
 * its deferred Queued events, and the Queuing condition ({@link QueuingConditions}). The one implementation of
 * {@link FeedEffects} in the running operator; the feed gets it when CDI builds the feed.
 */
@Singleton
public class FeedToAdmission implements FeedEffects {

    private final AdmissionLoop loop;
    private final QueuingConditions queuing;

    public FeedToAdmission(AdmissionLoop loop, QueuingConditions queuing) {
        this.loop = loop;
        this.queuing = queuing;
    }

    @Override
    public void changed() {
        loop.trigger();
    }

    @Override
    public void released() {
        loop.triggerAtOnce();
    }

    @Override
    public void showQueuing(JobFeed.Queued<?> queued) {
        show(queued);
    }

    private <R extends CustomResource<JsonNode, JsonNode>> void show(JobFeed.Queued<R> queued) {
        queuing.queued(queued.kind(), queued.job());
    }

    @Override
    public void startedOutside(JobFeed.StartedOutside started) {
        loop.recordStartedOutside(started);
    }

    @Override
    public void unconfirmedCopy(Admission admission) {
        loop.recheckNow(admission);
    }

    /** Said by the loop after the cycle that first sees the job, if it is still pending then. */
    @Override
    public boolean deferQueuedEvent(JobKey key, String message) {
        loop.queuedEvent(key, message);
        return true;
    }
}
