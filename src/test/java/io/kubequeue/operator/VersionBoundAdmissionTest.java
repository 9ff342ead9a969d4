package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.InFlightPatches;
import io.kubequeue.testing.SeedTreeFixture;
import io.kubequeue.testing.StrictApiServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;

/**
 * Issue 26, sequences 2 and 7, end to end on the strict API server: the admission patch is bound to the version of
 * the job its decision was made on, so an edit that lands while it is on its way refuses it and the job is decided
 * again on what it now asks; and an ambiguous answer (504) is settled only by what cannot be overtaken, so a patch
 * the server applies after the client gave up never shares the room with the job it was handed to. Group
 * {@code root.defaultQuotaGroup} (namespace {@code default}) has max cpu 4.
 */
@QuarkusTest
@TestProfile(AdmissionFailureTest.NoClientRetry.class)
@WithStrictApiServer
class VersionBoundAdmissionTest extends SeedTreeFixture {

    private static final String JOBS = "/apis/batch/v1/namespaces/default/jobs/";

    @KubernetesTestServer
    KubernetesMockServer server;

    private static JobKey key(String name) {
        return new JobKey("Job", "default", name);
    }

    private long usedCpu() {
        return scheduler.usage(SEED_GROUP).get("cpu");
    }

    /**
     * Sequence 2: decided at 1 cpu beside a running 3-cpu job, the Job's {@code parallelism} is raised to 4 before
     * its admission patch is applied. It must not start (it would run 4 cpu beside 3 in a 4-cpu group, charged
     * "even above max" once seen running); it is decided again at 4 cpu and admitted once the room is free.
     */
    @Test
    void aJobEditedWhileItsAdmissionIsOnItsWayIsDecidedAgainOnWhatItNowAsks() {
        cluster.submitJob("filler", "3", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("filler"));
        InFlightPatches inFlight = StrictApiServer.inFlight(server);
        inFlight.editBeforeNextPatch(JOBS + "edited", "{\"spec\":{\"parallelism\":4}}");

        // 1 cpu: fits beside the 3; with an annotation, as most jobs have (a job without any gets its record as a
        // whole map, a patch that was bound to the version already)
        Job edited = new JobBuilder().withNewMetadata().withName("edited").withNamespace("default")
                .addToAnnotations("team", "blue").endMetadata().withNewSpec().withSuspend(true).withNewTemplate()
                .withNewSpec().withRestartPolicy("Never").addNewContainer().withName("work").withImage("busybox:stable")
                .withNewResources().addToRequests("cpu", new Quantity("1")).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build();
        client.batch().v1().jobs().inNamespace("default").resource(edited).create();
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight.edited(JOBS + "edited"));

        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> !cluster.admitted("edited") && usedCpu() <= 4000);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key("edited"))
                .map(s -> s.state() != JobState.ADMITTED && s.request().get("cpu") == 4000).orElse(false));

        cluster.complete("filler");
        await().atMost(Duration.ofSeconds(15)).until(() -> cluster.admitted("edited"));
        assertEquals(4, cluster.job("edited").getSpec().getParallelism());
        assertEquals(4000, usedCpu(), "charged what it runs, within the group's max");
    }

    /**
     * Sequence 7: the admission patch of a 3-cpu job is answered 504 and kept by the server, which applies it after
     * kube-queue read the job back (still suspended, at the version the patch tests). kube-queue must not hand that
     * room to the 3-cpu job behind it: the late patch would start the first job beside it (6 cpu in 4). Counted: the
     * ambiguous admission costs two patches and one read.
     */
    @Test
    void aPatchAppliedAfterItsAnswerWasLostNeverSharesItsRoom() throws InterruptedException {
        InFlightPatches inFlight = StrictApiServer.inFlight(server);
        inFlight.loseAnswerToNextPatch(JOBS + "late");
        forgetRequests();
        List<String> toLate = new ArrayList<>();

        cluster.submitJob("late", "3", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight.kept() == 1);
        cluster.submitJob("behind", "3", Map.of(), null);
        // kube-queue settles the lost answer: either it hands the room to "behind" or it makes sure of "late"
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            collect(toLate, "late");
            return scheduler.status(key("behind")).map(s -> s.state() == JobState.ADMITTED).orElse(false)
                    || toLate.stream().filter("PATCH"::equals).count() >= 2;
        });
        List<Integer> late = inFlight.applyLate(); // the server's handler commits it now, after the read-back
        Thread.sleep(500); // let kube-queue's own requests of the settlement reach the log
        collect(toLate, "late");

        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> !(cluster.admitted("late") && cluster.admitted("behind")) && usedCpu() <= 4000);
        assertTrue(cluster.admitted("late"), "the first job runs, once");
        assertFalse(cluster.admitted("behind"));
        assertEquals(List.of(422), late, "the late patch found the version it tests gone");
        assertEquals(List.of("PATCH", "GET", "PATCH"), toLate,
                "the ambiguous admission: its patch, one read, one fencing patch bound to the version read");
    }

    /** Forgets the requests the mock server recorded so far (earlier tests'). */
    private void forgetRequests() throws InterruptedException {
        while (server.takeRequest(1, TimeUnit.MILLISECONDS) != null) {
            // dropped
        }
    }

    /** Adds the methods of the requests recorded since to one job (or its status), in order. */
    private void collect(List<String> into, String name) {
        try {
            for (var request = server.takeRequest(10, TimeUnit.MILLISECONDS); request != null;
                 request = server.takeRequest(10, TimeUnit.MILLISECONDS)) {
                String path = request.getPath().split("\\?")[0];
                if (path.equals(JOBS + name) || path.equals(JOBS + name + "/status")) {
                    into.add(request.getMethod());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
