package io.kubequeue.api;

import java.util.Map;

import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.kubequeue.job.DryRuns;
import io.kubequeue.scheduler.ReadViews;

/**
 * Dry-run admission through the read API: what kube-queue would do with a job manifest if it were submitted now
 * ({@link DryRuns}). Nothing is written to the cluster and nothing is queued; the answer comes from the scheduler's
 * memory.
 */
@Path("/api/v1/dry-run")
@Tag(name = "queues")
public class DryRunApi {

    private final ReadViews scheduler;
    private final DryRuns dryRuns;
    private final ReadApiAccess access;

    public DryRunApi(ReadViews scheduler, DryRuns dryRuns, ReadApiAccess access) {
        this.scheduler = scheduler;
        this.dryRuns = dryRuns;
        this.access = access;
    }

    /**
     * @throws BadRequestException (400) if the body is not a manifest, or breaks the bounds of
     *                             {@link io.kubequeue.input.ManifestBounds} (size, depth, YAML aliases)
     * @throws WebApplicationException 422 if it holds no job of a kind kube-queue knows, or its request cannot be
     *                                 read (the message names the field and value)
     * @throws jakarta.ws.rs.NotAuthorizedException (401) without a token the API server accepts
     * @throws jakarta.ws.rs.ForbiddenException (403) when the caller may not list the job's kind in its namespace,
     *                                           or may see no namespace of the quota group it would queue in
     */
    @POST
    @Consumes({"application/yaml", "application/x-yaml", "text/yaml", MediaType.APPLICATION_JSON, MediaType.TEXT_PLAIN})
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Would this job (YAML or JSON manifest) be managed, in which group, with which request; "
            + "does it fit now, and if not, which resource at which node stops it and where it would stand")
    public DryRuns.Verdict dryRun(String manifest, @Context HttpHeaders headers) {
        ReadApiAccess.Viewer viewer = access.viewer(headers); // before parsing: no work for an unknown caller
        try {
            DryRuns.Parsed parsed = dryRuns.parse(manifest, "default");
            viewer.requireList(parsed.kind().kind(), parsed.namespace());
            DryRuns.Verdict verdict = dryRuns.verdict(parsed, viewer::mayName);
            // a label can route a job to another team's group: the answer would show that group's numbers
            if (verdict.group() != null && !QueueApi.visible(viewer, scheduler.groups()).contains(verdict.group())) {
                throw new jakarta.ws.rs.ForbiddenException(Response.status(Response.Status.FORBIDDEN)
                        .entity(Map.of("error", "user " + viewer.name() + " may see no namespace of quota group "
                                + verdict.group())).type(MediaType.APPLICATION_JSON).build());
            }
            return verdict;
        } catch (DryRuns.ManifestException e) {
            Response answer = Response.status(e.status()).entity(Map.of("error", e.getMessage()))
                    .type(MediaType.APPLICATION_JSON).build();
            throw e.status() == 400 ? new BadRequestException(e.getMessage(), answer)
                    : new WebApplicationException(e.getMessage(), answer);
        }
    }
}
