package io.kubequeue.testing;

import java.net.InetAddress;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import io.fabric8.zjsonpatch.CompatibilityFlags;
import io.fabric8.zjsonpatch.JsonPatch;
import io.fabric8.zjsonpatch.JsonPatchException;

/**
 * The fabric8 mock API server in CRUD mode, made as strict as a real kube-apiserver where kube-queue's writes
 * depend on it (../shared/reference/real-apiserver.md). Every test against a mock API server uses this one, so a
 * write the real server would refuse fails here too:
 * <ul>
 *   <li><b>JSON Patch</b> ({@code application/json-patch+json}) is applied to the object as stored, strictly by
 *       RFC 6902 (fabric8's zjsonpatch): an {@code add} whose parent is missing, a {@code remove} or
 *       {@code replace} of a missing member, and a {@code test} whose value differs ({@code "true"} is not
 *       {@code true}) answer 422 and change nothing. The plain mock creates missing parents first, so a patch
 *       that every real API server refuses (an annotation added to a job without annotations) passed there.</li>
 *   <li><b>Status subresource</b>: for the kinds that have one (batch Jobs, pods, ResourceQuotas, TFJob,
 *       PyTorchJob, MPIJob v1 and v2beta1), {@code status} is written only through {@code /status}; a write to the
 *       main resource keeps the stored status, a write to {@code /status} changes nothing else, and a create drops
 *       the status it is given. (Argo's Workflow CRD has no status subresource: its status is written with the
 *       object.)</li>
 * </ul>
 * Expectations set with {@link KubernetesMockServer#expect()} are answered first, as on the plain mock.
 */
public final class StrictApiServer {

    /** Kinds whose status is a subresource on a real API server, as the mock server names them. */
    private static final List<CustomResourceDefinitionContext> STATUS_SUBRESOURCES = List.of(
            kind("batch", "v1", "jobs", "Job"),
            kind("", "v1", "pods", "Pod"),
            kind("", "v1", "resourcequotas", "ResourceQuota"),
            kind("kubeflow.org", "v1", "tfjobs", "TFJob"),
            kind("kubeflow.org", "v1", "pytorchjobs", "PyTorchJob"),
            kind("kubeflow.org", "v1", "mpijobs", "MPIJob"),
            kind("kubeflow.org", "v2beta1", "mpijobs", "MPIJob"),
            kind("scheduling.sigs.k8s.io", "v1beta1", "elasticquotatrees", "ElasticQuotaTree"));

    private static final ObjectMapper JSON = new ObjectMapper();

    private StrictApiServer() {
    }

    /**
     * A new, not yet started server: call {@link KubernetesMockServer#init()} (or {@code init(address, port)}),
     * and {@link KubernetesMockServer#destroy()} when done.
     */
    public static KubernetesMockServer create() {
        Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
        return new KubernetesMockServer(new Context(), new MockWebServer(), expectations,
                new StrictDispatcher(expectations), false);
    }

    /** A started server on the loopback interface, plain HTTP, any free port; its request log quiet. */
    public static KubernetesMockServer started() {
        java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
        KubernetesMockServer server = create();
        server.init(InetAddress.getLoopbackAddress(), 0);
        return server;
    }

    private static CustomResourceDefinitionContext kind(String group, String version, String plural, String kind) {
        return new CustomResourceDefinitionContext.Builder().withGroup(group).withVersion(version)
                .withPlural(plural).withKind(kind).withScope("Namespaced").withStatusSubresource(true).build();
    }

    /** Expectations first (as the plain mock's mixed dispatcher does), then strict checks, then CRUD. */
    private static final class StrictDispatcher extends Dispatcher {

        private final Map<ServerRequest, Queue<ServerResponse>> expectations;
        private final MockDispatcher expected;
        private final KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher(STATUS_SUBRESOURCES);

        StrictDispatcher(Map<ServerRequest, Queue<ServerResponse>> expectations) {
            this.expectations = expectations;
            this.expected = new MockDispatcher(expectations);
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            Queue<ServerResponse> queued = expectations.get(
                    new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
            if (queued != null && !queued.isEmpty()) {
                return expected.dispatch(request);
            }
            if ("PATCH".equals(request.getMethod()) && isJsonPatch(request)) {
                String refusal = jsonPatchRefusal(request);
                if (refusal != null) {
                    return invalid(refusal);
                }
            }
            return crud.dispatch(request);
        }

        private static boolean isJsonPatch(RecordedRequest request) {
            String type = request.getHeader("Content-Type");
            return type != null && type.startsWith("application/json-patch+json");
        }

        /** Why a real API server would refuse this JSON Patch on the stored object; null if it would apply it. */
        private String jsonPatchRefusal(RecordedRequest request) {
            String path = request.getPath();
            int query = path.indexOf('?');
            AttributeSet key = crud.getKey(query < 0 ? path : path.substring(0, query));
            Map.Entry<AttributeSet, String> stored = crud.findResource(key);
            if (stored == null) {
                return null; // not found: the CRUD dispatcher answers 404
            }
            try {
                // getBytes, not readUtf8: reading would consume the body the CRUD dispatcher applies next
                JsonNode patch = JSON.readTree(request.getBody().getBytes());
                JsonNode object = JSON.readTree(stored.getValue());
                // the real server patches the status subresource's view: the whole object, as stored
                JsonPatch.apply(patch, object, EnumSet.of(CompatibilityFlags.FORBID_REMOVE_MISSING_OBJECT));
                return null;
            } catch (JsonPatchException e) {
                return e.getMessage();
            } catch (Exception e) {
                return "the patch is not a JSON Patch document: " + e.getMessage();
            }
        }

        private static MockResponse invalid(String message) {
            ObjectNode status = JsonNodeFactory.instance.objectNode().put("apiVersion", "v1").put("kind", "Status")
                    .put("status", "Failure").put("reason", "Invalid").put("code", 422)
                    .put("message", "the JSON Patch does not apply (RFC 6902, as a real API server checks it): " + message);
            return new MockResponse().setResponseCode(422).setBody(status.toString());
        }
    }
}
