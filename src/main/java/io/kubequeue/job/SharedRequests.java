package io.kubequeue.job;

import io.kubequeue.collections.BoundedInterner;
import io.kubequeue.scheduler.model.Resources;

/**
 * One {@link Resources} instance per distinct job request, for the requests kube-queue keeps of its jobs (the
 * scheduler holds each pending job's observation, request included, for as long as it is pending). A cluster's jobs
 * ask for few distinct amounts, and a request is some 200 bytes (a {@code TreeMap} of four entries and its longs):
 * issue 27 measured it per pending job. {@code Resources} never changes, so equal requests may be one instance.
 *
 * <p>At most {@link #LIMIT} distinct requests are kept; past it, each request stays its own (a tenant writing many
 * distinct amounts cannot grow this without bound). What is kept is never let go: a few thousand small maps.
 */
public final class SharedRequests {

    /** At most this many distinct requests are shared. */
    static final int LIMIT = 4096;
    private static final BoundedInterner<Resources> SHARED = new BoundedInterner<>(LIMIT);

    private SharedRequests() {
    }

    /**
     * @param request a job's request; null gives null
     * @return the one shared instance equal to {@code request}, or {@code request} itself if it is the first or more
     *         than {@link #LIMIT} distinct requests are shared already
     */
    public static Resources shared(Resources request) {
        return request == null ? null : SHARED.intern(request);
    }
}
