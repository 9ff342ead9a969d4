package io.kubequeue.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@link ApiServerRules}: the upstream CRDs pass; for every rule, an object that breaks just that rule is reported
 * with the rule's field path and name, and the same object fixed passes.
 */
class ApiServerRulesTest {

    private static final String ROOT = "spec.versions[0].schema.openAPIV3Schema";
    private static final String SPEC = ROOT + ".properties[spec]";
    private static final String COLUMN = "spec.versions[0].additionalPrinterColumns[0]";
    private static final String APPROVAL = "metadata.annotations[api-approved.kubernetes.io]";
    private static final String OURS = "kube-queue rule";
    private static final String STRUCTURAL = "structural schema";

    /** A valid version for {@link #crdWithVersions}, as a YAML flow mapping. */
    private static final String V1 = "{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}";
    /** The status schema that {@link #crdWithColumns} columns point into. */
    private static final String STATUS = "{type: object, properties: {phase: {type: string},"
            + " conditions: {type: array, items: {type: object, properties: {type: {type: string}}}}}}";

    // ---- upstream CRDs ----

    @ParameterizedTest
    @ValueSource(strings = { "kubeflow.org_tfjobs.yaml", "kubeflow.org_pytorchjobs.yaml",
            "kubeflow.org_mpijobs.v2beta1.yaml", "argoproj.io_workflows.yaml",
            "scheduling.x-k8s.io_queues.kube-queue-api.yaml" })
    void upstreamCrdPasses(String file) {
        List<JsonNode> documents = ApiServerRules.readAll(upstreamCrd(file));
        assertEquals(1, documents.size());
        assertEquals("CustomResourceDefinition", documents.get(0).path("kind").asText());
        assertEquals(List.of(), ApiServerRules.violations(documents.get(0)));
    }

    /** The upstream CRDs pass because they keep the rules, not because the checker skips them: break one, deep. */
    @ParameterizedTest
    @MethodSource
    void upstreamCrdBrokenDeepInsideIsReported(String file, String brokenPath, String rule) {
        ObjectNode crd = (ObjectNode) ApiServerRules.readAll(upstreamCrd(file)).get(0);
        JsonNode version = crd.path("spec").path("versions").path(0);
        if (file.startsWith("kubeflow.org_")) {
            ((ObjectNode) version.at("/schema/openAPIV3Schema/properties/spec/properties/runPolicy/properties/suspend"))
                    .put("type", "bool");
        } else if (file.startsWith("argoproj.io_")) {
            ((ObjectNode) version).put("storage", false);
        } else {
            ((ObjectNode) version.at("/schema/openAPIV3Schema/properties/spec/properties/priorityClassName"
                    + "/additionalProperties")).remove("x-kubernetes-int-or-string");
        }
        assertOnlyViolation(crd, brokenPath, rule);
    }

    static Stream<Arguments> upstreamCrdBrokenDeepInsideIsReported() {
        String suspend = SPEC + ".properties[runPolicy].properties[suspend].type";
        return Stream.of(
                Arguments.of("kubeflow.org_tfjobs.yaml", suspend, STRUCTURAL),
                Arguments.of("kubeflow.org_pytorchjobs.yaml", suspend, STRUCTURAL),
                Arguments.of("kubeflow.org_mpijobs.v2beta1.yaml", suspend, STRUCTURAL),
                Arguments.of("argoproj.io_workflows.yaml", "spec.versions", "CRD versions"),
                Arguments.of("scheduling.x-k8s.io_queues.kube-queue-api.yaml",
                        SPEC + ".properties[priorityClassName].additionalProperties.type", STRUCTURAL));
    }

    /**
     * Some upstream CRDs are too large for client-side apply (the training-operator's and mpi-operator's docs say
     * kubectl apply --server-side): as compact JSON PyTorchJob's is 275,850 bytes, MPIJob v2beta1's 313,329, TFJob's
     * 258,747, just under the 262,144 that the annotation may hold.
     */
    @Test
    void largeUpstreamCrdsBreakTheAnnotationLimitOnlyWhenApplied() {
        for (String file : List.of("kubeflow.org_pytorchjobs.yaml", "kubeflow.org_mpijobs.v2beta1.yaml")) {
            JsonNode crd = ApiServerRules.readAll(upstreamCrd(file)).get(0);
            assertEquals(List.of(), ApiServerRules.violations(crd));
            assertOnlyViolation(ApiServerRules.violationsWhenApplied(crd), "metadata.annotations",
                    "TotalAnnotationSizeLimitB");
        }
        for (String file : List.of("kubeflow.org_tfjobs.yaml", "argoproj.io_workflows.yaml")) {
            assertEquals(List.of(), ApiServerRules.violationsWhenApplied(ApiServerRules.readAll(upstreamCrd(file)).get(0)));
        }
    }

    // ---- one case per rule: broken, reported at a path by a rule; fixed, passes ----

