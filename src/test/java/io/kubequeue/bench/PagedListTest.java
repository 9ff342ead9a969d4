package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The embedded server pages lists as a real API server does ({@link IndexedCrudDispatcher}): {@code limit} and
 * {@code continue}, one snapshot per list, 410 for a token it no longer knows.
 */
class PagedListTest {

    private static Job job(String ns, int i) {
        return new JobBuilder().withNewMetadata().withName(String.format("j-%04d", i)).withNamespace(ns).endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer().withName("w")
                .withImage("busybox").endContainer().withRestartPolicy("Never").endSpec().endTemplate().endSpec().build();
    }

    @Test
    void listsArePagedFromOneSnapshot() {
        try (ApiServer server = ApiServer.embedded(true, Duration.ZERO, Duration.ZERO, 0)) {
            KubernetesClient client = server.client();
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("a").endMetadata().build()).create();
            for (int i = 0; i < 1_234; i++) {
                client.batch().v1().jobs().inNamespace("a").resource(job("a", i)).create();
            }
            Set<String> seen = new HashSet<>();
            JobList page = client.batch().v1().jobs().inAnyNamespace().list(new ListOptionsBuilder().withLimit(500L).build());
            assertEquals(500, page.getItems().size());
            assertNotNull(page.getMetadata().getContinue());
            assertEquals(734L, page.getMetadata().getRemainingItemCount());
            page.getItems().forEach(j -> seen.add(j.getMetadata().getName()));
            // a job created meanwhile is not in this list's later pages: they come from the first page's snapshot
            client.batch().v1().jobs().inNamespace("a").resource(job("a", 9_999)).create();
            String token = page.getMetadata().getContinue();
            int pages = 1;
            while (token != null) {
                page = client.batch().v1().jobs().inAnyNamespace()
                        .list(new ListOptionsBuilder().withLimit(500L).withContinue(token).build());
                page.getItems().forEach(j -> seen.add(j.getMetadata().getName()));
                token = page.getMetadata().getContinue();
                pages++;
            }
            assertEquals(3, pages);
            assertEquals(234, page.getItems().size());
            assertNull(page.getMetadata().getRemainingItemCount());
            assertEquals(1_234, seen.size());
            // without a limit, one answer with everything, as before
            assertEquals(1_235, client.batch().v1().jobs().inAnyNamespace().list().getItems().size());
            // a token of a list the server no longer keeps
            KubernetesClientException gone = assertThrows(KubernetesClientException.class, () -> client.batch().v1().jobs()
                    .inAnyNamespace().list(new ListOptionsBuilder().withLimit(500L).withContinue("bench-999:500").build()));
            assertEquals(410, gone.getCode());
        }
    }
}
