package io.kubequeue.api;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.inject.Instance;
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

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.input.ManifestBounds;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.JobKinds;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.scheduler.model.DryRun;
import io.kubequeue.scheduler.model.JobObservation;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Dry-run admission: what kube-queue would do with a job manifest if it were submitted now. Nothing is written to
 * the cluster and nothing is queued; the answer comes from the scheduler's memory.
 */
@Path("/api/v1/dry-run")
@Tag(name = "queues")
public class DryRunApi {

    private final KubernetesClient client;
    private final ReadViews scheduler;
    private final JobFeed feed;
    private final Instance<JobKind<?>> kinds;
    private final ReadApiAccess access;

    public DryRunApi(KubernetesClient client, ReadViews scheduler, JobFeed feed, Instance<JobKind<?>> kinds,
                     ReadApiAccess access) {
        this.client = client;
        this.scheduler = scheduler;
        this.feed = feed;
        this.kinds = kinds;
        this.access = access;
        JobKinds.registerTypes(client); // a manifest's TFJob is read as a TFJob, not a generic resource
    }

    /**
     * The verdict on one job.
     *
     * @param managed   whether kube-queue would queue it (a managed kind, submitted with a suspend mark)
     * @param kind      its kind
     * @param namespace its namespace ({@code default} if the manifest names none)
     * @param name      its name
     * @param group     the quota group it would queue in; null if none
     * @param request   its whole request, computed as kube-queue computes it
     * @param priority  its priority as resolved now
     * @param fitsNow   whether it fits its group and every ancestor now
     * @param position  where it would stand in its group's queue, from 1 (0: no group, or never fits)
     * @param reason    why it would wait (the resource, node, request, use and limit), or "fits now"; for a job
     *                  kube-queue would not manage, why
     */
    @RegisterForReflection // serialized by Jackson, also in the native image
    public record Verdict(boolean managed, String kind, String namespace, String name, String group,
                          Map<String, String> request, int priority, boolean fitsNow, int position, String reason) {
    }

    /**
     * @throws BadRequestException (400) if the body is not a manifest, or breaks the bounds of {@link ManifestBounds}
     *                             (size, depth, YAML aliases)
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
    public Verdict dryRun(String manifest, @Context HttpHeaders headers) {
        ReadApiAccess.Viewer viewer = access.viewer(headers); // before parsing: no work for an unknown caller
        List<HasMetadata> objects;
        try {
            ManifestBounds.check(manifest); // size, depth, aliases: before fabric8 builds anything of it
            objects = client.load(new ByteArrayInputStream(manifest.getBytes(StandardCharsets.UTF_8))).items();
        } catch (RuntimeException e) { // KubernetesClientException, IllegalArgumentException, or any other
            String message = "not a Kubernetes manifest: " + brief(e);
            throw new BadRequestException(message, Response.status(400).entity(Map.of("error", message))
                    .type(MediaType.APPLICATION_JSON).build());
        }
        for (HasMetadata object : objects) {
            Optional<JobKind<?>> kind = kinds.stream().filter(k -> k.type().isInstance(object)).findFirst();
            if (kind.isPresent()) {
                String namespace = object.getMetadata() == null || object.getMetadata().getNamespace() == null
                        ? "default" : object.getMetadata().getNamespace();
                viewer.requireList(kind.get().kind(), namespace);
                Verdict verdict = verdict(kind.get(), object, viewer);
                // a label can route a job to another team's group: the answer would show that group's numbers
                if (verdict.group() != null
                        && !QueueApi.visible(viewer, scheduler.groups()).contains(verdict.group())) {
                    throw new jakarta.ws.rs.ForbiddenException(Response.status(Response.Status.FORBIDDEN)
                            .entity(Map.of("error", "user " + viewer.name() + " may see no namespace of quota group "
                                    + verdict.group())).type(MediaType.APPLICATION_JSON).build());
                }
                return verdict;
            }
        }
        throw unprocessable("no job of a kind kube-queue manages (" + String.join(", ", JobKinds.names(client))
                + ") in the manifest");
    }

    private <R extends HasMetadata> Verdict verdict(JobKind<R> kind, HasMetadata object, ReadApiAccess.Viewer viewer) {
        R job = kind.type().cast(object);
        JobObservation o;
        try {
            o = feed.preview(kind, job, Clock.systemUTC().instant());
        } catch (InvalidJobException e) {
            throw unprocessable(e.getMessage());
        } catch (RuntimeException e) { // the kind adapter could not read it otherwise: the manifest's fault too
            throw unprocessable("cannot be read (" + brief(e) + ")");
        }
        DryRun d = scheduler.dryRun(o);
        String notManaged = !feed.enabled(kind.kind())
                ? kind.kind() + " is switched off by kube-queue.disabled-kinds: kube-queue leaves it alone"
                : !feed.watches(o.key().namespace())
                ? "namespace " + o.key().namespace() + " is not in kube-queue.watch-namespaces: kube-queue leaves it alone"
                : o.phase() == JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD
                ? "it carries no suspend mark, so it would start at once and kube-queue would leave it alone"
                : null;
        if (notManaged == null && o.phase() == JobObservation.Phase.STARTED_DESPITE_MARK) {
            // managed, but not queued: its controller runs it at once, and kube-queue charges it
            return new Verdict(true, kind.kind(), o.key().namespace(), o.key().name(), d.group(),
                    o.request().asQuantities(), d.priority(), d.fitsNow(), 0,
                    JobFeed.ignoredMarkReason(kind, kind.suspendMarks(job)) + " at once; kube-queue would charge it to"
                            + " quota group " + d.group() + " as started outside the queue (set spec.suspend: true to"
                            + " queue it)");
        }
        return new Verdict(notManaged == null, kind.kind(), o.key().namespace(), o.key().name(), d.group(),
                o.request().asQuantities(), d.priority(), d.fitsNow(), d.position(),
                notManaged != null ? notManaged : d.reason().render(viewer::mayName));
    }

    /** An exception in one bounded line (its message may quote the manifest). */
    private static String brief(RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        message = message.lines().findFirst().orElse(message);
        return message.length() > 300 ? message.substring(0, 300) + "..." : message;
    }

    private static WebApplicationException unprocessable(String message) {
        return new WebApplicationException(message, Response.status(422).entity(Map.of("error", message))
                .type(MediaType.APPLICATION_JSON).build());
    }
}
