package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.argo.WorkflowKind;
import io.quarkus.test.junit.QuarkusTest;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/**
 * A cluster without Argo: every request for Workflows answers 404 for a while, as when the CRD is not
 * installed. kube-queue must start and queue the other kinds, then pick Workflows up once they are served.
 */
@QuarkusTest
@WithStrictApiServer(setup = MissingCrdTest.NoArgoAtFirst.class)
class MissingCrdTest {

    /** The first requests for Workflows (recovery's list, the informer's first tries) find no such API. */
    public static class NoArgoAtFirst implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            String notFound = "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\"}";
            // as many 404s as recovery would try: only taking a 404 for "not served" lets start-up go on
            server.expect().get().withPath("/apis/argoproj.io/v1alpha1/workflows").andReturn(404, notFound).times(5);
            server.expect().get().withPath("/apis/argoproj.io/v1alpha1/workflows?resourceVersion=0")
                    .andReturn(404, notFound).times(2);
        }
    }

    @Inject
    KubernetesClient client;

    @Test
    void theOtherKindsAreQueuedAndWorkflowsArePickedUpOnceServed() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.apply("/seed/tfjobs.yaml");
        cluster.awaitOneSeedJobAdmitted();

        Workflow workflow = (Workflow) Manifests.read(client,
                MissingCrdTest.class.getResourceAsStream("/upstream/argo-workflows_hello-world.yaml")).get(0);
        workflow.getMetadata().setName("late");
        workflow.getMetadata().setGenerateName(null);
        workflow.getMetadata().setNamespace("default");
        workflow.getMetadata().setAnnotations(new HashMap<>());
        workflow.getMetadata().getAnnotations().put(WorkflowKind.MIN_RESOURCES, "cpu: 500m");
        ((ObjectNode) workflow.getSpec()).put("suspend", true);
        client.resource(workflow).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Workflow now = client.resource(workflow).get();
            return now.getMetadata().getAnnotations().containsKey(Annotations.QUOTA_GROUP)
                    && !now.getSpec().path("suspend").asBoolean(true);
        });
        // no clean-up: this class has a mock server of its own, and the 404s left for recovery's list would
        // answer a collection delete of Workflows
    }
}
