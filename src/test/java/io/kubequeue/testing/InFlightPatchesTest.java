package io.kubequeue.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/** The strict server's in-flight races ({@link InFlightPatches}) behave as a real server's would. */
class InFlightPatchesTest {

    private static final String PATH = "/apis/batch/v1/namespaces/default/jobs/j";

    private KubernetesMockServer server;
    private KubernetesClient client;
    private Job seen;

    @BeforeEach
    void start() {
        server = StrictApiServer.started();
        // no retries: fabric8 sends a PATCH answered 5xx again by itself
        client = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(
                new io.fabric8.kubernetes.client.ConfigBuilder(server.createClient().getConfiguration())
                        .withRequestRetryBackoffLimit(0).build()).build();
        seen = client.batch().v1().jobs().inNamespace("default").resource(new JobBuilder().withNewMetadata()
                .withName("j").endMetadata().withNewSpec().withSuspend(true).withParallelism(1).endSpec().build())
                .create();
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

    private String unsuspendAt(String version) {
        return "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"" + version + "\"},"
                + "{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":false}]";
    }

    @Test
    void anEditLandsJustBeforeThePatchAndRefusesAPatchBoundToTheVersionBefore() {
        InFlightPatches inFlight = StrictApiServer.inFlight(server);
        inFlight.editBeforeNextPatch(PATH, "{\"spec\":{\"parallelism\":20}}");

        KubernetesClientException refused = assertThrows(KubernetesClientException.class,
                () -> patch(unsuspendAt(seen.getMetadata().getResourceVersion())));

        assertEquals(422, refused.getCode());
        assertTrue(inFlight.edited(PATH));
        Job now = client.batch().v1().jobs().inNamespace("default").withName("j").get();
        assertEquals(20, now.getSpec().getParallelism());
        assertTrue(now.getSpec().getSuspend());
    }

    @Test
    void aPatchWhoseAnswerIsLostIsAppliedLaterOnTheObjectAsStoredThen() {
        InFlightPatches inFlight = StrictApiServer.inFlight(server);
        inFlight.loseAnswerToNextPatch(PATH);
        String version = seen.getMetadata().getResourceVersion();

        KubernetesClientException lost = assertThrows(KubernetesClientException.class, () -> patch(unsuspendAt(version)));
        assertEquals(504, lost.getCode());
        assertTrue(client.batch().v1().jobs().inNamespace("default").withName("j").get().getSpec().getSuspend(),
                "not applied yet");
        assertEquals(1, inFlight.kept());

        assertEquals(1, inFlight.applyLate().size());
        Job now = client.batch().v1().jobs().inNamespace("default").withName("j").get();
        assertEquals(false, now.getSpec().getSuspend(), "applied after the client gave up");
        assertTrue(Long.parseLong(now.getMetadata().getResourceVersion()) > Long.parseLong(version));
    }

    @Test
    void aLatePatchBoundToAVersionOvertakenMeanwhileIsRefused() {
        InFlightPatches inFlight = StrictApiServer.inFlight(server);
        inFlight.loseAnswerToNextPatch(PATH);
        String version = seen.getMetadata().getResourceVersion();
        assertThrows(KubernetesClientException.class, () -> patch(unsuspendAt(version)));
        patch(unsuspendAt(version)); // the fence: the same patch, answered this time

        assertEquals(List.of(422), inFlight.applyLate());
    }
}
