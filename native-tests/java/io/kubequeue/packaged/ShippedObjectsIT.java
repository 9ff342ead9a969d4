package io.kubequeue.packaged;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;

import io.kubequeue.testing.ApiServerRules;

/**
 * Every object kube-queue ships, in each of its three install paths, held to the rules a real API server enforces
 * and the mock server does not ({@link ApiServerRules}): the approval annotation of a CRD in a protected group
 * (issue: the ElasticQuotaTree CRD was refused by every real cluster), structural schemas, printer columns,
 * names, labels and annotation sizes. What the docs tell people to {@code kubectl apply} is checked as kubectl
 * stores it, with its last-applied annotation. (K3sSeedScenarioIT installs them on a real API server, in CI.)
 */
class ShippedObjectsIT {

    private static final Path CHART = Path.of("helm", "kube-queue");
    private static final Path GENERATED = Path.of("target", "kubernetes");
    private static final Path BUNDLE_MANIFESTS = Path.of("target", "bundle", "kube-queue", "manifests");
    /** {@code kubectl apply -f <path>} in a document, path group 1. */
    private static final Pattern KUBECTL_APPLY = Pattern.compile("kubectl apply -f (\\S+)");

    /** Each object's violations, by where it comes from; empty when all pass. */
    private static Map<String, List<String>> check(Map<String, List<JsonNode>> sources,
                                                   Function<JsonNode, List<String>> rules) {
        Map<String, List<String>> found = new TreeMap<>();
        sources.forEach((source, objects) -> {
            List<String> violations = objects.stream().flatMap(o -> rules.apply(o).stream()).toList();
            if (!violations.isEmpty()) {
                found.put(source, violations);
            }
        });
        return found;
    }

    private static List<JsonNode> template(Map<String, String> values) {
        TemplateCommand command = new Helm(CHART).template().withName("kq").withNamespace("kube-queue")
                .withKubeVersion("1.31.0");
        values.forEach(command::set);
        return ApiServerRules.readAll(command.call());
    }

    @Test
    void theGeneratedManifestsAndCrdPassAsKubectlApplyStoresThem() throws IOException {
        Map<String, List<JsonNode>> sources = new TreeMap<>();
        try (Stream<Path> files = Files.list(GENERATED)) {
            files.filter(f -> f.toString().endsWith(".yml")).forEach(f -> sources.put(f.toString(), ApiServerRules.readAll(f)));
        }
        assertTrue(sources.containsKey(Rendered.generatedCrd().toString()), "the CRD is generated: " + sources.keySet());
        assertTrue(sources.values().stream().flatMap(List::stream).anyMatch(o -> "APIService".equals(o.path("kind")
                .asText())) && sources.values().stream().flatMap(List::stream).anyMatch(o ->
                "MutatingWebhookConfiguration".equals(o.path("kind").asText())), "the HTTPS port's objects are checked");
        assertEquals(Map.of(), check(sources, ApiServerRules::violationsWhenApplied));
    }

    @Test
    void theHelmChartsCrdAndTemplatesPassWithDefaultAndNonDefaultValues() {
        Map<String, List<JsonNode>> sources = new TreeMap<>();
        sources.put("helm show crds", ApiServerRules.readAll(new Helm(CHART).show().crds().call()));
        sources.put("helm template (defaults)", template(Map.of()));
        sources.put("helm template (everything on)", template(Map.of("replicas", "2", "serviceMonitor.enabled", "true",
                "queueGroupPlugin", "resourcequota", "watchNamespaces[0]", "team-a", "jobKinds.Workflow", "false",
                "config", "kube-queue.backoff.max=30s", "podAnnotations.team", "platform")));
        sources.put("helm template (no leader election)", template(Map.of("leaderElection.enabled", "false")));
        // the HTTPS port's objects: the webhook for named namespaces and for "*", cert-manager's certificate
        sources.put("helm template (webhook, names)", template(Map.of("suspendAtCreation.enabled", "true",
                "suspendAtCreation.namespaces[0]", "team-a", "suspendAtCreation.namespaces[1]", "team-b",
                "suspendAtCreation.failurePolicy", "Fail", "suspendAtCreation.timeoutSeconds", "30")));
        sources.put("helm template (webhook, every group's namespace, cert-manager)", template(Map.of(
                "suspendAtCreation.enabled", "true", "suspendAtCreation.namespaces[0]", "*",
                "serving.certManager.enabled", "true", "networkPolicy.enabled", "true")));
        sources.put("helm template (declared kinds)", template(Map.of("presets.jobSet", "true",
                "declaredKinds[0].group", "example.com", "declaredKinds[0].plural", "batchruns")));
        assertEquals(2, sources.get("helm show crds").size(), "ElasticQuotaTree's and QueuedKind's");
        for (String kind : List.of("APIService", "MutatingWebhookConfiguration", "Certificate")) {
            assertTrue(sources.values().stream().flatMap(List::stream).anyMatch(o -> kind.equals(o.path("kind").asText())),
                    kind + " is among the objects checked");
        }
        assertEquals(Map.of(), check(sources, ApiServerRules::violations));
    }

    @Test
    void theOlmBundlePasses() throws IOException {
        Map<String, List<JsonNode>> sources = new TreeMap<>();
        try (Stream<Path> files = Files.list(BUNDLE_MANIFESTS)) {
            files.forEach(f -> sources.put(f.toString(), ApiServerRules.readAll(f)));
        }
        assertTrue(sources.keySet().stream().anyMatch(f -> f.endsWith(".crd.yaml")), "the bundle ships the CRD");
        assertEquals(Map.of(), check(sources, ApiServerRules::violations));
    }

    /**
     * A big CRD (PyTorchJob, MPIJob v2beta1) cannot be {@code kubectl apply}'d: the copy kubectl keeps in an
     * annotation passes 256 KiB. So every file the docs tell people to {@code kubectl apply} must fit that way.
     */
    @Test
    void everyFileTheDocsSayToKubectlApplyFitsAsKubectlStoresIt() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
            docs.filter(d -> d.toString().endsWith(".md")).forEach(documents::add);
        }
        Map<String, List<JsonNode>> applied = new TreeMap<>();
        for (Path document : documents) {
            Matcher m = KUBECTL_APPLY.matcher(Files.readString(document));
            while (m.find()) {
                Path file = Path.of(m.group(1));
                if (Files.isRegularFile(file)) {
                    applied.put(document + ": " + file, ApiServerRules.readAll(file));
                } else if (Files.isDirectory(file)) {
                    try (Stream<Path> files = Files.list(file)) {
                        files.forEach(f -> applied.put(document + ": " + f, ApiServerRules.readAll(f)));
                    }
                }
            }
        }
        assertTrue(applied.keySet().stream().anyMatch(k -> k.contains("elasticquotatrees")),
                "docs/install.md applies the generated CRD: " + applied.keySet());
        assertEquals(Map.of(), check(applied, ApiServerRules::violationsWhenApplied));
    }
}
