package io.kubequeue.api;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.job.EstimateAnswer;
import io.kubequeue.scheduler.Forecasting;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.PendingView;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The queues as the scheduler holds them: every quota group with its limits and usage, each group's pending jobs
 * in order with the reason each waits, and one job by namespace and name. Amounts are Kubernetes quantities
 * ({@code "1500m"}, {@code "3Gi"}); {@code kube-queue/max-jobs} is a count.
 * <p>A caller sees only what the API server lets them list ({@link ReadApiAccess}): the jobs of namespaces where
 * they may list that kind, and the quota groups that hold such a namespace (or have a descendant that does).
 * Positions are a job's place among every job of its group, seen or not.
 */
@Path("/api/v1")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "queues", description = "Quota groups and their queues, read from kube-queue's memory")
public class QueueApi {

    private final ReadViews scheduler;
    private final ReadApiAccess access;
    /** The estimates; null with {@code kube-queue.estimates.enabled=false}. */
    private final Forecasting forecasts;
    private final Clock clock = Clock.systemUTC();

    public QueueApi(ReadViews scheduler, Forecasting forecasts, KubeQueueConfig config, ReadApiAccess access) {
        this.scheduler = scheduler;
        this.forecasts = config.estimates().enabled() ? forecasts : null;
        this.access = access;
    }

    /**
     * One quota group.
     *
     * @param name     the group (an ElasticQuotaTree node, or a namespace under the ResourceQuota plugin)
     * @param parent   its parent, or null at a root
     * @param policy   the queue policy in force: DEFAULT, BLOCKING_QUEUE or RETRY_ON_RELEASE
     * @param min      declared min
     * @param max      declared max; a resource absent is not limited here
     * @param used     used by the jobs kube-queue admitted (descendants included)
     * @param outside  used outside kube-queue (ResourceQuota plugin: other pods)
     * @param pending  jobs waiting in this group
     * @param admitted jobs admitted into this group itself
     */
    @RegisterForReflection // serialized by Jackson, also in the native image
    public record Queue(String name, String parent, String policy, Map<String, String> min, Map<String, String> max,
                        Map<String, String> used, Map<String, String> outside, int pending, int admitted) {
    }

    /**
     * One job, pending or admitted.
     *
     * @param kind      e.g. {@code Job}, {@code TFJob}
     * @param namespace its namespace
     * @param name      its name
     * @param group     the quota group it queues in or is charged to; null if none
     * @param state     ACTIVE (tried in the next cycle), BACKOFF, HELD (waits for a quota change) or ADMITTED
     * @param position  its place in its group's queue, from 1; 0 when admitted or in no group
     * @param priority  its priority as resolved now
     * @param request   the whole job's request
     * @param retryAt   when a backed-off job is tried again; null otherwise
     * @param reason    why it is not admitted, with the numbers; or where it was admitted
     * @param estimate  when a pending job is expected to start, from the last replay (issue 30; at most
     *                  {@code kube-queue.estimates.interval} old while the queue changes: {@code ageSeconds} says);
     *                  null for an admitted job, before the first replay, or with estimates off
     * @param unblock   the least that would admit a pending job now, one line each ("raise max cpu of quota group
     *                  root.a by 2", "Job team-a/x ending (expected …)"); empty if it fits now; null for an admitted
     *                  job or with estimates off
     */
    @RegisterForReflection // serialized by Jackson, also in the native image
    public record Job(String kind, String namespace, String name, String group, String state, int position,
                      int priority, Map<String, String> request, Instant retryAt, String reason,
                      EstimateAnswer estimate, List<String> unblock) {
    }

