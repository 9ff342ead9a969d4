package io.kubequeue.api;

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

import io.kubequeue.quota.WhatIfs;
import io.kubequeue.scheduler.ReadViews;

/**
 * What a change of the quota groups or of the policy switches would do to the queue (issue 30): {@code POST
 * /api/v1/what-if} with an ElasticQuotaTree (under {@code QueueGroupPlugin=elasticquota}) or ResourceQuotas, one or a
 * {@code v1 List} (under {@code resourcequota}: the given ones replace those of their namespaces), and optionally
 * {@code StrictPriority} / {@code StrictConsistency}. The objects are read by fabric8 and turned into quota groups by
 * the quota plugin's own code ({@link WhatIfs}, shared with the visibility API's {@code whatifs}), so a tree the
 * plugin would refuse is refused here with the plugin's words. Every pending job is replayed as things are and under
 * the change; nothing is written to the cluster.
 *
 * <p>Authorised as the dry run: a token the API server accepts, and the answer lists only the pending jobs of
 * namespaces where the caller may list that kind; the per-group summary covers every group (the groups are visible to
 * everyone who can see the tree). A caller who may see no quota group at all is refused (403).
 */
@Path("/api/v1/what-if")
@Tag(name = "queues")
public class WhatIfApi {

    private final ReadViews scheduler;
    private final WhatIfs whatIfs;
    private final ReadApiAccess access;

    public WhatIfApi(ReadViews scheduler, WhatIfs whatIfs, ReadApiAccess access) {
        this.scheduler = scheduler;
        this.whatIfs = whatIfs;
        this.access = access;
    }

    /**
     * @return the answer ({@link WhatIfs.Answer}): {@code computedAt}, {@code jobs} (the caller's), {@code groups}
     *         (every one)
     * @throws BadRequestException (400) naming the problem: not a manifest, past the bounds of
     *                             {@link io.kubequeue.input.ManifestBounds}, no quota object, the wrong kind for the
     *                             plugin in force, a tree the plugin refuses, a switch that is not true or false
     * @throws NotFoundException (404) with {@code kube-queue.estimates.enabled=false}
     * @throws jakarta.ws.rs.NotAuthorizedException (401) without a token the API server accepts
     * @throws jakarta.ws.rs.ForbiddenException (403) when the caller may see no quota group
     */
    @POST
    @Consumes({"application/yaml", "application/x-yaml", "text/yaml", MediaType.APPLICATION_JSON, MediaType.TEXT_PLAIN})
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "What an ElasticQuotaTree or ResourceQuotas (YAML or JSON), or other policy switches, would do"
            + " to every pending job's place and expected start; nothing is written")
    public WhatIfs.Answer whatIf(String body,
                                 @Parameter(description = "true or false: the blocking queue under the change")
                                 @QueryParam("StrictPriority") String strictPriorityAfter,
                                 @Parameter(description = "true or false: retry from the highest priority on release")
                                 @QueryParam("StrictConsistency") String strictConsistencyAfter,
                                 @Context HttpHeaders headers) {
        ReadApiAccess.Viewer viewer = access.viewer(headers); // before parsing: no work for an unknown caller
        try {
            whatIfs.requireEnabled();
            Set<String> visibleGroups = QueueApi.visible(viewer, scheduler.groups());
            if (visibleGroups.isEmpty()) {
                throw new jakarta.ws.rs.ForbiddenException(Response.status(Response.Status.FORBIDDEN)
                        .entity(Map.of("error", "user " + viewer.name() + " may see no namespace of any quota group"))
                        .type(MediaType.APPLICATION_JSON).build());
            }
            return whatIfs.answer(body, strictPriorityAfter, strictConsistencyAfter,
                    key -> viewer.mayList(key.kind(), key.namespace()));
        } catch (WhatIfs.Refused e) {
            Response answer = Response.status(e.status()).entity(Map.of("error", e.getMessage()))
                    .type(MediaType.APPLICATION_JSON).build();
            throw e.status() == 404 ? new NotFoundException(e.getMessage(), answer)
                    : new BadRequestException(e.getMessage(), answer);
        }
    }
}
