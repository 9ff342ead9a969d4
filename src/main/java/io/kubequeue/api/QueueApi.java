package io.kubequeue.api;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.kubequeue.scheduler.Resources;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The queues as the scheduler holds them: every quota group with its limits and usage, each group's pending jobs
 * in order with the reason each waits, and one job by namespace and name. Amounts are Kubernetes quantities
 * ({@code "1500m"}, {@code "3Gi"}); {@code kube-queue/max-jobs} is a count.
 */
@Path("/api/v1")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "queues", description = "Quota groups and their queues, read from kube-queue's memory")
public class QueueApi {

    private final Scheduler scheduler;

    public QueueApi(Scheduler scheduler) {
        this.scheduler = scheduler;
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
     */
    @RegisterForReflection // serialized by Jackson, also in the native image
    public record Job(String kind, String namespace, String name, String group, String state, int position,
                      int priority, Map<String, String> request, Instant retryAt, String reason) {
    }

    @GET
    @Path("/queues")
    @Operation(summary = "Every quota group: limits, usage, pending and admitted counts, policy")
    public List<Queue> queues() {
        String policy = scheduler.settings().policy().name();
        return scheduler.groups().stream().map(g -> new Queue(g.name(), g.parent(), policy, quantities(g.min()),
                quantities(g.max()), quantities(g.used()), quantities(g.outside()), g.pending(), g.admitted()))
                .toList();
    }

    /** @throws NotFoundException (404) when no such group exists and no job queues in it */
    @GET
    @Path("/queues/{group}/jobs")
    @Operation(summary = "A group's pending jobs in queue order, each with its position and why it waits")
    public List<Job> pending(@Parameter(description = "quota group name") @PathParam("group") String group) {
        if (scheduler.groups().stream().noneMatch(g -> g.name().equals(group))) {
            throw new NotFoundException("no quota group " + group);
        }
        return scheduler.pending(group).stream().map(QueueApi::job).toList();
    }

    /** @throws NotFoundException (404) when kube-queue holds no such job (never managed, or finished) */
    @GET
    @Path("/jobs/{namespace}/{name}")
    @Operation(summary = "One job: its group, position and why it waits")
    public Job job(@PathParam("namespace") String namespace, @PathParam("name") String name,
                   @Parameter(description = "the kind, when jobs of several kinds share the name")
                   @QueryParam("kind") String kind) {
        return scheduler.find(namespace, name).stream()
                .filter(v -> kind == null || v.status().key().kind().equalsIgnoreCase(kind))
                .findFirst().map(QueueApi::job)
                .orElseThrow(() -> new NotFoundException("kube-queue holds no job " + namespace + "/" + name));
    }

    private static Job job(Scheduler.PendingView v) {
        Scheduler.JobStatus s = v.status();
        return new Job(s.key().kind(), s.key().namespace(), s.key().name(), s.group(), s.state().name(), v.position(),
                s.priority(), quantities(s.request()), s.retryAt(), v.reason());
    }

    /** Amounts as Kubernetes quantities ({@code "1500m"}, {@code "3Gi"}), by resource name. */
    static Map<String, String> quantities(Resources resources) {
        Map<String, String> out = new TreeMap<>();
        resources.asMap().forEach((name, amount) -> out.put(name, Resources.format(name, amount)));
        return out;
    }
}
