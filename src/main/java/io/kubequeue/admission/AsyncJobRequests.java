package io.kubequeue.admission;

import java.net.MalformedURLException;
import java.net.URL;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.URLUtils;
import io.kubequeue.job.JobKind;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The admission path's reads and writes of one job: each is exactly one API-server round trip, and none holds a
 * thread while it waits (the answer completes a future on the HTTP client's event loop).
 *
 * <p>Why not fabric8's DSL: its {@code patch} on a named resource reads the object first (a GET, then the
 * PATCH: two round trips), and every DSL call blocks its thread for the whole round trip. This class sends the
 * same request through the same {@link HttpClient} the DSL uses (authentication, TLS, impersonation, fabric8's
 * retry of failed connections and its request timeout all apply), to the URL the DSL would use.
 *
 * <p>A failure completes the future with a {@link KubernetesClientException}: an HTTP error carries its code and
 * the server's {@link Status}, exactly as the DSL would throw it; a failure without an answer (connection
 * refused, timeout) has no code ({@code getCode() == 0}) and may or may not have been applied.
 */
@Singleton
public class AsyncJobRequests {

    /** RFC 6902 JSON Patch media type, as the API server names it. */
    static final String JSON_PATCH = "application/json-patch+json";

    private final KubernetesClient client;
    /**
     * Per resource ({@code group/version/plural}), the URL up to the namespace
     * ({@code <master>/apis/<group>/<version>/namespaces/}) and the plural: built once, not per request (reading a
     * model class's annotations per request was 2.5 % of the CPU).
     */
    private final Map<String, String[]> urlParts = new ConcurrentHashMap<>();

    public AsyncJobRequests(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Sends one JSON Patch (RFC 6902) to a namespaced job of a kind: its group, version and plural give the URL, its
     * type reads the answer (a declared kind's is {@code GenericKubernetesResource}).
     *
     * @param key   namespace and name
     * @param patch the JSON Patch document, serialized
     * @return the job as the server stored it after the patch; or a {@link KubernetesClientException} (see above)
     */
    public <T extends HasMetadata> CompletableFuture<T> patch(JobKind<T> kind, JobKey key, String patch) {
        HttpRequest request = request(kind.apiGroup(), kind.version(), kind.plural(), key)
                .patch(JSON_PATCH, patch).build();
        return send(request, kind.type(), false);
    }

    /**
     * Reads a namespaced job of a kind from the API server (not from a cache).
     *
     * @return the job, or {@code null} if the server has none of that name; or a {@link KubernetesClientException}
     */
    public <T extends HasMetadata> CompletableFuture<T> get(JobKind<T> kind, JobKey key) {
        return send(request(kind.apiGroup(), kind.version(), kind.plural(), key).build(), kind.type(), true);
    }

    private HttpRequest.Builder request(String group, String version, String plural, JobKey key) {
        String[] parts = urlParts.computeIfAbsent(group + "/" + version + "/" + plural, resource -> {
            String api = group == null || group.isEmpty() ? URLUtils.join("api", version)
                    : URLUtils.join("apis", group, version);
            return new String[] {URLUtils.join(client.getConfiguration().getMasterUrl(), api, "namespaces") + "/",
                    plural};
        });
        // namespaces and names are DNS labels and subdomains: nothing in them to escape
        String url = parts[0] + key.namespace() + "/" + parts[1] + "/" + key.name();
        HttpRequest.Builder builder = client.getHttpClient().newHttpRequestBuilder();
        try {
            builder.url(new URL(url));
        } catch (MalformedURLException e) {
            throw new KubernetesClientException("not a valid URL for " + key + ": " + url, e);
        }
        int timeout = client.getConfiguration().getRequestTimeout();
        if (timeout > 0) {
            builder.timeout(timeout, TimeUnit.MILLISECONDS);
        }
        return builder;
    }

    private <T extends HasMetadata> CompletableFuture<T> send(HttpRequest request, Class<T> type,
                                                              boolean absentIsNull) {
        CompletableFuture<T> result = new CompletableFuture<>();
        client.getHttpClient().sendAsync(request, String.class).whenComplete((response, failure) -> {
            if (failure != null) {
                result.completeExceptionally(new KubernetesClientException(
                        "no answer from the API server for " + request.method() + " " + request.uri() + ": "
                                + failure.getMessage(), failure));
            } else if (response.isSuccessful()) {
                try {
                    result.complete(client.getKubernetesSerialization().unmarshal(response.body(), type));
                } catch (RuntimeException e) {
                    result.completeExceptionally(new KubernetesClientException(
                            "unreadable answer to " + request.method() + " " + request.uri(), e));
                }
            } else if (absentIsNull && response.code() == 404) {
                result.complete(null);
            } else {
                result.completeExceptionally(failure(request, response));
            }
        });
        return result;
    }

    /** The server's error as the DSL reports it: its Status (or one made from the code) in the exception. */
    private KubernetesClientException failure(HttpRequest request, HttpResponse<String> response) {
        Status status = null;
        try {
            status = client.getKubernetesSerialization().unmarshal(response.body(), Status.class);
        } catch (RuntimeException e) {
            // not a Status (a proxy's HTML page, say): the code alone tells what happened
        }
        if (status == null || status.getCode() == null) {
            Status made = new Status();
            made.setCode(response.code());
            made.setMessage(status != null && status.getMessage() != null ? status.getMessage() : response.body());
            status = made;
        }
        return new KubernetesClientException("Failure executing: " + request.method() + " at: " + request.uri()
                + ". Message: " + status.getMessage() + ".", response.code(), status);
    }
}