    /** An object that breaks exactly one rule, where it is reported and by which rule, and the object fixed. */
    record Case(String broken, String path, String rule, String fixed) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void brokenObjectIsReported(String name, Case c) {
        assertOnlyViolation(only(c.broken()), c.path(), c.rule());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void fixedObjectPasses(String name, Case c) {
        assertEquals(List.of(), ApiServerRules.violations(only(c.fixed())));
    }

    static Stream<Arguments> cases() {
        return Stream.of(metadataCases(), sizeAndStatusCases(), crdCases(), schemaCases(), junctorCases(),
                printerColumnCases(), apiServiceCases(), webhookCases()).flatMap(s -> s);
    }

    static Stream<Arguments> metadataCases() {
        String longName = "a".repeat(63);
        return Stream.of(
                rule("name required unless generateName", configMap("{namespace: default}"), "metadata.name",
                        "ObjectMeta", configMap("{namespace: default, generateName: job-}")),
                rule("name is a DNS-1123 subdomain", configMap("{name: My_Config}"), "metadata.name",
                        "DNS-1123 subdomain", configMap("{name: my.config-1}")),
                rule("name at most 253 characters", configMap("{name: " + "a".repeat(254) + "}"), "metadata.name",
                        "DNS-1123 subdomain", configMap("{name: " + "a".repeat(253) + "}")),
                rule("Namespace name is a DNS-1123 label", "apiVersion: v1\nkind: Namespace\nmetadata: {name: team.a}",
                        "metadata.name", "DNS-1123 label", "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}"),
                rule("Namespace name at most 63 characters",
                        "apiVersion: v1\nkind: Namespace\nmetadata: {name: a" + longName + "}", "metadata.name",
                        "DNS-1123 label", "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + longName + "}"),
                rule("Service name is a DNS-1035 label",
                        "apiVersion: v1\nkind: Service\nmetadata: {name: 9lives}\nspec: {ports: [{port: 80}]}",
                        "metadata.name", "DNS-1035 label",
                        "apiVersion: v1\nkind: Service\nmetadata: {name: lives9}\nspec: {ports: [{port: 80}]}"),
                rule("namespace is a DNS-1123 label", configMap("{name: a, namespace: Team_A}"),
                        "metadata.namespace", "DNS-1123 label", configMap("{name: a, namespace: team-a}")),
                // RBAC names only need to be path segments, so the usual system:... names are fine
                rule("RBAC name is a path segment",
                        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: kube/queue}",
                        "metadata.name", "path segment name",
                        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: 'system:kube-queue'}"),
                rule("label key name part", configMap("{name: a, labels: {-app: x}}"), "metadata.labels[-app]",
                        "qualified name", configMap("{name: a, labels: {app: x}}")),
                rule("label key prefix is a lower-case DNS subdomain",
                        configMap("{name: a, labels: {Example.com/app: x}}"), "metadata.labels[Example.com/app]",
                        "qualified name", configMap("{name: a, labels: {example.com/app: x}}")),
                rule("label key has at most one slash", configMap("{name: a, labels: {a/b/c: x}}"),
                        "metadata.labels[a/b/c]", "qualified name", configMap("{name: a, labels: {a.b/c: x}}")),
                rule("label key name part at most 63 characters",
                        configMap("{name: a, labels: {x.io/a" + longName + ": x}}"),
                        "metadata.labels[x.io/a" + longName + "]", "qualified name",
                        configMap("{name: a, labels: {x.io/" + longName + ": x}}")),
                rule("label value characters", configMap("{name: a, labels: {app: 'kube queue'}}"),
                        "metadata.labels[app]", "label value", configMap("{name: a, labels: {app: '', tier: kube_queue.1}}")),
                rule("label value at most 63 characters", configMap("{name: a, labels: {app: a" + longName + "}}"),
                        "metadata.labels[app]", "label value", configMap("{name: a, labels: {app: " + longName + "}}")),
                rule("label value is a string", configMap("{name: a, labels: {version: 5}}"),
                        "metadata.labels[version]", "ObjectMeta", configMap("{name: a, labels: {version: '5'}}")),
                // annotation keys are checked lower-cased, so unlike label keys they may have an upper-case prefix
                rule("annotation key", configMap("{name: a, annotations: {bad key: x}}"),
                        "metadata.annotations[bad key]", "qualified name",
                        configMap("{name: a, annotations: {Example.com/Key: x}}")),
                rule("annotation value is a string", configMap("{name: a, annotations: {replicas: 3}}"),
                        "metadata.annotations[replicas]", "ObjectMeta",
                        configMap("{name: a, annotations: {replicas: '3'}}")),
                // 262144 bytes of keys plus values: the key "k" and a value one byte short of the limit
                rule("annotations total at most 256 KiB",
                        configMap("{name: a, annotations: {k: " + "v".repeat(262144) + "}}"), "metadata.annotations",
                        "TotalAnnotationSizeLimitB", configMap("{name: a, annotations: {k: " + "v".repeat(262143) + "}}")));
    }

