package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.Annotations;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 26, sequence 6: "a pod ran under this admission" survives a restart. Before kube-queue starts, the cluster
 * holds jobs admitted ten minutes ago under a 5-minute admission timeout, each with one Pending pod (the pod that ran
 * was preempted, or its node drained, and the Job controller made a new one): {@code ran} carries kube-queue's signed
 * pod-ran mark for its admission, and must not be evicted; {@code forged} and {@code copied} carry a mark that
 * kube-queue did not make for them (written by hand; signed for another job), and are evicted as before. A job whose
 * pod runs gets the mark written (once). The mark's format is pinned here, computed apart from kube-queue's code, as
 * docs/security.md states it.
 */
@QuarkusTest
@TestProfile(PodRanAfterRestartTest.FiveMinutes.class)
@WithStrictApiServer(setup = PodRanAfterRestartTest.RanBeforeTheRestart.class)
class PodRanAfterRestartTest {

    public static class FiveMinutes implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.admission-timeout", "5m");
        }
    }

    static final String NS = "gpu-a";

    /** The cluster as the earlier leader left it; runs before the application starts. */
    public static class RanBeforeTheRestart implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            try (InputStream tree = PodRanAfterRestartTest.class.getResourceAsStream("/reclaim/gpu-tree.yaml")) {
                for (HasMetadata o : Manifests.read(client, tree)) {
                    client.resource(o).create();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            String admittedAt = recordTime(Instant.now().minus(Duration.ofMinutes(10)));
            Job ran = admitted(client, "ran", admittedAt);
            mark(client, ran, podRanMark(ran.getMetadata().getUid(), NS, admittedAt));
            Job forged = admitted(client, "forged", admittedAt);
            mark(client, forged, admittedAt + " v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
            Job copied = admitted(client, "copied", admittedAt);
            mark(client, copied, podRanMark(ran.getMetadata().getUid(), NS, admittedAt)); // ran's mark, copied
            for (Job job : new Job[] {ran, forged, copied}) {
                pendingPod(client, job, job.getMetadata().getName() + "-2");
            }
        }

        private static Job admitted(KubernetesClient client, String name, String admittedAt) {
            return TrustedRecords.createSigned(client, job(name, false, Map.of(Annotations.QUOTA_GROUP, NS,
                    Annotations.ADMITTED_AT, admittedAt)));
        }

        private static void mark(KubernetesClient client, Job job, String value) {
            client.batch().v1().jobs().inNamespace(NS).withName(job.getMetadata().getName()).edit(j -> {
                Map<String, String> annotations = new HashMap<>(j.getMetadata().getAnnotations());
                annotations.put("kube-queue/pod-ran", value);
                j.getMetadata().setAnnotations(annotations);
                return j;
            });
        }
    }

    /** As {@code AdmissionRecord.ADMITTED_AT} writes it: RFC 3339 in UTC with milliseconds. */
    static String recordTime(Instant at) {
        return io.kubequeue.scheduler.model.AdmissionRecord.ADMITTED_AT.format(at);
    }

    static Job job(String name, boolean suspended, Map<String, String> annotations) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace(NS).withAnnotations(annotations)
                .endMetadata().withNewSpec().withSuspend(suspended).withNewTemplate().withNewSpec()
                .withRestartPolicy("Never").addNewContainer().withName("work").withImage("busybox:stable")
                .withNewResources().addToRequests("cpu", new Quantity("1")).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build();
    }

    static void pendingPod(KubernetesClient client, Job job, String podName) {
        pod(client, job, podName, "Pending");
    }

    static void pod(KubernetesClient client, Job job, String podName, String phase) {
        Pod pod = new PodBuilder().withNewMetadata().withName(podName).withNamespace(NS)
                .addToLabels("controller-uid", job.getMetadata().getUid())
                .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata()
                .withNewSpec().addNewContainer().withName("work").withImage("busybox:stable").endContainer().endSpec()
                .build();
        Pod created = client.pods().inNamespace(NS).resource(pod).create();
        created.setStatus(new PodStatusBuilder().withPhase(phase).build());
        client.pods().inNamespace(NS).resource(created).updateStatus();
    }

    /**
     * The mark as docs/security.md states it: the admission time, a space, {@code v1.} and the unpadded base64url of
     * HMAC-SHA256 with the record key over {@code kube-queue/pod-ran v1}, the uid, the group and the admission time,
     * each as its UTF-8 length (4 bytes, big-endian) and bytes.
     */
    static String podRanMark(String uid, String group, String admittedAt) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(TrustedRecords.KEY, "HmacSHA256"));
            mac.update("kube-queue/pod-ran v1".getBytes(StandardCharsets.UTF_8));
            for (String part : new String[] {uid, group, admittedAt}) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                mac.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
                mac.update(bytes);
            }
            return admittedAt + " v1." + Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Inject
    KubernetesClient client;

    private Job get(String name) {
        return client.batch().v1().jobs().inNamespace(NS).withName(name).get();
    }

    @Test
    void aJobWhosePodRanBeforeTheRestartIsNotTimedOutAndAMarkItDidNotEarnExemptsNothing() {
        await().atMost(Duration.ofSeconds(20)).until(() -> Cluster.suspended(get("forged"))
                && Cluster.suspended(get("copied")));
        assertEquals("timeout", get("forged").getMetadata().getAnnotations().get(Annotations.EVICTED));
        assertEquals("timeout", get("copied").getMetadata().getAnnotations().get(Annotations.EVICTED));
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> !Cluster.suspended(get("ran")));
        assertTrue(get("ran").getMetadata().getAnnotations().get(Annotations.EVICTED) == null
                || get("ran").getMetadata().getAnnotations().get(Annotations.EVICTED).isEmpty());
    }

    @Test
    void aJobWhosePodRunsGetsItsMarkWrittenForItsAdmission() {
        Job fresh = client.batch().v1().jobs().inNamespace(NS).resource(job("fresh", true, Map.of())).create();
        await().atMost(Duration.ofSeconds(15)).until(() -> !Cluster.suspended(get("fresh"))
                && Cluster.admittedGroup(get("fresh")) != null);
        pod(client, fresh, "fresh-1", "Running");
        await().atMost(Duration.ofSeconds(10)).until(() -> get("fresh").getMetadata().getAnnotations()
                .containsKey("kube-queue/pod-ran"));
        Job marked = get("fresh");
        String admittedAt = marked.getMetadata().getAnnotations().get(Annotations.ADMITTED_AT);
        assertEquals(podRanMark(marked.getMetadata().getUid(), NS, admittedAt),
                marked.getMetadata().getAnnotations().get("kube-queue/pod-ran"));
        client.batch().v1().jobs().inNamespace(NS).withName("fresh").delete();
    }
}
