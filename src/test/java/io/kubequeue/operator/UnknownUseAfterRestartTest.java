package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.argo.WorkflowKind;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 25, sequence 3: team-b's running Workflow, admitted by an earlier leader, has a {@code kube-queue/min-resources}
 * that no longer reads; kube-queue (re)starts. The Workflow is charged as unknown. Before, its group and every
 * ancestor with a limit, root included, admitted nothing while it ran: team-a, which has nothing to do with it,
 * waited for days. Now team-b is held and root counts team-b at its max, so team-a is admitted.
 */
@QuarkusTest
@WithStrictApiServer(setup = UnknownUseAfterRestartTest.RunningWorkflowWithUnreadableRequest.class)
class UnknownUseAfterRestartTest {

    /** What a restart finds: the seed-like tree, and team-b's Workflow running with kube-queue's record. */
    public static class RunningWorkflowWithUnreadableRequest implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            for (String team : new String[] {"team-a", "team-b"}) {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(team).endMetadata()
                        .build()).create();
            }
            new Cluster(client).apply("/quota/seed-like-three-teams.yaml");
            Workflow running = new Workflow();
            running.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("etl")
                    .withNamespace("team-b")
                    .addToAnnotations(WorkflowKind.MIN_RESOURCES, "cpu: [2")
                    .addToAnnotations(Annotations.QUOTA_GROUP, "root.team-b")
                    .addToAnnotations(Annotations.ADMITTED_AT, "2026-01-01T00:00:00.000Z").build());
            running.setSpec(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode()
                    .put("suspend", false).put("entrypoint", "main"));
            TrustedRecords.clusterKey(client); // the Secret an earlier kube-queue left, with its key
            TrustedRecords.createSigned(client, running); // its record, as that kube-queue signed it
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @Test
    void theOtherTeamIsStillAdmittedWhileTheUnknownGroupIsHeld() {
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(new JobKey("Workflow", "team-b", "etl"))
                .map(s -> s.state() == JobState.ADMITTED).orElse(false));
        for (String team : new String[] {"team-a", "team-b"}) {
            client.batch().v1().jobs().inNamespace(team).resource(new JobBuilder().withNewMetadata().withName("train")
                    .endMetadata().withNewSpec().withSuspend(true).withNewTemplate().withNewSpec()
                    .withRestartPolicy("Never").addNewContainer().withName("work").withImage("busybox:stable")
                    .withNewResources().addToRequests("cpu", new Quantity("3")).addToRequests("memory",
                            new Quantity("4Gi")).endResources().endContainer().endSpec().endTemplate().endSpec()
                    .build()).create();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> new Cluster(client).admittedNow(
                client.batch().v1().jobs().inNamespace("team-a").withName("train").get()));
        PendingView b = scheduler.find("team-b", "train").get(0);
        assertEquals(JobState.ACTIVE == b.status().state() || JobState.BACKOFF == b.status().state(),
                true, "team-b's job waits: " + b.status().state());
        assertTrue(b.reason().toString().contains("quota group root.team-b admits nothing now"), b.reason().toString());
    }
}