    static Stream<Arguments> sizeAndStatusCases() {
        // the widget's compact JSON is this skeleton plus the blob: exactly 1,572,864 bytes is the most etcd takes
        int skeleton = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"big\"},\"spec\":{\"blob\":\"\"}}"
                .length();
        int largestBlob = 1_572_864 - skeleton;
        return Stream.of(
                rule("object at most 1.5 MiB", widget("big", "{blob: " + "x".repeat(largestBlob + 1) + "}"), "(root)",
                        "etcd max request bytes", widget("big", "{blob: " + "x".repeat(largestBlob) + "}")),
                rule("no status shipped", widget("w", "{size: 1}") + "status: {phase: Done}\n", "status",
                        "status subresource", widget("w", "{size: 1}")));
    }

    static Stream<Arguments> crdCases() {
        String crd = crdWithSpec("{type: object}");
        return Stream.of(
                rule("CRD name is plural.group", crd.replace("name: widgets.example.com", "name: widget.example.com"),
                        "metadata.name", "CRD names", crd),
                rule("CRD group has a dot", crd("example", "{}", "{type: object}", "[]"), "spec.group", "CRD names",
                        crd("example.com", "{}", "{type: object}", "[]")),
                rule("CRD singular is a DNS-1035 label", crd.replace("singular: widget}", "singular: Widget}"),
                        "spec.names.singular", "DNS-1035 label", crd),
                rule("CRD kind required", crd.replace("kind: Widget,", "kind: '',"), "spec.names.kind", "CRD names",
                        crd),
                rule("CRD scope", crd.replace("scope: Namespaced", "scope: Global"), "spec.scope", "CRD names", crd),
                rule("protected group needs approval", crd("scheduling.sigs.k8s.io", "{}", "{type: object}", "[]"),
                        APPROVAL, "API approval",
                        crd("scheduling.sigs.k8s.io", "{api-approved.kubernetes.io: 'unapproved, reason'}",
                                "{type: object}", "[]")),
                rule("approval is a URL or unapproved",
                        crd("scheduling.sigs.k8s.io", "{api-approved.kubernetes.io: not-a-url}", "{type: object}", "[]"),
                        APPROVAL, "API approval",
                        crd("scheduling.sigs.k8s.io", "{api-approved.kubernetes.io: 'https://github.com/x/y/pull/1'}",
                                "{type: object}", "[]")),
                rule("kubernetes.io is protected too", crd("example.kubernetes.io", "{}", "{type: object}", "[]"),
                        APPROVAL, "API approval",
                        crd("example.kubernetes.io", "{api-approved.kubernetes.io: unapproved}", "{type: object}", "[]")),
                rule("at least one version", crdWithVersions("[]"), "spec.versions", "CRD versions",
                        crdWithVersions("[" + V1 + "]")),
                rule("version name is a DNS-1035 label", crdWithVersions("[" + V1.replace("v1", "V1") + "]"),
                        "spec.versions[0].name", "DNS-1035 label", crdWithVersions("[" + V1 + "]")),
                rule("version names unique",
                        crdWithVersions("[" + V1 + ", " + V1.replace("storage: true", "storage: false") + "]"),
                        "spec.versions[1].name", "CRD versions",
                        crdWithVersions("[" + V1 + ", " + V1.replace("v1", "v2").replace("storage: true",
                                "storage: false") + "]")),
                rule("exactly one storage version",
                        crdWithVersions("[" + V1 + ", " + V1.replace("v1", "v2") + "]"), "spec.versions",
                        "CRD versions",
                        crdWithVersions("[" + V1 + ", " + V1.replace("v1", "v2").replace("storage: true",
                                "storage: false") + "]")),
                rule("schema required in v1", crdWithVersions("[{name: v1, served: true, storage: true}]"),
                        ROOT, "CRD versions", crdWithVersions("[" + V1 + "]")));
    }

