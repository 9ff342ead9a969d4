package io.kubequeue.job;

import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kubequeue.resources.Quantities;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.resources.PodRequests;

/**
 * The request an admission was decided at, as annotation {@link Annotations#ADMITTED_REQUEST} holds it: a JSON object
 * of Kubernetes quantities by resource name, sorted ({@code {"cpu":"4","memory":"16Gi","nvidia.com/gpu":"1"}}), written
 * and read with Jackson, the quantities with fabric8 {@link Quantity} through {@link Quantities}. Only kube-queue's
 * signed value is read ({@link RecordSignatures}); it is still bounded, as every annotation is.
 */
public final class AdmittedRequests {

    /** The longest value read, in characters (a request of every resource a cluster has is far shorter). */
    public static final int MAX_CHARS = 4096;

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final TypeReference<TreeMap<String, String>> MAP = new TypeReference<>() {
    };

    private AdmittedRequests() {
    }

    /** The value to write for this request (millicores, bytes, counts; the job count is left out); {@code ""} if none. */
    public static String write(Resources request) {
        if (request == null) {
            return "";
        }
        Resources written = request.asMap().containsKey(Resources.MAX_JOBS)
                ? Resources.of(withoutJobCount(request.asMap())) : request;
        if (written.asMap().isEmpty()) {
            return "";
        }
        try {
            return JSON.writeValueAsString(written.asQuantities());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings always writes as JSON", e);
        }
    }

    /**
     * The request a value names.
     *
     * @return the amounts (millicores, bytes, counts); null for {@code ""}, or a value that does not read (too long,
     *         not a JSON object of quantities)
     */
    public static Resources read(String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_CHARS) {
            return null;
        }
        try {
            Map<String, String> quantities = JSON.readValue(value, MAP);
            Map<String, Long> amounts = new TreeMap<>();
            for (Map.Entry<String, String> q : quantities.entrySet()) {
                if (q.getValue() == null) {
                    return null;
                }
                // a pod's limits (limits.cpu …) are carried in their resource's unit, millicores for cpu
                String unitOf = q.getKey().startsWith(PodRequests.LIMITS)
                        ? q.getKey().substring(PodRequests.LIMITS.length()) : q.getKey();
                amounts.put(q.getKey(), Quantities.toUnits(unitOf, new Quantity(q.getValue())));
            }
            return Resources.of(amounts);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return null;
        }
    }

    private static Map<String, Long> withoutJobCount(Map<String, Long> amounts) {
        Map<String, Long> copy = new TreeMap<>(amounts);
        copy.remove(Resources.MAX_JOBS);
        return copy;
    }
}
