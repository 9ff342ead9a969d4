package io.kubequeue.job.declared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Issue 31: every preset against its kind's upstream CRD (src/test/resources/crds/*.yaml.gz, gzipped copies of
 * shared/crds, see the README there): the CRD serves the declared group, version, kind and plural, namespaced, and
 * each path of the declaration is in its schema with the type kube-queue reads there ({@link SchemaCheck}). A preset
 * whose hold field or a count is misspelt, or names a field of the wrong type, is refused by the same check.
 */
class PresetSchemasTest {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final Path PRESETS = Path.of("helm", "kube-queue", "presets");

    /** Preset file → its CRD's file. */
    private static final Map<String, String> CRDS = Map.of(
            "jobset", "jobset.x-k8s.io_jobsets",
            "rayjob", "ray.io_rayjobs",
            "raycluster", "ray.io_rayclusters",
            "trainjob", "trainer.kubeflow.org_trainjobs",
            "appwrapper", "workload.codeflare.dev_appwrappers",
            "paddlejob", "kubeflow.org_paddlejobs",
            "xgboostjob", "kubeflow.org_xgboostjobs",
            "jaxjob", "kubeflow.org_jaxjobs");

    static List<String> presets() {
        return CRDS.keySet().stream().sorted().toList();
    }

    private static QueuedKindSpec preset(String name) throws IOException {
        return SERIALIZATION.unmarshal(Files.readString(PRESETS.resolve(name + ".yaml")), QueuedKind.class).getSpec();
    }

    private static CustomResourceDefinition crd(String name) throws IOException {
        try (InputStream in = new GZIPInputStream(PresetSchemasTest.class.getResourceAsStream(
                "/crds/" + CRDS.get(name) + ".yaml.gz"))) {
            return SERIALIZATION.unmarshal(in, CustomResourceDefinition.class);
        }
    }

    private static List<String> problems(QueuedKindSpec spec, CustomResourceDefinition crd) {
        CustomResourceDefinitionVersion version = crd.getSpec().getVersions().stream()
                .filter(v -> v.getName().equals(spec.version)).findFirst()
                .orElseThrow(() -> new AssertionError(crd.getMetadata().getName() + " has no version " + spec.version));
        DeclaredJobKind kind = DeclaredJobKind.of("preset", spec, SERIALIZATION);
        return kind.schemaProblems(new SchemaCheck(SERIALIZATION.convertValue(
                version.getSchema().getOpenAPIV3Schema(), JsonNode.class)));
    }

    @ParameterizedTest
    @MethodSource("presets")
    void thePresetNamesWhatItsCrdServesAndEveryPathIsInItsSchema(String name) throws IOException {
        QueuedKindSpec spec = preset(name);
        CustomResourceDefinition crd = crd(name);
        assertEquals(spec.group, crd.getSpec().getGroup(), name);
        assertEquals(spec.kind, crd.getSpec().getNames().getKind(), name);
        assertEquals(spec.plural, crd.getSpec().getNames().getPlural(), name);
        assertEquals("Namespaced", crd.getSpec().getScope(), name);
        assertTrue(crd.getSpec().getVersions().stream().anyMatch(v -> v.getName().equals(spec.version)
                && Boolean.TRUE.equals(v.getServed())), name + " " + spec.version + " is served");
        assertEquals(List.of(), problems(spec, crd), name);
    }

    @ParameterizedTest
    @MethodSource("presets")
    void aMisspeltHoldFieldOrCountIsRefusedNamingTheField(String name) throws IOException {
        CustomResourceDefinition crd = crd(name);
        QueuedKindSpec misspelt = preset(name);
        misspelt.hold.field = misspelt.hold.field + "x";
        List<String> problems = problems(misspelt, crd);
        assertTrue(problems.size() == 1 && problems.get(0).startsWith("spec.hold.field: the CRD's schema has no field"),
                name + ": " + problems);

        QueuedKindSpec wrongCount = preset(name);
        QueuedKindSpec.PodSet counted = wrongCount.podSets.stream().filter(p -> p.counts != null && !p.counts.isEmpty())
                .findFirst().orElse(null);
        if (counted != null) {
            counted.counts.get(0).field = counted.counts.get(0).field + "s";
            assertTrue(problems(wrongCount, crd).stream().anyMatch(p -> p.contains(".counts[0].field: the CRD's schema"
                    + " has no field")), name + ": " + problems(wrongCount, crd));
        }
    }

    @ParameterizedTest
    @MethodSource("presets")
    void aHoldFieldOfAnotherTypeIsRefused(String name) throws IOException {
        QueuedKindSpec spec = preset(name);
        // every kind here has an object in its spec at the first pod set's template or each: never a boolean
        spec.hold.field = "spec." + firstObjectField(spec.kind);
        List<String> problems = problems(spec, crd(name));
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("spec.hold.field: ") && p.endsWith("not a boolean")),
                name + ": " + problems);
    }

    /** The run-time paths (a deadline, an end) name fields of their type: an object is neither. */
    @ParameterizedTest
    @MethodSource("presets")
    void aDeadlineOrEndOfAnotherTypeIsRefused(String name) throws IOException {
        QueuedKindSpec spec = preset(name);
        spec.activeDeadlineSeconds = "spec." + firstObjectField(spec.kind);
        if (spec.finished != null) {
            spec.finished.at = "spec." + firstObjectField(spec.kind);
        }
        List<String> problems = problems(spec, crd(name));
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("spec.activeDeadlineSeconds: ")
                && p.endsWith("not an integer")), name + ": " + problems);
        assertEquals(spec.finished != null, problems.stream().anyMatch(p -> p.startsWith("spec.finished.at: ")
                && p.endsWith("not a string")), name + ": " + problems);
    }

    /** A field of the kind's spec whose schema type is object (or a list), by kind. */
    private static String firstObjectField(String kind) {
        return switch (kind) {
            case "JobSet" -> "network";
            case "RayJob" -> "rayClusterSpec";
            case "RayCluster" -> "headGroupSpec";
            case "TrainJob" -> "trainer";
            case "AppWrapper" -> "components";
            default -> "runPolicy";
        };
    }
}