    static Stream<Arguments> schemaCases() {
        return Stream.of(
                rule("field has a type", crdWithSpec("{type: object, properties: {replicas: {minimum: 1}}}"),
                        SPEC + ".properties[replicas].type", STRUCTURAL,
                        crdWithSpec("{type: object, properties: {replicas: {type: integer, minimum: 1}}}")),
                rule("items have a type", crdWithSpec("{type: array, items: {minLength: 1}}"),
                        SPEC + ".items.type", STRUCTURAL, crdWithSpec("{type: array, items: {type: string, minLength: 1}}")),
                rule("additionalProperties schema has a type",
                        crdWithSpec("{type: object, additionalProperties: {maxLength: 5}}"),
                        SPEC + ".additionalProperties.type", STRUCTURAL,
                        crdWithSpec("{type: object, additionalProperties: {type: string, maxLength: 5}}")),
                rule("root has a type", crdWithRoot("{properties: {spec: {type: object}}}"), ROOT + ".type",
                        STRUCTURAL, crdWithRoot("{type: object, properties: {spec: {type: object}}}")),
                rule("root is an object", crdWithRoot("{type: array, items: {type: string}}"), ROOT + ".type",
                        STRUCTURAL, crdWithRoot("{type: object}")),
                rule("type is an OpenAPI type", crdWithSpec("{type: object, properties: {replicas: {type: int}}}"),
                        SPEC + ".properties[replicas].type", STRUCTURAL,
                        crdWithSpec("{type: object, properties: {replicas: {type: integer}}}")),
                rule("array has items", crdWithSpec("{type: object, properties: {args: {type: array}}}"),
                        SPEC + ".properties[args].items", STRUCTURAL,
                        crdWithSpec("{type: object, properties: {args: {type: array, items: {type: string}}}}")),
                rule("items is one schema", crdWithSpec("{type: array, items: [{type: string}]}"), SPEC + ".items",
                        STRUCTURAL, crdWithSpec("{type: array, items: {type: string}}")),
                rule("int-or-string has no type",
                        crdWithSpec("{type: object, properties: {size: {type: string, x-kubernetes-int-or-string: true}}}"),
                        SPEC + ".properties[size].type", OURS,
                        crdWithSpec("{type: object, properties: {size: {x-kubernetes-int-or-string: true,"
                                + " anyOf: [{type: integer}, {type: string}], pattern: '^[0-9]+(Mi|Gi)?$'}}}")),
                rule("int-or-string pattern inside allOf",
                        crdWithSpec("{type: object, properties: {size: {x-kubernetes-int-or-string: true,"
                                + " allOf: [{anyOf: [{type: integer}, {type: string}]}, {type: string}]}}}"),
                        SPEC + ".properties[size].allOf[1].type", STRUCTURAL,
                        crdWithSpec("{type: object, properties: {size: {x-kubernetes-int-or-string: true,"
                                + " allOf: [{anyOf: [{type: integer}, {type: string}]}, {maxLength: 8}]}}}")),
                rule("preserve-unknown-fields is true if set",
                        crdWithSpec("{type: object, x-kubernetes-preserve-unknown-fields: false}"),
                        SPEC + ".x-kubernetes-preserve-unknown-fields", STRUCTURAL,
                        crdWithSpec("{type: object, x-kubernetes-preserve-unknown-fields: true}")),
                rule("additionalProperties not false", crdWithSpec("{type: object, additionalProperties: false}"),
                        SPEC + ".additionalProperties", OURS,
                        crdWithSpec("{type: object, additionalProperties: {type: string}}")),
                // additionalProperties: true next to properties is what the server tolerates
                rule("additionalProperties schema not with properties",
                        crdWithSpec("{type: object, properties: {a: {type: string}}, additionalProperties: {type: string}}"),
                        SPEC + ".additionalProperties", STRUCTURAL,
                        crdWithSpec("{type: object, properties: {a: {type: string}}, additionalProperties: true}")),
                rule("no additionalProperties at the root", crdWithRoot("{type: object, additionalProperties: {type: string}}"),
                        ROOT + ".additionalProperties", STRUCTURAL,
                        crdWithSpec("{type: object, additionalProperties: {type: string}}")),
                rule("uniqueItems not true", crdWithSpec("{type: array, items: {type: string}, uniqueItems: true}"),
                        SPEC + ".uniqueItems", STRUCTURAL,
                        crdWithSpec("{type: array, items: {type: string}, x-kubernetes-list-type: set}")),
                unsupported("$ref", "{type: object, '$ref': '#/definitions/x'}"),
                unsupported("$schema", "{type: object, '$schema': 'http://json-schema.org/draft-04/schema#'}"),
                unsupported("definitions", "{type: object, definitions: {x: {type: string}}}"),
                unsupported("dependencies", "{type: object, properties: {a: {type: string}, b: {type: string}},"
                        + " dependencies: {a: [b]}}"),
                unsupported("id", "{type: object, id: widget-spec}"),
                unsupported("patternProperties", "{type: object, patternProperties: {'^x-': {type: string}}}"),
                unsupported("additionalItems", "{type: array, items: {type: string}, additionalItems: false}"),
                rule("root metadata only restricts names",
                        crdWithRoot("{type: object, properties: {metadata: {type: object,"
                                + " properties: {labels: {type: object}}}}}"),
                        ROOT + ".properties[metadata].properties[labels]", STRUCTURAL,
                        crdWithRoot("{type: object, properties: {metadata: {type: object,"
                                + " properties: {name: {type: string, maxLength: 20}}}}}")),
                rule("root metadata is only typed", crdWithRoot("{type: object, properties: {metadata: {type: object,"
                        + " description: the widget's metadata}}}"),
                        ROOT + ".properties[metadata].description", STRUCTURAL,
                        crdWithRoot("{type: object, properties: {metadata: {type: object}}}")),
                rule("embedded resource is an object",
                        crdWithSpec("{x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}"),
                        SPEC + ".type", STRUCTURAL,
                        crdWithSpec("{type: object, x-kubernetes-embedded-resource: true,"
                                + " x-kubernetes-preserve-unknown-fields: true}")),
                rule("embedded resource declares fields or preserves them",
                        crdWithSpec("{type: object, x-kubernetes-embedded-resource: true}"), SPEC + ".properties",
                        STRUCTURAL,
                        crdWithSpec("{type: object, x-kubernetes-embedded-resource: true,"
                                + " properties: {kind: {type: string}, apiVersion: {type: string}}}")),
                rule("list type atomic, set or map",
                        crdWithSpec("{type: array, items: {type: string}, x-kubernetes-list-type: list}"),
                        SPEC + ".x-kubernetes-list-type", STRUCTURAL,
                        crdWithSpec("{type: array, items: {type: string}, x-kubernetes-list-type: atomic}")),
                rule("map list has keys",
                        crdWithSpec("{type: array, x-kubernetes-list-type: map,"
                                + " items: {type: object, required: [name], properties: {name: {type: string}}}}"),
                        SPEC + ".x-kubernetes-list-map-keys", STRUCTURAL,
                        crdWithSpec("{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name],"
                                + " items: {type: object, required: [name], properties: {name: {type: string}}}}")),
                rule("map list has object items",
                        crdWithSpec("{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name],"
                                + " items: {type: string}}"),
                        SPEC + ".items.type", STRUCTURAL,
                        crdWithSpec("{type: array, x-kubernetes-list-type: set, items: {type: string}}")));
    }

