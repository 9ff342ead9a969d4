package io.kubequeue.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.testing.Hostile;

/**
 * What a real API server may send reads with the client's bounds, as a list page and as a watch event, on a thread
 * of default stack size (an informer's): a Workflow nested the API server's 10,000 levels, a key of 1 MiB. A document
 * deeper than the bound is refused by Jackson with a clear error, before any of it is built.
 */
class JsonBoundsTest {

    private static final KubernetesSerialization BOUNDED = new KubernetesSerialization(
            JsonBounds.apply(new ObjectMapper()), false);

    private static <T> T onAFreshThread(java.util.concurrent.Callable<T> read) throws Exception {
        java.util.concurrent.FutureTask<T> task = new java.util.concurrent.FutureTask<>(read);
        Thread thread = new Thread(task, "like-an-informer");
        thread.start();
        return task.get();
    }

    @Test
    void aWorkflowNestedTheApiServersTenThousandLevelsReadsAsAListPageAndAWatchEvent() throws Exception {
        String workflow = Hostile.workflow("team-a", "deep", JsonBounds.API_SERVER_MAX_DEPTH - 8, "1");
        String page = "{\"apiVersion\":\"argoproj.io/v1alpha1\",\"kind\":\"WorkflowList\",\"metadata\":{},\"items\":["
                + workflow + "]}";
        DefaultKubernetesResourceList<Workflow> list = onAFreshThread(() -> BOUNDED.unmarshal(
                new ByteArrayInputStream(page.getBytes(StandardCharsets.UTF_8)),
                new TypeReference<DefaultKubernetesResourceList<Workflow>>() { }));
        assertEquals("deep", list.getItems().get(0).getMetadata().getName());
        BOUNDED.registerKubernetesResource(Workflow.class);
        WatchEvent event = onAFreshThread(() -> BOUNDED.unmarshal("{\"type\":\"ADDED\",\"object\":" + workflow + "}",
                WatchEvent.class));
        assertTrue(event.getObject() instanceof Workflow, String.valueOf(event.getObject().getClass()));
    }

    @Test
    void aKeyOfOneMebibyteReads() {
        String json = "{\"apiVersion\":\"argoproj.io/v1alpha1\",\"kind\":\"Workflow\",\"metadata\":{\"name\":\"w\"},"
                + "\"spec\":{\"" + "k".repeat(1 << 20) + "\":1}}";
        assertEquals(1, BOUNDED.unmarshal(json, Workflow.class).getSpec().size());
        assertThrows(KubernetesClientException.class, () -> new KubernetesSerialization().unmarshal(json, Workflow.class),
                "Jackson's default name limit (50,000) refuses it: the bound is needed");
    }

    @Test
    void aDocumentDeeperThanTheBoundIsRefusedNamingTheLimit() {
        String tooDeep = Hostile.workflow("team-a", "deeper", JsonBounds.MAX_NESTING_DEPTH, "1");
        KubernetesClientException refused = assertThrows(KubernetesClientException.class,
                () -> BOUNDED.unmarshal(tooDeep, Workflow.class));
        Throwable cause = refused;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        assertTrue(cause.getMessage().contains(String.valueOf(JsonBounds.MAX_NESTING_DEPTH)), cause.getMessage());
    }

    @Test
    void depthIsCountedWithoutRecursionAndStopsPastTheLimit() throws Exception {
        var deep = new ObjectMapper().readTree("[".repeat(500) + "]".repeat(500));
        assertEquals(500, JsonBounds.depth(deep, 1_000));
        assertEquals(65, JsonBounds.depth(deep, 64));
        assertEquals(0, JsonBounds.depth(new ObjectMapper().readTree("1"), 64));
    }
}
