package io.kubequeue.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import com.marcnuri.helm.Helm;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.JobKinds;
import io.kubequeue.testing.Parse;

/**
 * The shipped {@code MutatingWebhookConfiguration kube-queue-suspend-at-creation} sends the API server's creates of
 * exactly the kinds {@link SuspendAtCreation#KINDS} suspends, at every version kube-queue reads them in
 * ({@link JobKinds}: batch/v1 jobs, kubeflow.org/v1 tfjobs, pytorchjobs and mpijobs, kubeflow.org/v2beta1 mpijobs):
 * a kind left out would skip the queue, a kind added (an Argo Workflow) would be sent for nothing. Held for the
 * manifests' fragment and the Helm chart alike.
 */
class ShippedWebhookRulesTest {

    private static final KubernetesClient CLIENT = Parse.client();
    private static final String NAME = "kube-queue-suspend-at-creation";

    /** group/version/resource of every kind the webhook suspends, from the kinds kube-queue registers. */
    private static Set<String> suspendedResources() {
        Set<String> expected = new TreeSet<>();
        for (JobKind<?> kind : JobKinds.all(CLIENT)) {
            if (SuspendAtCreation.KINDS.stream().anyMatch(k -> k.group().equals(kind.apiGroup())
                    && k.kind().equals(kind.kind()))) {
                expected.add(kind.apiGroup() + "/" + HasMetadata.getVersion(kind.type()) + "/" + kind.plural());
            }
        }
        return expected;
    }

    /** group/version/resource of every rule of every webhook, each rule checked to be CREATE only and namespaced. */
    private static Set<String> routed(MutatingWebhookConfiguration configuration) {
        Set<String> routed = new TreeSet<>();
        for (MutatingWebhook hook : configuration.getWebhooks()) {
            for (RuleWithOperations rule : hook.getRules()) {
                assertEquals(List.of("CREATE"), rule.getOperations(), hook.getName() + ": creates only");
                assertEquals("Namespaced", rule.getScope(), hook.getName());
                for (String group : rule.getApiGroups()) {
                    for (String version : rule.getApiVersions()) {
                        for (String resource : rule.getResources()) {
                            routed.add(group + "/" + version + "/" + resource);
                        }
                    }
                }
            }
            assertEquals("/webhooks/suspend-at-creation", hook.getClientConfig().getService().getPath(),
                    hook.getName() + ": the HTTPS endpoint's path");
        }
        return routed;
    }

    private static MutatingWebhookConfiguration configuration(List<HasMetadata> objects, String where) {
        return objects.stream().filter(MutatingWebhookConfiguration.class::isInstance)
                .map(MutatingWebhookConfiguration.class::cast).filter(c -> NAME.equals(c.getMetadata().getName()))
                .findFirst().orElseThrow(() -> new AssertionError(where + ": no MutatingWebhookConfiguration " + NAME));
    }

    @Test
    void theKindsSuspendedAreTheRegisteredKindsOfEveryGroupAndVersionButWorkflows() {
        Set<String> expected = suspendedResources();
        assertEquals(Set.of("batch/v1/jobs", "kubeflow.org/v1/tfjobs", "kubeflow.org/v1/pytorchjobs",
                "kubeflow.org/v1/mpijobs", "kubeflow.org/v2beta1/mpijobs"), expected);
        assertFalse(expected.stream().anyMatch(r -> r.startsWith("argoproj.io/")), "a Workflow is never suspended");
    }

    @Test
    void theManifestsWebhookRoutesExactlyTheKindsItSuspends() throws IOException {
        Path fragment = Path.of("src", "main", "kubernetes", "kubernetes.yml");
        List<HasMetadata> objects;
        try (InputStream in = Files.newInputStream(fragment)) {
            objects = CLIENT.load(in).items();
        }
        assertEquals(suspendedResources(), routed(configuration(objects, fragment.toString())));
    }

    @Test
    void theChartsWebhookRoutesExactlyTheKindsItSuspends() {
        String rendered = new Helm(Path.of("helm", "kube-queue")).template().withName("kq").withNamespace("kube-queue")
                .withKubeVersion("1.31.0").set("suspendAtCreation.enabled", "true")
                .set("suspendAtCreation.namespaces[0]", "team-a").call();
        List<HasMetadata> objects = CLIENT.load(new ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8)))
                .items();
        assertEquals(suspendedResources(), routed(configuration(objects, "the Helm chart")));
    }
}