    static Stream<Arguments> junctorCases() {
        String declaresA = "{type: object, properties: {a: {type: string}}, ";
        String fixed = crdWithSpec(declaresA + "anyOf: [{required: [a]}, {properties: {a: {minLength: 2}}}]}");
        return Stream.of(
                rule("no description in anyOf", crdWithSpec(declaresA + "anyOf: [{required: [a], description: one}]}"),
                        SPEC + ".anyOf[0].description", STRUCTURAL, fixed),
                rule("no type in oneOf", crdWithSpec(declaresA + "oneOf: [{type: object, required: [a]}]}"),
                        SPEC + ".oneOf[0].type", STRUCTURAL, fixed),
                rule("no default in allOf", crdWithSpec(declaresA + "allOf: [{properties: {a: {default: x}}}]}"),
                        SPEC + ".allOf[0].properties[a].default", STRUCTURAL, fixed),
                rule("no additionalProperties in not",
                        crdWithSpec(declaresA + "not: {additionalProperties: {type: string}}}"),
                        SPEC + ".not.additionalProperties", STRUCTURAL, fixed),
                rule("no nullable in anyOf", crdWithSpec(declaresA + "anyOf: [{nullable: true}]}"),
                        SPEC + ".anyOf[0].nullable", STRUCTURAL, fixed),
                rule("a field named in anyOf is declared outside",
                        crdWithSpec(declaresA + "anyOf: [{required: [a]}, {properties: {b: {minLength: 2}}}]}"),
                        SPEC + ".properties[b]", STRUCTURAL, fixed),
                rule("items named in not are declared outside",
                        crdWithSpec("{type: object, not: {items: {minLength: 2}}}"), SPEC + ".items", STRUCTURAL,
                        crdWithSpec("{type: array, items: {type: string}, not: {items: {minLength: 2}}}")));
    }

    static Stream<Arguments> printerColumnCases() {
        String phase = "{name: Phase, type: string, jsonPath: '.status.phase'}";
        return Stream.of(
                rule("column name required", crdWithColumns(STATUS, "[{type: string, jsonPath: '.status.phase'}]"),
                        COLUMN + ".name", "printer column", crdWithColumns(STATUS, "[" + phase + "]")),
                rule("column names unique",
                        crdWithColumns(STATUS, "[" + phase + ", {name: Phase, type: date,"
                                + " jsonPath: '.metadata.creationTimestamp'}]"),
                        "spec.versions[0].additionalPrinterColumns[1].name", OURS,
                        crdWithColumns(STATUS, "[" + phase + ", {name: Age, type: date,"
                                + " jsonPath: '.metadata.creationTimestamp'}]")),
                rule("column type", crdWithColumns(STATUS, "[" + phase.replace("type: string", "type: text") + "]"),
                        COLUMN + ".type", "printer column", crdWithColumns(STATUS, "[" + phase + "]")),
                rule("column format",
                        crdWithColumns(STATUS, "[{name: Age, type: date, format: uuid, jsonPath: '.metadata.creationTimestamp'}]"),
                        COLUMN + ".format", "printer column",
                        crdWithColumns(STATUS, "[{name: Age, type: date, format: date-time,"
                                + " jsonPath: '.metadata.creationTimestamp'}]")),
                rule("column jsonPath required", crdWithColumns(STATUS, "[{name: Phase, type: string}]"),
                        COLUMN + ".jsonPath", "printer column", crdWithColumns(STATUS, "[" + phase + "]")),
                rule("column jsonPath starts with a dot",
                        crdWithColumns(STATUS, "[" + phase.replace("'.status", "'status") + "]"),
                        COLUMN + ".jsonPath", "printer column", crdWithColumns(STATUS, "[" + phase + "]")),
                rule("column jsonPath names a declared field",
                        crdWithColumns(STATUS, "[{name: Replicas, type: integer, jsonPath: '.spec.replica'}]"),
                        COLUMN + ".jsonPath", OURS,
                        crdWithColumns(STATUS, "[{name: Replicas, type: integer, jsonPath: '.spec.replicas'}]")),
                rule("column jsonPath through array items",
                        crdWithColumns(STATUS, "[{name: State, type: string, jsonPath: '.status.conditions[-1:].reason'}]"),
                        COLUMN + ".jsonPath", OURS,
                        crdWithColumns(STATUS, "[{name: State, type: string,"
                                + " jsonPath: '.status.conditions[?(@.type==\"Ready\")].type'}]")),
                rule("column jsonPath into metadata names an ObjectMeta field",
                        crdWithColumns(STATUS, "[{name: Age, type: date, jsonPath: '.metadata.created'}]"),
                        COLUMN + ".jsonPath", OURS,
                        crdWithColumns(STATUS, "[{name: App, type: string, jsonPath: '.metadata.labels.app'}]")),
                rule("column jsonPath under a preserved status",
                        crdWithColumns("{type: object}", "[" + phase + "]"), COLUMN + ".jsonPath", OURS,
                        crdWithColumns("{type: object, x-kubernetes-preserve-unknown-fields: true}", "[" + phase + "]")));
    }

