package io.kubequeue.api;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.StrictBooleanConverter;
import io.kubequeue.input.ManifestBounds;
import io.kubequeue.job.EstimateAnswer;
import io.kubequeue.quota.elastic.ElasticQuotaTree;
import io.kubequeue.quota.elastic.ElasticQuotaTreeSource;
import io.kubequeue.quota.resourcequota.ResourceQuotaSource;
import io.kubequeue.scheduler.Forecasting;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;
import io.kubequeue.scheduler.model.WhatIf;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What a change of the quota groups or of the policy switches would do to the queue (issue 30): {@code POST
 * /api/v1/what-if} with an ElasticQuotaTree (under {@code QueueGroupPlugin=elasticquota}) or ResourceQuotas, one or a
 * {@code v1 List} (under {@code resourcequota}: the given ones replace those of their namespaces), and optionally
 * {@code StrictPriority} / {@code StrictConsistency}. The objects are read by fabric8 and turned into quota groups by
 * the quota plugin's own code, so a tree the plugin would refuse is refused here with the plugin's words. Every
 * pending job is replayed as things are and under the change ({@link Forecasting#whatIf}); nothing is written to the
 * cluster.
 *
 * <p>Authorised as the dry run: a token the API server accepts, and the answer lists only the pending jobs of
 * namespaces where the caller may list that kind; the per-group summary covers every group (the groups are visible to
 * everyone who can see the tree). A caller who may see no quota group at all is refused (403).
 */
@Path("/api/v1/what-if")
@Tag(name = "queues")
public class WhatIfApi {

    private final ReadViews scheduler;
    private final Forecasting forecasts;
    private final KubernetesClient client;
    private final ReadApiAccess access;
    private final boolean enabled;
    private final boolean strictPriority;
    private final boolean strictConsistency;

    public WhatIfApi(ReadViews scheduler, Forecasting forecasts, KubernetesClient client, ReadApiAccess access,
                     KubeQueueConfig config) {
        this.scheduler = scheduler;
        this.forecasts = forecasts;
        this.client = client;
        this.access = access;
        this.enabled = config.estimates().enabled();
        this.strictPriority = config.strictPriority();
        this.strictConsistency = config.strictConsistency();
        client.getKubernetesSerialization().registerKubernetesResource(ElasticQuotaTree.class);
    }

    /**
     * The answer.
     *
     * @param computedAt when the state was copied (RFC 3339)
     * @param jobs       the pending jobs the caller may see, each now and under the change
     * @param groups     per quota group (a job's group now), how many of its pending jobs start earlier or later
     *                   under the change, and the sum of the shifts
     */
    @RegisterForReflection // serialized by Jackson, also in the native image
    public record Answer(String computedAt, List<Job> jobs, List<Group> groups) {
    }

    /**
     * One pending job now and under the change.
     *
     * @param kind          e.g. {@code Job}
     * @param namespace     its namespace
     * @param name          its name
     * @param group         its quota group now; null if none
     * @param position      its place in its group's queue now, from 1 (0: no group)
     * @param eta           its expected start now (RFC 3339); null unless estimated
     * @param state         its estimate's state now ({@link Estimate.State})
     * @param groupAfter    its quota group under the change; null if none
     * @param positionAfter its place under the change (0: no group)
     * @param etaAfter      its expected start under the change; null unless estimated
     * @param stateAfter    its estimate's state under the change
     */
    @RegisterForReflection
    public record Job(String kind, String namespace, String name, String group, int position, String eta,
                      String state, String groupAfter, int positionAfter, String etaAfter, String stateAfter) {
    }

    /**
     * One quota group's jobs, summed.
     *
     * @param group        the group
     * @param earlier      its pending jobs that would start earlier (or start where now they would not)
     * @param later        those that would start later (or no longer start)
     * @param shiftSeconds over its jobs estimated both times, the sum of (start under the change − start now),
     *                     seconds; negative is a gain
     */
    @RegisterForReflection
    public record Group(String group, int earlier, int later, long shiftSeconds) {
    }

    /**
     * @throws BadRequestException (400) naming the problem: not a manifest, past the bounds of {@link ManifestBounds},
     *                             no quota object, the wrong kind for the plugin in force, a tree the plugin refuses,
     *                             a switch that is not true or false
     * @throws NotFoundException (404) with {@code kube-queue.estimates.enabled=false}
     * @throws jakarta.ws.rs.NotAuthorizedException (401) without a token the API server accepts
     * @throws jakarta.ws.rs.ForbiddenException (403) when the caller may see no quota group
     */
    @POST
    @Consumes({"application/yaml", "application/x-yaml", "text/yaml", MediaType.APPLICATION_JSON, MediaType.TEXT_PLAIN})
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "What an ElasticQuotaTree or ResourceQuotas (YAML or JSON), or other policy switches, would do"
            + " to every pending job's place and expected start; nothing is written")
    public Answer whatIf(String body,
                         @Parameter(description = "true or false: the blocking queue under the change")
                         @QueryParam("StrictPriority") String strictPriorityAfter,
                         @Parameter(description = "true or false: retry from the highest priority on release")
                         @QueryParam("StrictConsistency") String strictConsistencyAfter,
                         @Context HttpHeaders headers) {
        ReadApiAccess.Viewer viewer = access.viewer(headers); // before parsing: no work for an unknown caller
        if (!enabled) {
            throw new NotFoundException("start-time estimates are off (kube-queue.estimates.enabled=false)");
        }
        Set<String> visibleGroups = QueueApi.visible(viewer, scheduler.groups());
        if (visibleGroups.isEmpty()) {
            throw new jakarta.ws.rs.ForbiddenException(Response.status(Response.Status.FORBIDDEN)
                    .entity(Map.of("error", "user " + viewer.name() + " may see no namespace of any quota group"))
                    .type(MediaType.APPLICATION_JSON).build());
        }
        SchedulerSettings settings = settings(strictPriorityAfter, strictConsistencyAfter);
        QuotaTree tree = body == null || body.isBlank() ? null : tree(body);
        WhatIf answer = forecasts.whatIf(tree, settings);
        List<Job> jobs = new ArrayList<>();
        for (WhatIf.Job j : answer.jobs()) {
            if (!viewer.mayList(j.key().kind(), j.key().namespace())) {
                continue;
            }
            jobs.add(new Job(j.key().kind(), j.key().namespace(), j.key().name(), j.group(), j.position(),
                    eta(j.estimate()), state(j.estimate()), j.groupAfter(), j.positionAfter(), eta(j.estimateAfter()),
                    state(j.estimateAfter())));
        }
        List<Group> groups = answer.groups().stream()
                .map(g -> new Group(g.group(), g.earlier(), g.later(), g.shiftSeconds())).toList();
        return new Answer(EstimateAnswer.time(answer.computedAt()), jobs, groups);
    }

    /** The settings under the change; null if neither switch is given. */
    private SchedulerSettings settings(String strictPriorityAfter, String strictConsistencyAfter) {
        if (strictPriorityAfter == null && strictConsistencyAfter == null) {
            return null;
        }
        boolean priority = strictPriorityAfter == null ? strictPriority
                : bool("StrictPriority", strictPriorityAfter);
        boolean consistency = strictConsistencyAfter == null ? strictConsistency
                : bool("StrictConsistency", strictConsistencyAfter);
        SchedulerSettings now = scheduler.settings();
        return new SchedulerSettings(SchedulingPolicy.of(priority, consistency), now.initialBackoff(),
                now.maxBackoff(), now.reclaim(), now.admissionTimeout());
    }

    /** As the settings read the switch ({@link StrictBooleanConverter}): true or false, any case. */
    private static boolean bool(String name, String value) {
        try {
            return new StrictBooleanConverter().convert(value);
        } catch (RuntimeException e) {
            throw badRequest(name + ": invalid value '" + brief(value) + "'; valid values: true, false");
        }
    }

    /** The quota groups the body declares, as the plugin in force would read them. */
    private QuotaTree tree(String body) {
        List<HasMetadata> objects;
        try {
            ManifestBounds.check(body);
            objects = client.load(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8))).items();
        } catch (RuntimeException e) { // KubernetesClientException, IllegalArgumentException, or any other
            throw badRequest("not a Kubernetes manifest: " + brief(e.getMessage()));
        }
        List<ElasticQuotaTree> trees = new ArrayList<>();
        List<ResourceQuota> quotas = new ArrayList<>();
        for (HasMetadata o : objects) {
            if (o instanceof ElasticQuotaTree t) {
                trees.add(t);
            } else if (o instanceof ResourceQuota q) {
                quotas.add(q);
            } else if (o != null) {
                throw badRequest("a " + o.getKind() + " is no quota object: send an ElasticQuotaTree or ResourceQuotas");
            }
        }
        QuotaTree current = scheduler.tree();
        boolean perNamespace = current.groupsAreNamespaces();
        try {
            if (!perNamespace) {
                if (trees.size() != 1 || !quotas.isEmpty()) {
                    throw badRequest("QueueGroupPlugin=elasticquota: send exactly one ElasticQuotaTree (got "
                            + trees.size() + " trees and " + quotas.size() + " ResourceQuotas)");
                }
                return keepingTimeouts(ElasticQuotaTreeSource.toQuotaTree(trees.get(0)), current);
            }
            if (quotas.isEmpty() || !trees.isEmpty()) {
                throw badRequest("QueueGroupPlugin=resourcequota: send ResourceQuotas, one or a v1 List (got "
                        + trees.size() + " ElasticQuotaTrees and " + quotas.size() + " ResourceQuotas)");
            }
            return ResourceQuotaSource.replacing(current, quotas);
        } catch (IllegalArgumentException e) {
            throw badRequest("invalid quota groups: " + brief(e.getMessage()));
        }
    }

    /** The tree's groups, each with the admission timeout its namesake has now (the body's annotation is not read). */
    private static QuotaTree keepingTimeouts(QuotaTree tree, QuotaTree current) {
        List<QuotaNode> nodes = tree.nodes().stream().map(n -> current.nodes().stream()
                .filter(c -> c.name().equals(n.name())).findFirst()
                .map(c -> n.withAdmissionTimeout(c.admissionTimeout())).orElse(n)).toList();
        return new QuotaTree(nodes);
    }

    private static String eta(Estimate e) {
        return e == null ? null : EstimateAnswer.time(e.eta());
    }

    private static String state(Estimate e) {
        return e == null ? null : e.state().name();
    }

    private static BadRequestException badRequest(String message) {
        return new BadRequestException(message, Response.status(Response.Status.BAD_REQUEST)
                .entity(Map.of("error", message)).type(MediaType.APPLICATION_JSON).build());
    }

    /** At most one line of 300 characters (a message may quote the body). */
    private static String brief(String message) {
        if (message == null) {
            return "unreadable";
        }
        message = message.lines().findFirst().orElse(message);
        return message.length() > 300 ? message.substring(0, 300) + "..." : message;
    }
}
