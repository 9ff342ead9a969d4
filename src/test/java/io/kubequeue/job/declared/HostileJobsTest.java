package io.kubequeue.job.declared;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.testing.Declarations;
import io.kubequeue.input.InvalidJobException;

/**
 * Jobs of a declared kind written by a careless or hostile tenant: whatever they hold, the informer's copy
 * ({@link DeclaredJobKind#pruned}, built in the watch's event handler before the feed sees the job) is made without
 * an exception, so that the job reaches the feed and fails there, at the object, with its Warning; and it is pruned
 * where its templates are, nowhere else.
 */
class HostileJobsTest {

    /** As kube-queue's client reads: with {@link io.kubequeue.input.JsonBounds} (10,016 levels). */
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization(
            io.kubequeue.input.JsonBounds.apply(new com.fasterxml.jackson.databind.ObjectMapper()), false);

    /** One cpu, and an image the copy does not keep. */
    private static final String TEMPLATE = "{\"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"big\","
            + " \"resources\": {\"requests\": {\"cpu\": \"1\"}}}]}}";

    private static DeclaredJobKind kind(String spec) {
        return DeclaredJobKind.of("test", SERIALIZATION.unmarshal(spec, QueuedKindSpec.class), SERIALIZATION);
    }

    private static GenericKubernetesResource job(String kind, String spec) {
        return SERIALIZATION.unmarshal("""
                {"apiVersion": "example.com/v1", "kind": "%s", "metadata": {"name": "j", "namespace": "team-a"},
                 "spec": %s}
                """.formatted(kind, spec), GenericKubernetesResource.class);
    }

    private static JsonNode spec(GenericKubernetesResource copy) {
        return (JsonNode) copy.getAdditionalProperties().get("spec");
    }

    /**
     * Map keys may hold any character (a CRD schema cannot forbid them): a key with a bracket or a dot must not make
     * the copy throw, nor write a pruned template into another replica's template.
     */
    @Test
    void mapKeysWithBracketsOrDotsAreCopiedWithoutAnExceptionAndPrunedInPlace() {
        DeclaredJobKind kind = kind(Declarations.BY_MAP);
        for (String key : List.of("x[", "x[y]", "x[]", "x[99999999999]", "x]", "[", "x[0", "Worker[5]",
                "Worker.template", "Worker..", ".", "a.b[c].d", "x[-1]")) {
            ObjectNode spec = SERIALIZATION.unmarshal("""
                    {"suspend": true, "replicaSpecs": {"Worker": {"replicas": 2, "template": %s},
                                                       "%s": {"replicas": 1, "template": %s}}}
                    """.formatted(TEMPLATE, key, TEMPLATE), ObjectNode.class);
            GenericKubernetesResource job = job("MapJob", spec.toString());
            GenericKubernetesResource copy = assertDoesNotThrow(() -> kind.pruned(job), key);
            JsonNode specs = spec(copy).get("replicaSpecs");
            for (String name : List.of("Worker", key)) {
                JsonNode template = specs.get(name).get("template");
                assertNull(template.get("template"), key + ": nothing written into " + name + "'s template");
                JsonNode container = template.get("spec").get("containers").get(0);
                assertNull(container.get("image"), key + ": " + name + "'s template is pruned: " + template);
                assertEquals("1", container.get("resources").get("requests").get("cpu").asText(), key);
            }
            assertEquals(2, specs.size(), key + ": nothing added: " + specs);
            assertEquals(3000L, kind.request(copy).get("cpu"), key);
            assertEquals(kind.request(job), kind.request(copy), key);
        }
    }

    /**
     * More items under a {@code [*]} path than kube-queue reads: the copy is still made (the job is refused when its
     * request is read, with a Warning), not an exception in the watch's handler that loses the job silently.
     */
    @Test
    void aJobWithMoreItemsThanAreReadIsStillCopiedAndRefusedWhenRead() {
        DeclaredJobKind kind = kind(Declarations.BY_LIST);
        StringBuilder groups = new StringBuilder();
        for (int i = 0; i < 1_001; i++) {
            groups.append(i == 0 ? "" : ",").append("{\"replicas\": 1, \"template\": ").append(TEMPLATE).append("}");
        }
        GenericKubernetesResource job = job("ListJob", "{\"suspend\": true, \"groups\": [" + groups + "]}");
        GenericKubernetesResource copy = assertDoesNotThrow(() -> kind.pruned(job));
        assertTrue(kind.held(copy));
        assertThrows(InvalidJobException.class, () -> kind.request(copy));
        assertFalse(assertDoesNotThrow(() -> kind.finished(copy)));
    }

    /**
     * A tenant's spec nested 10,000 levels deep (the API server's own limit; a CRD that keeps unknown fields lets it
     * through, and kube-queue's client reads it): on an informer thread's stack, the copy and every read of the job
     * end in an exception at most (a RuntimeException, which the store and the feed turn into a whole copy and a
     * Warning), never a StackOverflowError, which nothing catches and which stops the watch.
     */
    @Test
    void aSpecNestedTenThousandLevelsDoesNotOverflowAnInformerThreadsStack() throws InterruptedException {
        Map<String, Object> deep = new LinkedHashMap<>();
        Map<String, Object> inner = deep;
        for (int i = 0; i < 10_000; i++) {
            Map<String, Object> next = new LinkedHashMap<>();
            inner.put("a", next);
            inner = next;
        }
        for (String where : List.of("extra", "template", "resources")) {
            DeclaredJobKind kind = kind(where.equals("resources") ? Declarations.BY_LIST.replace("\"template\": \"template\"",
                    "\"resources\": \"resources\"") : Declarations.BY_LIST);
            Map<String, Object> spec = new LinkedHashMap<>();
            spec.put("suspend", true);
            spec.put(where.equals("extra") ? where : "groups",
                    where.equals("extra") ? deep : List.of(Map.of("replicas", 1, where, deep)));
            GenericKubernetesResource job = job("ListJob", "{}");
            job.setAdditionalProperty("spec", spec);
            List<Throwable> thrown = new ArrayList<>();
            Thread informer = new Thread(() -> {
                for (Runnable read : List.<Runnable>of(() -> kind.pruned(job), () -> kind.held(job),
                        () -> kind.finished(job), () -> kind.request(job), () -> kind.priority(job),
                        () -> kind.request(kind.pruned(job)), () -> kind.held(kind.pruned(job)))) {
                    try {
                        read.run();
                    } catch (RuntimeException e) {
                        // at the object: the feed's Warning
                    } catch (Throwable e) {
                        thrown.add(e);
                    }
                }
            }, "informer-like");
            informer.start();
            informer.join();
            assertEquals(List.of(), thrown.stream().map(t -> t.getClass().getSimpleName()).toList(), where);
        }
    }
}
