package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpResponse;

/**
 * The embedded server with a write budget counts the writes it receives by client and kind: the harness's clients
 * told apart by their User-Agent, kube-queue by its token. Counted, not timed (the budget's rate is low so that
 * its slots are really taken; nothing here depends on how long they take).
 */
class ApiServerWriteCountsTest {

    private static final String NS = "kq-bench-00";

    private ApiServer server;

    @BeforeEach
    void start() {
        server = ApiServer.embedded(true, Duration.ZERO, Duration.ZERO, 50);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static Job suspended(String name) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer().withName("c")
                .withImage("busybox").endContainer().withRestartPolicy("Never").endSpec().endTemplate().endSpec()
                .build();
    }

    /** A client as kube-queue's process is configured on the embedded server (ApiServer.kubeQueueEnv). */
    private KubernetesClient kubeQueue() {
        return new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                .withMasterUrl(server.client().getConfiguration().getMasterUrl())
                .withOauthToken(ApiServer.KUBE_QUEUE_TOKEN).withNamespace(NS).build()).build();
    }

    @Test
    void everyWriteIsCountedByClientAndKindAndTakesASlotOfTheBudget() throws Exception {
        assertEquals(50, server.writeRate());
        WriteFigures start = server.writes();

        // the harness: a namespace (other), two Jobs (creates), one status write
        server.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
                .create();
        server.client().resource(suspended("a")).create();
        server.client().resource(suspended("b")).create();
        try (KubernetesClient runner = server.newClient()) {
            HttpResponse<String> r = new JobWriter(runner, 4).suspended(NS, "b").get(30, TimeUnit.SECONDS);
            assertTrue(r.isSuccessful(), r.body());
        }
        // the reference: one admission
        try (KubernetesClient reference = server.newClient(WriteCounts.REFERENCE)) {
            HttpResponse<String> r = new JobWriter(reference, 4).unsuspend(NS, "a").get(30, TimeUnit.SECONDS);
            assertTrue(r.isSuccessful(), r.body());
        }
        // kube-queue: two events, a lease, a record edit of a job
        try (KubernetesClient kq = kubeQueue()) {
            for (String name : new String[] {"a.1", "a.2"}) {
                kq.resource(new EventBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
                        .withReason("Admitted").withNote("admitted").withNewRegarding().withKind("Job").withName("a")
                        .withNamespace(NS).endRegarding().build()).create();
            }
            kq.leases().inNamespace(NS).resource(new LeaseBuilder().withNewMetadata().withName("kube-queue")
                    .withNamespace(NS).endMetadata().withNewSpec().withHolderIdentity("me").endSpec().build()).create();
            kq.batch().v1().jobs().inNamespace(NS).withName("b").patch(PatchContext.of(PatchType.JSON_MERGE),
                    "{\"metadata\":{\"annotations\":{\"kube-queue.io/quota-group\":\"leaf-00\"}}}");
        }

        WriteFigures window = server.writes().since(start);
        WriteCounts.Tally t = window.tally();
        assertEquals(Map.of(WriteKind.OTHER, 1L, WriteKind.JOB_CREATE, 2L, WriteKind.STATUS, 1L), nonZero(t, "harness"));
        assertEquals(Map.of(WriteKind.ADMISSION, 1L), nonZero(t, "reference"));
        assertEquals(Map.of(WriteKind.EVENT, 2L, WriteKind.LEASE, 1L, WriteKind.JOB_PATCH, 1L), nonZero(t, "kube-queue"));
        assertEquals(0, t.of(WriteCounts.UNKNOWN));
        assertEquals(4.0, window.perAdmission("kube-queue", 1));
        // every write took its slot, in addition to being counted
        assertEquals(50, window.writeRate());
        assertEquals(t.total(), window.budget().taken());
        assertEquals(9, t.total());
    }

    @Test
    void withoutABudgetWritesAreStillCounted() {
        try (ApiServer unbudgeted = ApiServer.embedded(false, Duration.ZERO, Duration.ZERO, 0)) {
            assertEquals(0, unbudgeted.writeRate());
            unbudgeted.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata()
                    .build()).create();
            WriteFigures w = unbudgeted.writes();
            assertEquals(1, w.tally().of("harness", WriteKind.OTHER));
            assertEquals(null, w.budget());
        }
    }

    private static Map<WriteKind, Long> nonZero(WriteCounts.Tally t, String client) {
        Map<WriteKind, Long> m = new java.util.EnumMap<>(WriteKind.class);
        for (WriteKind k : WriteKind.ALL) {
            if (t.of(client, k) > 0) {
                m.put(k, t.of(client, k));
            }
        }
        return m;
    }
}
