package io.kubequeue.bench;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.URLUtils;

/**
 * The harness's writes of Jobs, none of which blocks a thread: each goes out through fabric8's asynchronous
 * {@link HttpClient#sendAsync} (the client's own HTTP client, with its authentication), at most {@code limit} at a
 * time; the rest wait in a queue and go out as answers come back. So a 150 ms write latency delays each write by
 * 150 ms and slows nothing else, as long as fewer than {@code limit} are outstanding.
 *
 * <p>The bodies are fabric8 model objects or Jackson trees serialized by the client's
 * {@link KubernetesSerialization}; the URLs are the Job's REST paths under the client's master URL.
 */
final class JobWriter {

    private static final String JOBS = "apis/batch/v1/namespaces";

    private final HttpClient http;
    private final KubernetesSerialization json;
    private final String master;
    private final Semaphore permits;
    private final Queue<Pending> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<String> firstFailure = new AtomicReference<>();

    private record Pending(HttpRequest request, CompletableFuture<HttpResponse<String>> result) {
    }

    /**
     * @param limit writes outstanding at once at most
     */
    JobWriter(KubernetesClient client, int limit) {
        this.http = client.getHttpClient();
        this.json = client.getKubernetesSerialization();
        this.master = client.getConfiguration().getMasterUrl();
        this.permits = new Semaphore(limit);
    }

    /** POSTs the Job. */
    CompletableFuture<HttpResponse<String>> create(Job job) {
        String url = URLUtils.join(master, JOBS, job.getMetadata().getNamespace(), "jobs");
        return send(http.newHttpRequestBuilder().uri(url).post("application/json", json.asJson(job)));
    }

    /**
     * Sets {@code spec.suspend} false with one JSON Patch, {@code test} (it is true) then {@code replace}: the
     * reference admitter's and the probe's admission.
     */
    CompletableFuture<HttpResponse<String>> unsuspend(String namespace, String name) {
        ArrayNode patch = JsonNodeFactory.instance.arrayNode();
        patch.addObject().put("op", "test").put("path", "/spec/suspend").put("value", true);
        patch.addObject().put("op", "replace").put("path", "/spec/suspend").put("value", false);
        return patch(namespace, name, "", "application/json-patch+json", patch);
    }

    /**
     * The Job controller's write when it first syncs a suspended Job: condition {@code Suspended} True, reason
     * {@code JobSuspended} (kube-controller-manager's job controller adds it to every suspended Job that lacks it).
     * A status-only write: it moves the Job's resourceVersion while it waits, as on a real cluster.
     */
    CompletableFuture<HttpResponse<String>> suspended(String namespace, String name) {
        String now = now();
        JobStatus status = new JobStatusBuilder().withConditions(new JobConditionBuilder().withType("Suspended")
                .withStatus("True").withReason("JobSuspended").withMessage("Job suspended").withLastProbeTime(now)
                .withLastTransitionTime(now).build()).build();
        return patch(namespace, name, "/status", "application/merge-patch+json", json.convertValue(Map.of("status", status),
                JsonNode.class));
    }

    /** The Job controller's write when an admitted Job starts: {@code status.startTime} and one active pod. */
    CompletableFuture<HttpResponse<String>> started(String namespace, String name) {
        JobStatus status = new JobStatusBuilder().withStartTime(now()).withActive(1).build();
        return patch(namespace, name, "/status", "application/merge-patch+json", json.convertValue(Map.of("status", status),
                JsonNode.class));
    }

    /**
     * The Job controller's write when the Job's pod has succeeded: condition {@code Complete} True (what
     * kube-queue's BatchJobKind reads as finished), {@code succeeded} 1, no pod active, the completion time.
     */
    CompletableFuture<HttpResponse<String>> completed(String namespace, String name) {
        String now = now();
        JobStatus status = new JobStatusBuilder().withActive(0).withSucceeded(1).withCompletionTime(now)
                .withConditions(new JobConditionBuilder().withType("Complete").withStatus("True")
                        .withLastProbeTime(now).withLastTransitionTime(now).build())
                .build();
        return patch(namespace, name, "/status", "application/merge-patch+json", json.convertValue(Map.of("status", status),
                JsonNode.class));
    }

    private CompletableFuture<HttpResponse<String>> patch(String namespace, String name, String subresource,
                                                         String contentType, JsonNode body) {
        String url = URLUtils.join(master, JOBS, namespace, "jobs", name) + subresource;
        return send(http.newHttpRequestBuilder().uri(url).method("PATCH", contentType, json.asJson(body)));
    }

    private CompletableFuture<HttpResponse<String>> send(HttpRequest.Builder request) {
        CompletableFuture<HttpResponse<String>> result = new CompletableFuture<>();
        waiting.add(new Pending(request.timeout(60, TimeUnit.SECONDS).build(), result));
        drain();
        return result;
    }

    /** Sends waiting writes while permits last; called after each enqueue and each answer, so none is stranded. */
    private void drain() {
        while (!waiting.isEmpty() && permits.tryAcquire()) {
            Pending next = waiting.poll();
            if (next == null) {
                permits.release();
                continue;
            }
            http.sendAsync(next.request(), String.class).whenComplete((response, error) -> {
                permits.release();
                if (error != null) {
                    failed(next.request().method() + " " + next.request().uri() + ": " + error);
                    next.result().completeExceptionally(error);
                } else {
                    if (!response.isSuccessful()) {
                        failed(next.request().method() + " " + next.request().uri() + ": HTTP " + response.code()
                                + " " + abbreviate(response.body()));
                    }
                    next.result().complete(response);
                }
                drain();
            });
        }
    }

    private void failed(String what) {
        failures.incrementAndGet();
        firstFailure.compareAndSet(null, what);
    }

    /** Writes that failed or were answered with an error status so far. */
    long failures() {
        return failures.get();
    }

    /** What the first failed write was and why, or null. */
    String firstFailure() {
        return firstFailure.get();
    }

    /** Writes waiting for a permit now. */
    int waiting() {
        return waiting.size();
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }
}