    /**
     * @throws jakarta.ws.rs.NotAuthorizedException (401) without a token the API server accepts
     */
    @GET
    @Path("/queues")
    @Operation(summary = "Every quota group: limits, usage, pending and admitted counts, policy")
    public List<Queue> queues(@Context HttpHeaders headers) {
        ReadApiAccess.Viewer viewer = access.viewer(headers);
        String policy = scheduler.settings().policy().name();
        List<GroupView> groups = scheduler.groups();
        Set<String> visible = visible(viewer, groups);
        return groups.stream().filter(g -> visible.contains(g.name()))
                .map(g -> new Queue(g.name(), g.parent(), policy, g.min().asQuantities(), g.max().asQuantities(),
                        g.used().asQuantities(), g.outside().asQuantities(), g.pending(), g.admitted()))
                .toList();
    }

    /**
     * @throws NotFoundException (404) when no such group exists and no job queues in it, or the caller may see no
     *                           namespace in it
     * @throws jakarta.ws.rs.NotAuthorizedException (401) without a token the API server accepts
     */
    @GET
    @Path("/queues/{group}/jobs")
    @Operation(summary = "A group's pending jobs in queue order, each with its position and why it waits")
    public List<Job> pending(@Parameter(description = "quota group name") @PathParam("group") String group,
                             @Context HttpHeaders headers) {
        ReadApiAccess.Viewer viewer = access.viewer(headers);
        if (!visible(viewer, scheduler.groups()).contains(group)) {
            throw new NotFoundException("no quota group " + group);
        }
        return scheduler.pending(group).stream()
                .filter(v -> viewer.mayList(v.status().key().kind(), v.status().key().namespace()))
                .map(v -> job(v, viewer, forecasts, clock.instant())).toList();
    }

    /**
     * @throws NotFoundException (404) when kube-queue holds no such job the caller may see (never managed, or
     *                           finished)
     * @throws jakarta.ws.rs.ForbiddenException (403) when the caller may list no managed kind in the namespace
     * @throws jakarta.ws.rs.NotAuthorizedException (401) without a token the API server accepts
     */
    @GET
    @Path("/jobs/{namespace}/{name}")
    @Operation(summary = "One job: its group, position and why it waits")
    public Job job(@PathParam("namespace") String namespace, @PathParam("name") String name,
                   @Parameter(description = "the kind, when jobs of several kinds share the name")
                   @QueryParam("kind") String kind, @Context HttpHeaders headers) {
        ReadApiAccess.Viewer viewer = access.viewer(headers);
        if (kind != null) {
            viewer.requireList(kind, namespace);
        } else {
            viewer.requireListAnyKind(namespace);
        }
        return scheduler.find(namespace, name).stream()
                .filter(v -> kind == null || v.status().key().kind().equalsIgnoreCase(kind))
                .filter(v -> viewer.mayList(v.status().key().kind(), namespace))
                .findFirst().map(v -> job(v, viewer, forecasts, clock.instant()))
                .orElseThrow(() -> new NotFoundException("kube-queue holds no job " + namespace + "/" + name));
    }

    /** The groups this viewer may see ({@link GroupView#visibleThrough}). */
    static Set<String> visible(ReadApiAccess.Viewer viewer, List<GroupView> groups) {
        return GroupView.visibleThrough(groups, viewer::mayListAnyKind);
    }

    /**
     * One job as this viewer reads it: other jobs its reason, its estimate's assumptions and its unblock lines name
     * appear only if the viewer may see them.
     *
     * @param forecasts the estimates; null: none given (estimates off)
     */
    private static Job job(PendingView v, ReadApiAccess.Viewer viewer, Forecasting forecasts, Instant now) {
        JobStatus s = v.status();
        boolean pending = s.state() != JobState.ADMITTED;
        EstimateAnswer estimate = null;
        List<String> unblock = null;
        if (pending && forecasts != null) {
            estimate = EstimateAnswer.of(forecasts.estimate(s.key()).orElse(null), viewer::mayName, now);
            unblock = forecasts.unblock(s.key()).stream().map(e -> e.render(viewer::mayName)).toList();
        }
        return new Job(s.key().kind(), s.key().namespace(), s.key().name(), s.group(), s.state().name(), v.position(),
                s.priority(), s.request().asQuantities(), s.retryAt(), v.reason().render(viewer::mayName), estimate,
                unblock);
    }
}
