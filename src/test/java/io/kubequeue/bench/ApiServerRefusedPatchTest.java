package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.admission.AsyncJobRequests;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The embedded server answers a JSON Patch whose {@code test} op fails as a real API server does: 422, the object
 * unchanged (../shared/reference/real-apiserver.md, "optimistic concurrency"). fabric8's CRUD dispatcher throws on
 * such a patch and the request was never answered: kube-queue's admissions decided on a version the harness had
 * just moved on (a burst's first ~32) each waited out its 10 s request timeout. Counted, not timed: every held write
 * is sent through kube-queue's own request path ({@link AsyncJobRequests}) at once and every answer is sorted by
 * its code.
 */
class ApiServerRefusedPatchTest {

    private static final String NS = "kq-bench-00";
    private static final int JOBS = 32;

    private ApiServer server;

    @BeforeEach
    void start() {
        server = ApiServer.embedded(true, Duration.ofMillis(150), Duration.ZERO, 0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aJsonPatchWhoseTestFailsIsAnswered422AndChangesNothing() {
        server.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata()
                .build()).create();
        for (int i = 0; i < JOBS; i++) {
            server.client().resource(new JobBuilder().withNewMetadata().withName("j" + i).withNamespace(NS)
                    .endMetadata().withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer()
                    .withName("c").withImage("busybox").endContainer().withRestartPolicy("Never").endSpec()
                    .endTemplate().endSpec().build()).create();
        }
        AtomicInteger applied = new AtomicInteger();
        AtomicInteger refused422 = new AtomicInteger();
        AtomicInteger noAnswer = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        // kube-queue's client as its process is configured on the embedded server (ApiServer.kubeQueueEnv), with
        // fabric8's default 10 s request timeout
        try (KubernetesClient kubeQueue = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                .withMasterUrl(server.client().getConfiguration().getMasterUrl())
                .withOauthToken(ApiServer.KUBE_QUEUE_TOKEN).withNamespace(NS).build()).build()) {
            AsyncJobRequests requests = new AsyncJobRequests(kubeQueue);
            List<CompletableFuture<Job>> sent = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                // every other patch tests a version the job does not have, as an admission decided on a copy the
                // harness has since written to
                String version = i % 2 == 0 ? "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"999999\"},"
                        : "[";
                sent.add(requests.patch(new io.kubequeue.job.batch.BatchJobKind(), new JobKey("Job", NS, "j" + i),
                        version + "{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":false}]"));
            }
            for (CompletableFuture<Job> answer : sent) {
                answer.handle((job, failure) -> {
                    if (failure == null) {
                        applied.incrementAndGet();
                    } else if (failure instanceof KubernetesClientException e && e.getCode() == 422) {
                        refused422.incrementAndGet();
                    } else if (failure instanceof KubernetesClientException e && e.getCode() <= 0) {
                        noAnswer.incrementAndGet();
                    } else {
                        other.incrementAndGet();
                    }
                    return null;
                }).join();
            }
        }
        assertEquals(0, noAnswer.get(), "patches that got no answer");
        assertEquals(0, other.get(), "patches answered with another error");
        assertEquals(JOBS / 2, refused422.get(), "patches whose test failed, answered 422");
        assertEquals(JOBS / 2, applied.get(), "patches applied");
        int stillSuspended = 0;
        for (int i = 0; i < JOBS; i++) {
            Job job = server.client().batch().v1().jobs().inNamespace(NS).withName("j" + i).get();
            if (Boolean.TRUE.equals(job.getSpec().getSuspend())) {
                stillSuspended++;
            }
        }
        assertEquals(JOBS / 2, stillSuspended, "a refused patch changes nothing; an applied one unsuspends");
    }
}
