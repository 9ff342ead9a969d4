package io.kubequeue.bench;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;

/**
 * A watch resumed from a resourceVersion gets only what changed after it, as from a real API server
 * ({@link IndexedCrudDispatcher#handleWatch}); fabric8's CRUD mock sends every stored object as ADDED to every new
 * watch. An informer resumes its watch whenever it ends (fabric8's end after 5 to 10 minutes): in the large baseline
 * each resumption sent kube-queue 50,000 whole Jobs at once, which no real server does, and it ran out of heap
 * (issue 27). A watch with no resourceVersion still starts with every object, as on a real server.
 */
class ResumedWatchTest {

    private static Job job(String name) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace("a").endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer().withName("w")
                .withImage("busybox").endContainer().withRestartPolicy("Never").endSpec().endTemplate().endSpec().build();
    }

    private record Seen(Watcher.Action action, String name) {
    }

    private static Watch watch(KubernetesClient client, String resourceVersion, List<Seen> seen) {
        return client.batch().v1().jobs().inNamespace("a").watch(new ListOptionsBuilder()
                .withResourceVersion(resourceVersion).build(), new Watcher<>() {
            @Override
            public void eventReceived(Action action, Job job) {
                seen.add(new Seen(action, job.getMetadata().getName()));
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        });
    }

    @Test
    void aWatchResumedFromAVersionGetsOnlyWhatChangedAfterIt() {
        try (ApiServer server = ApiServer.embedded(true, Duration.ZERO, Duration.ZERO, 0)) {
            KubernetesClient client = server.client();
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("a").endMetadata().build())
                    .create();
            for (String name : List.of("old-1", "old-2", "old-3")) {
                client.batch().v1().jobs().inNamespace("a").resource(job(name)).create();
            }
            String listedAt = client.batch().v1().jobs().inNamespace("a").list().getMetadata().getResourceVersion();
            client.batch().v1().jobs().inNamespace("a").resource(job("new-1")).create();

            List<Seen> resumed = new CopyOnWriteArrayList<>();
            List<Seen> fresh = new CopyOnWriteArrayList<>();
            try (Watch fromList = watch(client, listedAt, resumed); Watch fromNothing = watch(client, null, fresh)) {
                await().atMost(Duration.ofSeconds(10)).until(() -> fresh.size() == 4 && resumed.size() == 1);
                client.batch().v1().jobs().inNamespace("a").withName("old-1")
                        .edit(j -> new JobBuilder(j).editMetadata().addToLabels("edited", "yes").endMetadata().build());
                await().atMost(Duration.ofSeconds(10)).until(() -> resumed.size() == 2 && fresh.size() == 5);
            }
            assertEquals(List.of(new Seen(Watcher.Action.ADDED, "new-1"), new Seen(Watcher.Action.MODIFIED, "old-1")),
                    resumed, "only the job created after the list, then the edit");
            assertEquals(4, fresh.stream().filter(s -> s.action() == Watcher.Action.ADDED).count(),
                    "a watch from no version starts with every job");
        }
    }
}