    /** Only the exact anyOf [{type: integer}, {type: string}] may name types under a junctor. */
    @Test
    void otherTypesUnderAnyOfAreReported() {
        List<String> violations = ApiServerRules.violations(only(crdWithSpec(
                "{x-kubernetes-int-or-string: true, anyOf: [{type: string}, {type: integer}]}")));
        assertEquals(2, violations.size(), violations::toString);
        assertTrue(violations.get(0).contains(SPEC + ".anyOf[0].type: "), violations::toString);
        assertTrue(violations.get(1).contains(SPEC + ".anyOf[1].type: "), violations::toString);
    }

    /** Only k8s.io, kubernetes.io and their subdomains are protected; x-k8s.io (sigs' experimental APIs) is not. */
    @ParameterizedTest
    @ValueSource(strings = { "k8s.io.example.com", "scheduling.x-k8s.io", "notkubernetes.io" })
    void lookalikeGroupNeedsNoApproval(String group) {
        assertEquals(List.of(), ApiServerRules.violations(only(crd(group, "{}", "{type: object}", "[]"))));
    }

    @Test
    void violationNamesTheObject() {
        List<String> violations = ApiServerRules.violations(only(configMap("{name: My_Config}")));
        assertEquals(1, violations.size(), violations::toString);
        assertTrue(violations.get(0).startsWith("ConfigMap/My_Config: metadata.name: \"My_Config\" must "),
                violations.get(0));
    }

    // ---- client-side apply ----

    @Test
    void lastAppliedAnnotationCountsOnlyWhenApplied() {
        JsonNode widget = only(widget("w", "{blob: " + "x".repeat(300_000) + "}"));
        String before = widget.toString();
        assertEquals(List.of(), ApiServerRules.violations(widget));
        assertOnlyViolation(ApiServerRules.violationsWhenApplied(widget), "metadata.annotations",
                "TotalAnnotationSizeLimitB");
        assertEquals(before, widget.toString(), "the object itself is left alone");
        assertEquals(List.of(), ApiServerRules.violationsWhenApplied(only(widget("w", "{blob: small}"))));
    }

    /** kubectl writes the annotation with Go's encoding/json, which spells each '<' as the six bytes \u003c. */
    @Test
    void escapedCharactersCountInTheLastAppliedAnnotation() {
        JsonNode widget = only(widget("w", "{blob: '" + "<".repeat(50_000) + "'}"));
        assertEquals(List.of(), ApiServerRules.violations(widget));
        assertOnlyViolation(ApiServerRules.violationsWhenApplied(widget), "metadata.annotations",
                "TotalAnnotationSizeLimitB");
    }

    /** An earlier last-applied annotation is replaced, not counted twice. */
    @Test
    void staleLastAppliedAnnotationIsReplaced() {
        String stale = "x".repeat(200_000); // counted again inside the new annotation, it would break the limit
        JsonNode widget = only("""
                apiVersion: example.com/v1
                kind: Widget
                metadata:
                  name: w
                  annotations: {kubectl.kubernetes.io/last-applied-configuration: %s}
                spec: {blob: %s}
                """.formatted(stale, "y".repeat(100_000)));
        assertEquals(List.of(), ApiServerRules.violationsWhenApplied(widget));
    }

    // ---- reading ----

    @Test
    void readAllSkipsEmptyDocuments() {
        List<JsonNode> documents = ApiServerRules.readAll("""
                ---
                # only a comment
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: a}
                ---
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: b}
                """);
        assertEquals(List.of("a", "b"), documents.stream().map(d -> d.path("metadata").path("name").asText()).toList());
    }

    // ---- helpers ----

