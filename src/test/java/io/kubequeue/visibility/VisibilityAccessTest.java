package io.kubequeue.visibility;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.AccessReviews;
import io.kubequeue.testing.StrictApiServer;

/**
 * The SubjectAccessReviews the visibility API asks, against the strict stand-in API server: one per question while
 * its answer is remembered, also when many calls ask it at once.
 */
class VisibilityAccessTest {

    private static final Caller ALICE = new Caller("alice", List.of("system:authenticated"), Map.of());

    private KubernetesMockServer server;
    private KubernetesClient client;
    private AccessReviews rbac;

    @BeforeEach
    void start() {
        server = StrictApiServer.started();
        client = server.createClient();
        rbac = StrictApiServer.access(server).grant("alice", "list", VisibilityApi.GROUP, "pendingjobs", "team-a");
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    /**
     * A caller who sends the same call many times at once (each walks every namespace: one question per namespace)
     * costs the API server one review per question, not one per call and question: the calls that find the question
     * being asked wait for its answer. kube-queue's reviews go through its own share of the API server, which its
     * admissions need too.
     */
    @Test
    void manyCallsAskingTheSameQuestionAtOnceCostOneReview() throws Exception {
        rbac.answerAfter(Duration.ofMillis(500));
        VisibilityAccess access = new VisibilityAccess(client, Duration.ofSeconds(30), Clock.systemUTC());
        VisibilityAccess.Question q = new VisibilityAccess.Question(ALICE, "list", "pendingjobs", "", "team-a", "");
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Boolean>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(callers.submit(() -> {
                    go.await();
                    return access.allows(q);
                }));
            }
            go.countDown();
            for (Future<Boolean> a : answers) {
                assertTrue(a.get(10, TimeUnit.SECONDS));
            }
            assertEquals(1, rbac.reviews(), "one review for eight calls asking it at once");
        } finally {
            callers.shutdownNow();
        }
    }
}
