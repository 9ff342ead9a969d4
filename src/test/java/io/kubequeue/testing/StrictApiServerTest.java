package io.kubequeue.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/** The test API server refuses what a real one refuses, where the plain mock server accepts it. */
class StrictApiServerTest {

    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        server = StrictApiServer.started();
        client = server.createClient();
        client.batch().v1().jobs().inNamespace("default").resource(new JobBuilder().withNewMetadata().withName("j")
                .endMetadata().withNewSpec().withSuspend(true).endSpec().build()).create();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    private Job patch(String jsonPatch) {
        return client.batch().v1().jobs().inNamespace("default").withName("j")
                .patch(PatchContext.of(PatchType.JSON), jsonPatch);
    }

    /** A pod list or watch by a label key kube-apiserver refuses is answered 400, as it answers it. */
    @Test
    void aLabelSelectorWithAKeyKubernetesRefusesIs400() {
        for (String key : java.util.List.of("example.com/" + "b".repeat(64), "c".repeat(64), "a".repeat(254) + "/x",
                "Example.com/x", "bad key")) {
            KubernetesClientException refused = assertThrows(KubernetesClientException.class,
                    () -> client.pods().inAnyNamespace().withLabel(key).list(), key);
            assertEquals(400, refused.getCode(), key);
        }
        for (String key : java.util.List.of("example.com/" + "b".repeat(63), "controller-uid", "a.b/c_d.e")) {
            assertEquals(0, client.pods().inAnyNamespace().withLabel(key).list().getItems().size(), key);
            assertEquals(0, client.pods().inAnyNamespace().withLabel(key, "v").list().getItems().size(), key);
        }
        assertEquals(0, client.pods().inAnyNamespace().withLabelIn("app", "a", "b").list().getItems().size());
        assertEquals(0, client.pods().inAnyNamespace().withoutLabel("app").list().getItems().size());
    }

    @Test
    void anAddUnderAMissingParentIsRefusedAndChangesNothing() {
        KubernetesClientException refused = assertThrows(KubernetesClientException.class, () -> patch(
                "[{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":false},"
                        + "{\"op\":\"add\",\"path\":\"/metadata/annotations/a\",\"value\":\"b\"}]"));
        assertEquals(422, refused.getCode());
        assertEquals(Boolean.TRUE, client.batch().v1().jobs().inNamespace("default").withName("j").get()
                .getSpec().getSuspend(), "no op of a refused patch applies");
        // the same record as a whole map applies
        assertEquals("b", patch("[{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{\"a\":\"b\"}}]")
                .getMetadata().getAnnotations().get("a"));
    }

    @Test
    void aRemovalOfAMissingMemberAndATestOfTheWrongTypeAreRefused() {
        assertEquals(422, assertThrows(KubernetesClientException.class,
                () -> patch("[{\"op\":\"remove\",\"path\":\"/spec/parallelism\"}]")).getCode());
        assertEquals(422, assertThrows(KubernetesClientException.class,
                () -> patch("[{\"op\":\"test\",\"path\":\"/spec/suspend\",\"value\":\"true\"}]")).getCode(),
                "the string \"true\" is not the boolean true");
    }

    @Test
    void aJobsStatusIsWrittenOnlyThroughItsSubresource() {
        Job job = client.batch().v1().jobs().inNamespace("default").withName("j").get();
        job.setStatus(new JobStatusBuilder().withSucceeded(1).build());
        client.batch().v1().jobs().inNamespace("default").resource(job).update();
        assertNull(client.batch().v1().jobs().inNamespace("default").withName("j").get().getStatus(),
                "a write to the main resource keeps the stored status (none)");

        job = client.batch().v1().jobs().inNamespace("default").withName("j").get();
        job.setStatus(new JobStatusBuilder().withSucceeded(1).build());
        client.batch().v1().jobs().inNamespace("default").resource(job).updateStatus();
        assertEquals(1, client.batch().v1().jobs().inNamespace("default").withName("j").get().getStatus().getSucceeded());
    }

    /**
     * TokenReviews are answered as kube-apiserver answers them: a token it does not know is "not authenticated"
     * with {@code status.error} set and {@code authenticated} left out (Go's omitempty), not stored and echoed back
     * without a status as the plain mock does.
     */
    @Test
    void aTokenReviewIsAnsweredAsARealServerAnswersIt() {
        StrictApiServer.tokens(server).accept("alice-token", "alice", "team-a").expired("old-token")
                .rejectWithoutError("refused-token");
        TokenReviewStatus alice = review("alice-token");
        assertEquals(Boolean.TRUE, alice.getAuthenticated());
        assertEquals("alice", alice.getUser().getUsername());
        assertEquals(java.util.List.of("team-a", "system:authenticated"), alice.getUser().getGroups());

        TokenReviewStatus unknown = review("unknown-token");
        assertNull(unknown.getAuthenticated(), "false is left out");
        assertEquals("invalid bearer token", unknown.getError());
        assertEquals("[invalid bearer token, service account token has expired]", review("old-token").getError());
        TokenReviewStatus refused = review("refused-token");
        assertNull(refused.getAuthenticated());
        assertNull(refused.getError(), "the other form: an empty status");
        assertEquals(4, StrictApiServer.tokens(server).reviews());
    }

    private TokenReviewStatus review(String token) {
        return client.authentication().v1().tokenReviews().create(new TokenReviewBuilder().withNewSpec()
                .withToken(token).endSpec().build()).getStatus();
    }

    /**
     * A real API server stores objects nested up to 10,000 levels (Argo's Workflow CRD keeps unknown fields); the
     * plain mock never answered the create of a 1,200-level one (Jackson's default nesting limit is 1,000).
     */
    @Test
    void aWorkflowNested1200LevelsIsStoredListedAndPatched() {
        Hostile.createWorkflow(client, "default", Hostile.workflow("default", "deep", 1_200, "1"));
        String listed = client.getHttpClient().sendAsync(client.getHttpClient().newHttpRequestBuilder()
                .uri(client.getMasterUrl() + "apis/argoproj.io/v1alpha1/namespaces/default/workflows").build(),
                String.class).join().body();
        assertTrue(listed.contains(Hostile.nested(1_200)), "listed whole");
        String patched = client.getHttpClient().sendAsync(client.getHttpClient().newHttpRequestBuilder()
                .uri(client.getMasterUrl() + "apis/argoproj.io/v1alpha1/namespaces/default/workflows/deep")
                .patch("application/json-patch+json", "[{\"op\":\"test\",\"path\":\"/spec/suspend\",\"value\":true},"
                        + "{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":false}]").build(),
                String.class).join().body();
        assertTrue(patched.contains("\"suspend\":false"), patched.substring(0, Math.min(300, patched.length())));
    }
}