    static Stream<Arguments> apiServiceCases() {
        String spec = "{group: visibility.example.com, version: v1alpha1, groupPriorityMinimum: 1000, versionPriority: 15,"
                + " service: {name: api, namespace: team-a, port: 8443}}";
        String ok = apiService("v1alpha1.visibility.example.com", spec);
        return Stream.of(
                rule("APIService name is version.group", apiService("v1.visibility.example.com", spec), "metadata.name",
                        "APIService", ok),
                rule("APIService version is a DNS-1035 label",
                        apiService("V1alpha1.visibility.example.com", spec.replace("version: v1alpha1", "version: V1alpha1")),
                        "spec.version", "DNS-1035 label", ok),
                rule("APIService group priority at most 20000", ok.replace("groupPriorityMinimum: 1000",
                        "groupPriorityMinimum: 20001"), "spec.groupPriorityMinimum", "APIService",
                        ok.replace("groupPriorityMinimum: 1000", "groupPriorityMinimum: 20000")),
                rule("APIService version priority positive", ok.replace("versionPriority: 15", "versionPriority: 0"),
                        "spec.versionPriority", "APIService", ok.replace("versionPriority: 15", "versionPriority: 1")),
                rule("APIService service port", ok.replace("port: 8443", "port: 0"), "spec.service.port", "APIService",
                        ok.replace(", port: 8443", "")),
                rule("APIService caBundle or insecureSkipTLSVerify", ok.replace("versionPriority: 15,",
                        "versionPriority: 15, caBundle: Zm9v, insecureSkipTLSVerify: true,"), "spec.insecureSkipTLSVerify",
                        "APIService", ok.replace("versionPriority: 15,", "versionPriority: 15, caBundle: Zm9v,"
                                + " insecureSkipTLSVerify: false,")));
    }

    static Stream<Arguments> webhookCases() {
        String hook = "{name: jobs.example.io, clientConfig: {service: {name: s, namespace: n, path: /hook, port: 8443}},"
                + " rules: [{apiGroups: [batch], apiVersions: [v1], resources: [jobs], operations: [CREATE],"
                + " scope: Namespaced}], admissionReviewVersions: [v1], sideEffects: None, timeoutSeconds: 5,"
                + " failurePolicy: Ignore, matchPolicy: Equivalent, reinvocationPolicy: Never,"
                + " namespaceSelector: {matchLabels: {example.io/on: 'true'}, matchExpressions:"
                + " [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]}}";
        String ok = webhooks(hook);
        return Stream.of(
                rule("webhook name has three segments", webhooks(hook.replace("jobs.example.io", "jobs.example")),
                        "webhooks[0].name", "admission webhook", ok),
                rule("webhook name is a DNS-1123 subdomain", webhooks(hook.replace("jobs.example.io", "Jobs.example.io")),
                        "webhooks[0].name", "DNS-1123 subdomain", ok),
                rule("webhook names are unique", webhooks(hook, hook), "webhooks[1].name", "admission webhook",
                        webhooks(hook, hook.replace("jobs.example.io", "more-jobs.example.io"))),
                rule("admissionReviewVersions include v1 or v1beta1", webhooks(hook.replace("[v1], sideEffects",
                        "[v2], sideEffects")), "webhooks[0].admissionReviewVersions", "admission webhook",
                        webhooks(hook.replace("[v1], sideEffects", "[v2, v1], sideEffects"))),
                rule("sideEffects required", webhooks(hook.replace(" sideEffects: None,", "")), "webhooks[0].sideEffects",
                        "admission webhook", ok),
                rule("sideEffects None or NoneOnDryRun", webhooks(hook.replace("sideEffects: None", "sideEffects: Some")),
                        "webhooks[0].sideEffects", "admission webhook",
                        webhooks(hook.replace("sideEffects: None", "sideEffects: NoneOnDryRun"))),
                rule("timeout at most 30 seconds", webhooks(hook.replace("timeoutSeconds: 5", "timeoutSeconds: 31")),
                        "webhooks[0].timeoutSeconds", "admission webhook",
                        webhooks(hook.replace("timeoutSeconds: 5", "timeoutSeconds: 30"))),
                rule("failurePolicy Ignore or Fail", webhooks(hook.replace("failurePolicy: Ignore", "failurePolicy: Skip")),
                        "webhooks[0].failurePolicy", "admission webhook",
                        webhooks(hook.replace("failurePolicy: Ignore", "failurePolicy: Fail"))),
                rule("reinvocationPolicy Never or IfNeeded", webhooks(hook.replace("reinvocationPolicy: Never",
                        "reinvocationPolicy: Once")), "webhooks[0].reinvocationPolicy", "admission webhook",
                        webhooks(hook.replace("reinvocationPolicy: Never", "reinvocationPolicy: IfNeeded"))),
                rule("url or service, not both", webhooks(hook.replace("clientConfig: {service:",
                        "clientConfig: {url: 'https://example.io/hook', service:")), "webhooks[0].clientConfig",
                        "admission webhook", ok),
                rule("service path starts with a slash", webhooks(hook.replace("path: /hook", "path: hook")),
                        "webhooks[0].clientConfig.service.path", "admission webhook", ok),
                rule("rule operations", webhooks(hook.replace("operations: [CREATE]", "operations: [CREATE, PATCH]")),
                        "webhooks[0].rules[0].operations", "admission webhook",
                        webhooks(hook.replace("operations: [CREATE]", "operations: [CREATE, UPDATE]"))),
                rule("rule resources required", webhooks(hook.replace("resources: [jobs]", "resources: []")),
                        "webhooks[0].rules[0].resources", "admission webhook", ok),
                rule("NotIn needs values", webhooks(hook.replace("values: [kube-system]", "values: []")),
                        "webhooks[0].namespaceSelector.matchExpressions[0].values", "label selector", ok),
                rule("Exists takes no values", webhooks(hook.replace("operator: NotIn", "operator: Exists")),
                        "webhooks[0].namespaceSelector.matchExpressions[0].values", "label selector",
                        webhooks(hook.replace("operator: NotIn, values: [kube-system]", "operator: Exists"))),
                rule("selector label key", webhooks(hook.replace("example.io/on", "example.io/-on")),
                        "webhooks[0].namespaceSelector.matchLabels[example.io/-on]", "qualified name", ok));
    }

    /** An APIService with the given name and spec, a YAML flow mapping. */
    private static String apiService(String name, String spec) {
        return "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: " + name + "}\nspec: " + spec
                + "\n";
    }

    /** A MutatingWebhookConfiguration with these webhooks, each a YAML flow mapping. */
    private static String webhooks(String... hooks) {
        StringBuilder yaml = new StringBuilder("apiVersion: admissionregistration.k8s.io/v1\n"
                + "kind: MutatingWebhookConfiguration\nmetadata: {name: suspend}\nwebhooks:\n");
        for (String hook : hooks) {
            yaml.append("  - ").append(hook).append('\n');
        }
        return yaml.toString();
    }

    private static Arguments rule(String name, String broken, String path, String rule, String fixed) {
        return Arguments.of(name, new Case(broken, path, rule, fixed));
    }

    /** A spec schema using an unsupported JSON-Schema keyword; fixed by leaving the keyword out. */
    private static Arguments unsupported(String keyword, String specSchema) {
        return rule("no " + keyword, crdWithSpec(specSchema), SPEC + "." + keyword, STRUCTURAL,
                crdWithSpec(specSchema.startsWith("{type: array") ? "{type: array, items: {type: string}}" : "{type: object}"));
    }

    private static void assertOnlyViolation(JsonNode object, String path, String rule) {
        assertOnlyViolation(ApiServerRules.violations(object), path, rule);
    }

    private static void assertOnlyViolation(List<String> violations, String path, String rule) {
        assertEquals(1, violations.size(), () -> "expected one violation at " + path + ", got " + violations);
        String violation = violations.get(0);
        assertTrue(violation.contains(": " + path + ": ") && violation.endsWith(" (" + rule + ")"),
                () -> "expected the violation at " + path + " of rule " + rule + ", got " + violation);
    }

    private static JsonNode only(String yaml) {
        List<JsonNode> documents = ApiServerRules.readAll(yaml);
        assertEquals(1, documents.size(), yaml);
        return documents.get(0);
    }

    private static Path upstreamCrd(String file) {
        URL resource = ApiServerRulesTest.class.getResource("/crds/" + file);
        assertTrue(resource != null, "no test resource /crds/" + file);
        try {
            return Path.of(resource.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A ConfigMap with the given metadata, a YAML flow mapping. */
    private static String configMap(String metadata) {
        return "apiVersion: v1\nkind: ConfigMap\nmetadata: " + metadata + "\ndata: {a: b}\n";
    }

    /** A custom resource of kind Widget with the given spec, a YAML flow mapping. */
    private static String widget(String name, String spec) {
        return "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: " + name + "}\nspec: " + spec + "\n";
    }

    /** A Widget CRD in {@code group} with these annotations, root schema and printer columns (YAML flow values). */
    private static String crd(String group, String annotations, String rootSchema, String columns) {
        return """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata:
                  name: widgets.%1$s
                  annotations: %2$s
                spec:
                  group: %1$s
                  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
                  scope: Namespaced
                  versions:
                    - name: v1
                      served: true
                      storage: true
                      schema:
                        openAPIV3Schema: %3$s
                      additionalPrinterColumns: %4$s
                """.formatted(group, annotations, rootSchema, columns);
    }

    private static String crdWithRoot(String rootSchema) {
        return crd("example.com", "{}", rootSchema, "[]");
    }

    private static String crdWithSpec(String specSchema) {
        return crdWithRoot("{type: object, properties: {spec: " + specSchema + "}}");
    }

    /** A Widget CRD whose spec declares replicas, with this status schema and these printer columns. */
    private static String crdWithColumns(String statusSchema, String columns) {
        return crd("example.com", "{}", "{type: object, properties: {spec: {type: object,"
                + " properties: {replicas: {type: integer}}}, status: " + statusSchema + "}}", columns);
    }

    /** A Widget CRD with these versions, a YAML flow sequence. */
    private static String crdWithVersions(String versions) {
        return """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: widgets.example.com}
                spec:
                  group: example.com
                  names: {kind: Widget, plural: widgets}
                  scope: Namespaced
                  versions: %s
                """.formatted(versions);
    }
}
