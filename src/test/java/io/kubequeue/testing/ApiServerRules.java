package io.kubequeue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * Holds Kubernetes objects, as read from YAML, to rules that a real kube-apiserver enforces on create but the fabric8
 * mock server does not, so that a test can catch a manifest a cluster would reject.
 *
 * <p>Objects are Jackson trees ({@link #readAll}). A violation is one line,
 * {@code <Kind>/<name>: <field path>: <what is wrong> (<rule>)}, with the field path written the way the API server
 * writes it, e.g. {@code spec.versions[0].schema.openAPIV3Schema.properties[spec].type}. Rules named
 * {@value #OURS} are kube-queue's own and stricter than the server; every other rule mirrors the Kubernetes source
 * cited where it is checked: apimachinery {@code pkg/api/validation/objectmeta.go} and
 * {@code pkg/util/validation/validation.go}, apiextensions-apiserver
 * {@code pkg/apis/apiextensions/validation/validation.go}, {@code pkg/apiserver/schema/validation.go} (structural
 * schemas, see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema)
 * and {@code pkg/apihelpers/helpers.go}; kube-aggregator {@code pkg/apis/apiregistration/validation/validation.go}
 * (APIService); kubernetes {@code pkg/apis/admissionregistration/validation/validation.go} (webhook configurations)
 * and apimachinery {@code pkg/apis/meta/v1/validation/validation.go} (their label selectors).
 *
 * <p>Not covered: the kind-specific validation of built-in kinds (Pod, Deployment, ...), validation of custom
 * resources against their CRD's schema, CEL rules, defaults, regular expression syntax, and updates.
 */
public final class ApiServerRules {

    /** Rule name of the checks that are kube-queue's own, stricter than the API server. */
    static final String OURS = "kube-queue rule";

    private static final String OBJECT_META = "ObjectMeta";
    private static final String STRUCTURAL = "structural schema";
    private static final String CRD_NAMES = "CRD names";
    private static final String CRD_VERSIONS = "CRD versions";
    private static final String PRINTER_COLUMN = "printer column";
    private static final String API_SERVICE = "APIService";
    private static final String WEBHOOK = "admission webhook";
    private static final String LABEL_SELECTOR = "label selector";

    private static final String LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";
    private static final String API_APPROVED_ANNOTATION = "api-approved.kubernetes.io";
    /** apimachinery {@code TotalAnnotationSizeLimitB}: the keys plus values of all annotations, in bytes. */
    private static final int TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
    /** etcd's default {@code --max-request-bytes}: the API server cannot store a larger object. */
    private static final int MAX_OBJECT_BYTES = 1536 * 1024;

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final ObjectMapper JSON = new ObjectMapper();

    // apimachinery pkg/util/validation/validation.go
    private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String QUALIFIED_NAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    private static final NameFormat DNS1123_SUBDOMAIN = new NameFormat("DNS-1123 subdomain", 253,
            DNS_LABEL + "(\\." + DNS_LABEL + ")*", "lowercase alphanumerics, '-' or '.', starting and ending alphanumeric");
    private static final NameFormat DNS1123_LABEL = new NameFormat("DNS-1123 label", 63, DNS_LABEL,
            "lowercase alphanumerics or '-', starting and ending alphanumeric");
    private static final NameFormat DNS1035_LABEL = new NameFormat("DNS-1035 label", 63, "[a-z]([-a-z0-9]*[a-z0-9])?",
            "lowercase alphanumerics or '-', starting with a letter and ending alphanumeric");
    private static final NameFormat QUALIFIED_NAME_PART = new NameFormat("qualified name", 63, QUALIFIED_NAME,
            "alphanumerics, '-', '_' or '.', starting and ending alphanumeric");
    private static final NameFormat LABEL_VALUE = new NameFormat("label value", 63, QUALIFIED_NAME,
            "alphanumerics, '-', '_' or '.', starting and ending alphanumeric");
    // apimachinery pkg/api/validation/path IsValidPathSegmentName, which RBAC names need to be
    private static final NameFormat PATH_SEGMENT = new NameFormat("path segment name", Integer.MAX_VALUE,
            "(?!\\.\\.?$)[^/%]+", "characters other than '/' or '%', and not be '.' or '..'");

    private static final List<String> SCHEMA_TYPES = List.of("object", "array", "string", "integer", "number", "boolean");
    private static final List<String> UNSUPPORTED_KEYWORDS = List.of(
            "$ref", "$schema", "definitions", "dependencies", "id", "patternProperties", "additionalItems");
    private static final Set<String> FORBIDDEN_IN_JUNCTORS = Set.of(
            "description", "type", "default", "additionalProperties", "nullable", "title", "externalDocs");
    private static final List<String> LIST_TYPES = List.of("atomic", "set", "map");
    private static final JsonNode INT_OR_STRING_ANY_OF = JSON.createArrayNode()
            .add(JSON.createObjectNode().put("type", "integer"))
            .add(JSON.createObjectNode().put("type", "string"));
    private static final List<String> COLUMN_TYPES = List.of("integer", "number", "string", "boolean", "date");
    private static final List<String> COLUMN_FORMATS = List.of(
            "int32", "int64", "float", "double", "byte", "date", "date-time", "password");
    private static final Set<String> OBJECT_META_FIELDS = Set.of("name", "generateName", "namespace", "selfLink", "uid",
            "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
            "labels", "annotations", "ownerReferences", "finalizers", "managedFields");

    private ApiServerRules() {
    }

    /** Every non-empty document of a (multi-document) YAML file, in file order. */
    public static List<JsonNode> readAll(Path yamlFile) {
        try {
            return readAll(Files.readString(yamlFile));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every non-empty document of a (multi-document) YAML text, in order; empty and comment-only ones are skipped. */
    public static List<JsonNode> readAll(String yaml) {
        List<JsonNode> documents = new ArrayList<>();
        try (MappingIterator<JsonNode> values = YAML.readerFor(JsonNode.class).readValues(yaml)) {
            while (values.hasNextValue()) {
                JsonNode document = values.nextValue();
                if (document != null && !document.isNull() && !document.isMissingNode()) {
                    documents.add(document);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return documents;
    }

    /**
     * Every rule this object breaks as the API server would see it on create ({@code kubectl create}, server-side
     * apply or a client's POST), one line per violation (see the class comment); empty if it would be accepted as
     * far as these rules go.
     */
    public static List<String> violations(JsonNode object) {
        requireObject(object);
        Report report = new Report(subject(object));
        checkMetadata(object, report);
        // etcd rejects a larger write. Custom resources are stored as JSON; built-in kinds as protobuf, which is
        // usually smaller, so for those this errs on the safe side.
        int bytes = compactJson(object).getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_OBJECT_BYTES) {
            report.add("(root)", "is " + bytes + " bytes as compact JSON, more than " + MAX_OBJECT_BYTES,
                    "etcd max request bytes");
        }
        if (object.has("status")) {
            // for a kind with a status subresource the API server drops status on create; only /status writes it
            report.add("status", "must not be shipped: it is written through the status subresource only",
                    "status subresource");
        }
        if ("apiextensions.k8s.io/v1".equals(object.path("apiVersion").asText())
                && "CustomResourceDefinition".equals(object.path("kind").asText())) {
            checkCrd(object, report);
        }
        if ("apiregistration.k8s.io/v1".equals(object.path("apiVersion").asText())
                && "APIService".equals(object.path("kind").asText())) {
            checkApiService(object, report);
        }
        if ("admissionregistration.k8s.io/v1".equals(object.path("apiVersion").asText())
                && ("MutatingWebhookConfiguration".equals(object.path("kind").asText())
                || "ValidatingWebhookConfiguration".equals(object.path("kind").asText()))) {
            checkWebhookConfiguration(object, report);
        }
        return List.copyOf(report.lines);
    }

    /**
     * The same as {@link #violations}, for an object created with client-side {@code kubectl apply}: kubectl also
     * stores the whole object, as compact JSON (without this annotation) and a newline, in the annotation
     * {@code kubectl.kubernetes.io/last-applied-configuration}, which then counts toward the annotation size limit
     * (262144 bytes) and the object's size. This is why large CRDs need {@code kubectl apply --server-side}.
     */
    public static List<String> violationsWhenApplied(JsonNode object) {
        requireObject(object);
        ObjectNode applied = object.deepCopy();
        ObjectNode metadata = applied.get("metadata") instanceof ObjectNode m ? m : applied.putObject("metadata");
        ObjectNode annotations = metadata.get("annotations") instanceof ObjectNode a ? a : JSON.createObjectNode();
        annotations.remove(LAST_APPLIED_ANNOTATION);
        if (annotations.isEmpty()) {
            metadata.remove("annotations"); // kubectl drops a map it emptied before encoding the object
        }
        // kubectl encodes with Go's encoding/json, which escapes <, > and & (and U+2028, U+2029) in strings
        String lastApplied = compactJson(applied).replace("<", "\\u003c").replace(">", "\\u003e")
                .replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n";
        annotations.put(LAST_APPLIED_ANNOTATION, lastApplied);
        metadata.set("annotations", annotations);
        return violations(applied);
    }

    // apimachinery pkg/api/validation/objectmeta.go ValidateObjectMeta, ValidateLabels, ValidateAnnotations
    private static void checkMetadata(JsonNode object, Report report) {
        JsonNode metadata = object.path("metadata");
        String name = metadata.path("name").asText();
        if (name.isEmpty()) {
            if (metadata.path("generateName").asText().isEmpty()) {
                report.add("metadata.name", "must be set when metadata.generateName is not", OBJECT_META);
            }
        } else {
            report.check("metadata.name", name, nameFormat(object));
        }
        String namespace = metadata.path("namespace").asText();
        if (!namespace.isEmpty()) {
            report.check("metadata.namespace", namespace, DNS1123_LABEL);
        }
        for (Map.Entry<String, JsonNode> label : metadata.path("labels").properties()) {
            String path = "metadata.labels[" + label.getKey() + "]";
            report.addIfProblem(path, qualifiedNameProblem(label.getKey()), QUALIFIED_NAME_PART.rule());
            if (!label.getValue().isTextual()) {
                report.add(path, "must be a string, not " + label.getValue(), OBJECT_META);
            } else if (!label.getValue().asText().isEmpty()) {
                report.check(path, label.getValue().asText(), LABEL_VALUE);
            }
        }
        long annotationBytes = 0;
        for (Map.Entry<String, JsonNode> annotation : metadata.path("annotations").properties()) {
            String path = "metadata.annotations[" + annotation.getKey() + "]";
            // the server checks annotation keys lower-cased, so an upper-case prefix is allowed there
            report.addIfProblem(path, qualifiedNameProblem(annotation.getKey().toLowerCase(Locale.ROOT)),
                    QUALIFIED_NAME_PART.rule());
            if (!annotation.getValue().isTextual()) {
                report.add(path, "must be a string, not " + annotation.getValue(), OBJECT_META);
            }
            annotationBytes += utf8Length(annotation.getKey()) + utf8Length(annotation.getValue().asText());
        }
        if (annotationBytes > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
            report.add("metadata.annotations", "keys and values total " + annotationBytes + " bytes, more than "
                    + TOTAL_ANNOTATION_SIZE_LIMIT_BYTES, "TotalAnnotationSizeLimitB");
        }
    }

    /** The format the API server requires of {@code metadata.name} for this object's kind. */
    private static NameFormat nameFormat(JsonNode object) {
        String apiVersion = object.path("apiVersion").asText();
        String kind = object.path("kind").asText();
        if (apiVersion.equals("v1") && kind.equals("Namespace")) {
            return DNS1123_LABEL; // core ValidateNamespaceName
        }
        if (apiVersion.equals("v1") && kind.equals("Service")) {
            return DNS1035_LABEL; // core ValidateServiceName
        }
        if (apiVersion.startsWith("rbac.authorization.k8s.io/")) {
            return PATH_SEGMENT; // rbac ValidateRBACName, so that names like system:controller:x are valid
        }
        if (apiVersion.startsWith("apiregistration.k8s.io/")) {
            return PATH_SEGMENT; // ValidateAPIService: a path segment, and then version.group (checkApiService)
        }
        return DNS1123_SUBDOMAIN; // NameIsDNSSubdomain: most built-in kinds and every custom resource
    }

    /** What is wrong with a label or annotation key, [DNS-1123 subdomain "/"] name (IsQualifiedName), or null. */
    private static String qualifiedNameProblem(String key) {
        String[] parts = key.split("/", -1);
        if (parts.length > 2) {
            return "key must contain at most one '/'";
        }
        if (parts.length == 2) {
            String prefixProblem = parts[0].isEmpty() ? "must not be empty" : DNS1123_SUBDOMAIN.problem(parts[0]);
            if (prefixProblem != null) {
                return "key prefix " + prefixProblem;
            }
        }
        String name = parts[parts.length - 1];
        String nameProblem = name.isEmpty() ? "must not be empty" : QUALIFIED_NAME_PART.problem(name);
        return nameProblem == null ? null : "key name " + nameProblem;
    }

    // kube-aggregator validation.go ValidateAPIService, and ValidateWebhookService for its service
    private static void checkApiService(JsonNode apiService, Report report) {
        JsonNode spec = apiService.path("spec");
        String group = spec.path("group").asText();
        String version = spec.path("version").asText();
        String name = apiService.path("metadata").path("name").asText();
        if (!name.isEmpty() && !name.equals(version + "." + group)) {
            report.add("metadata.name", "\"" + name + "\" must be spec.version+\".\"+spec.group: \"" + version + "."
                    + group + "\"", API_SERVICE);
        }
        if (group.isEmpty()) {
            if (!version.equals("v1")) {
                report.add("spec.group", "only v1 may have an empty group", API_SERVICE);
            }
        } else {
            report.check("spec.group", group, DNS1123_SUBDOMAIN);
        }
        report.check("spec.version", version, DNS1035_LABEL);
        long groupPriority = spec.path("groupPriorityMinimum").asLong(0);
        if (groupPriority <= 0 || groupPriority > 20000) {
            report.add("spec.groupPriorityMinimum", groupPriority + " must be positive and at most 20000", API_SERVICE);
        }
        long versionPriority = spec.path("versionPriority").asLong(0);
        if (versionPriority <= 0 || versionPriority > 1000) {
            report.add("spec.versionPriority", versionPriority + " must be positive and at most 1000", API_SERVICE);
        }
        boolean caBundle = !spec.path("caBundle").asText().isEmpty();
        boolean insecure = spec.path("insecureSkipTLSVerify").asBoolean(false);
        if (!spec.hasNonNull("service")) {
            if (caBundle) {
                report.add("spec.caBundle", "may not be present with a nil service", API_SERVICE);
            }
            if (insecure) {
                report.add("spec.insecureSkipTLSVerify", "may not be true with a nil service", API_SERVICE);
            }
            return;
        }
        checkServiceReference(spec.path("service"), "spec.service", 443, report, API_SERVICE);
        if (insecure && caBundle) {
            report.add("spec.insecureSkipTLSVerify", "may not be true if caBundle is present", API_SERVICE);
        }
    }

    /** A Service a webhook or an APIService calls: name and namespace, path, port (ValidateWebhookService). */
    private static void checkServiceReference(JsonNode service, String path, int defaultPort, Report report,
                                              String rule) {
        for (String field : List.of("name", "namespace")) {
            if (service.path(field).asText().isEmpty()) {
                report.add(path + "." + field, "must be set", rule);
            }
        }
        if (service.has("path")) {
            String servicePath = service.path("path").asText();
            if (!servicePath.startsWith("/")) {
                report.add(path + ".path", "\"" + servicePath + "\" must start with '/'", rule);
            } else if (servicePath.contains("//") || servicePath.length() > 1 && servicePath.endsWith("/")) {
                report.add(path + ".path", "\"" + servicePath + "\" has an empty segment", rule);
            }
        }
        long port = service.path("port").asLong(defaultPort);
        if (port < 1 || port > 65535) {
            report.add(path + ".port", port + " must be between 1 and 65535", rule);
        }
    }

    // admissionregistration validation.go validateMutatingWebhook / validateValidatingWebhook (admissionregistration/v1)
    private static void checkWebhookConfiguration(JsonNode configuration, Report report) {
        boolean mutating = "MutatingWebhookConfiguration".equals(configuration.path("kind").asText());
        Set<String> names = new HashSet<>();
        JsonNode webhooks = configuration.path("webhooks");
        for (int i = 0; i < webhooks.size(); i++) {
            JsonNode hook = webhooks.get(i);
            String path = "webhooks[" + i + "]";
            String name = hook.path("name").asText();
            if (name.isEmpty()) {
                report.add(path + ".name", "must be set", WEBHOOK);
            } else if (report.check(path + ".name", name, DNS1123_SUBDOMAIN) && name.split("\\.").length < 3) {
                report.add(path + ".name", "\"" + name + "\" should be a domain with at least three segments separated"
                        + " by dots", WEBHOOK);
            }
            if (!name.isEmpty() && !names.add(name)) {
                report.add(path + ".name", "\"" + name + "\" is the name of an earlier webhook too", WEBHOOK);
            }
            List<String> versions = texts(hook.path("admissionReviewVersions"));
            if (versions.isEmpty()) {
                report.add(path + ".admissionReviewVersions", "must be set", WEBHOOK);
            } else if (!versions.contains("v1") && !versions.contains("v1beta1")) {
                report.add(path + ".admissionReviewVersions", versions + " must include one of [v1, v1beta1]", WEBHOOK);
            }
            if (new HashSet<>(versions).size() < versions.size()) {
                report.add(path + ".admissionReviewVersions", versions + " names a version twice", WEBHOOK);
            }
            checkOneOf(hook, path, "sideEffects", List.of("None", "NoneOnDryRun"), true, report);
            checkOneOf(hook, path, "failurePolicy", List.of("Ignore", "Fail"), false, report);
            checkOneOf(hook, path, "matchPolicy", List.of("Exact", "Equivalent"), false, report);
            if (mutating) {
                checkOneOf(hook, path, "reinvocationPolicy", List.of("Never", "IfNeeded"), false, report);
            }
            if (hook.has("timeoutSeconds")) {
                long timeout = hook.path("timeoutSeconds").asLong(0);
                if (timeout < 1 || timeout > 30) {
                    report.add(path + ".timeoutSeconds", timeout + ": the timeout value must be between 1 and 30"
                            + " seconds", WEBHOOK);
                }
            }
            JsonNode clientConfig = hook.path("clientConfig");
            boolean url = clientConfig.hasNonNull("url");
            boolean service = clientConfig.hasNonNull("service");
            if (url == service) {
                report.add(path + ".clientConfig", "exactly one of url or service is required", WEBHOOK);
            } else if (service) {
                checkServiceReference(clientConfig.path("service"), path + ".clientConfig.service", 443, report,
                        WEBHOOK);
            }
            JsonNode rules = hook.path("rules");
            for (int r = 0; r < rules.size(); r++) {
                checkWebhookRule(rules.get(r), path + ".rules[" + r + "]", report);
            }
            for (String selector : List.of("namespaceSelector", "objectSelector")) {
                if (hook.has(selector)) {
                    checkLabelSelector(hook.path(selector), path + "." + selector, report);
                }
            }
        }
    }

    private static void checkOneOf(JsonNode hook, String path, String field, List<String> values, boolean required,
                                   Report report) {
        if (!hook.has(field)) {
            if (required) {
                report.add(path + "." + field, "must be set, one of " + values, WEBHOOK);
            }
        } else if (!values.contains(hook.path(field).asText())) {
            report.add(path + "." + field, "\"" + hook.path(field).asText() + "\" must be one of " + values, WEBHOOK);
        }
    }

    // validateRuleWithOperations and validateRule
    private static void checkWebhookRule(JsonNode rule, String path, Report report) {
        List<String> operations = texts(rule.path("operations"));
        if (operations.isEmpty()) {
            report.add(path + ".operations", "must be set", WEBHOOK);
        } else if (operations.contains("*") && operations.size() > 1) {
            report.add(path + ".operations", "if '*' is present, must not name other operations", WEBHOOK);
        }
        for (String operation : operations) {
            if (!List.of("*", "CREATE", "UPDATE", "DELETE", "CONNECT").contains(operation)) {
                report.add(path + ".operations", "\"" + operation + "\" must be one of [*, CREATE, UPDATE, DELETE,"
                        + " CONNECT]", WEBHOOK);
            }
        }
        for (String field : List.of("apiGroups", "apiVersions", "resources")) {
            List<String> values = texts(rule.path(field));
            if (values.isEmpty()) {
                report.add(path + "." + field, "must be set", WEBHOOK);
            } else if (values.contains("*") && values.size() > 1) {
                report.add(path + "." + field, "if '*' is present, must have length 1", WEBHOOK);
            }
        }
        if (rule.has("scope") && !List.of("*", "Cluster", "Namespaced").contains(rule.path("scope").asText())) {
            report.add(path + ".scope", "\"" + rule.path("scope").asText() + "\" must be one of [*, Cluster,"
                    + " Namespaced]", WEBHOOK);
        }
    }

    // apimachinery meta/v1 validation.go ValidateLabelSelector
    private static void checkLabelSelector(JsonNode selector, String path, Report report) {
        for (Map.Entry<String, JsonNode> label : selector.path("matchLabels").properties()) {
            String labelPath = path + ".matchLabels[" + label.getKey() + "]";
            report.addIfProblem(labelPath, qualifiedNameProblem(label.getKey()), QUALIFIED_NAME_PART.rule());
            if (!label.getValue().asText().isEmpty()) {
                report.check(labelPath, label.getValue().asText(), LABEL_VALUE);
            }
        }
        JsonNode expressions = selector.path("matchExpressions");
        for (int i = 0; i < expressions.size(); i++) {
            JsonNode expression = expressions.get(i);
            String expressionPath = path + ".matchExpressions[" + i + "]";
            report.addIfProblem(expressionPath + ".key", qualifiedNameProblem(expression.path("key").asText()),
                    QUALIFIED_NAME_PART.rule());
            String operator = expression.path("operator").asText();
            List<String> values = texts(expression.path("values"));
            switch (operator) {
                case "In", "NotIn" -> {
                    if (values.isEmpty()) {
                        report.add(expressionPath + ".values", "must be specified when operator is " + operator,
                                LABEL_SELECTOR);
                    }
                }
                case "Exists", "DoesNotExist" -> {
                    if (!values.isEmpty()) {
                        report.add(expressionPath + ".values", "may not be specified when operator is " + operator,
                                LABEL_SELECTOR);
                    }
                }
                default -> report.add(expressionPath + ".operator", "\"" + operator + "\" is not a valid selector"
                        + " operator", LABEL_SELECTOR);
            }
            for (String value : values) {
                report.check(expressionPath + ".values", value, LABEL_VALUE);
            }
        }
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(value -> texts.add(value.asText()));
        return texts;
    }

    // apiextensions-apiserver validation.go ValidateCustomResourceDefinition and validateAPIApproval
    private static void checkCrd(JsonNode crd, Report report) {
        JsonNode spec = crd.path("spec");
        JsonNode names = spec.path("names");
        String group = spec.path("group").asText();
        String plural = names.path("plural").asText();

        if (group.isEmpty()) {
            report.add("spec.group", "must be set", CRD_NAMES);
        } else if (report.check("spec.group", group, DNS1123_SUBDOMAIN) && !group.contains(".")) {
            report.add("spec.group", "must be a domain with at least one dot", CRD_NAMES);
        }
        String expectedName = plural + "." + group;
        String name = crd.path("metadata").path("name").asText();
        if (!name.equals(expectedName)) {
            report.add("metadata.name", "\"" + name + "\" must be spec.names.plural + \".\" + spec.group, \""
                    + expectedName + "\"", CRD_NAMES);
        }
        // the server checks plural and singular as DNS-1035 labels (IsDNS1035Label); singular defaults to kind
        if (plural.isEmpty()) {
            report.add("spec.names.plural", "must be set", CRD_NAMES);
        } else {
            report.check("spec.names.plural", plural, DNS1035_LABEL);
        }
        if (!names.path("singular").asText().isEmpty()) {
            report.check("spec.names.singular", names.path("singular").asText(), DNS1035_LABEL);
        }
        if (names.path("kind").asText().isEmpty()) {
            report.add("spec.names.kind", "must be set", CRD_NAMES);
        }
        String scope = spec.path("scope").asText();
        if (!scope.equals("Namespaced") && !scope.equals("Cluster")) {
            report.add("spec.scope", "\"" + scope + "\" must be Namespaced or Cluster", CRD_NAMES);
        }
        if (isProtectedGroup(group)) {
            checkApiApproval(crd.path("metadata").path("annotations").path(API_APPROVED_ANNOTATION).asText(), group,
                    report);
        }
        checkVersions(spec.path("versions"), report);
    }

    /** apihelpers IsProtectedCommunityGroup: the groups owned by the Kubernetes project. */
    private static boolean isProtectedGroup(String group) {
        return group.equals("k8s.io") || group.endsWith(".k8s.io")
                || group.equals("kubernetes.io") || group.endsWith(".kubernetes.io");
    }

    /** apihelpers GetAPIApprovalState: the value must start with "unapproved" or be a URL with scheme and host. */
    private static void checkApiApproval(String approval, String group, Report report) {
        String path = "metadata.annotations[" + API_APPROVED_ANNOTATION + "]";
        if (approval.isEmpty()) {
            report.add(path, "must be set for a CRD in the protected group " + group, "API approval");
        } else if (!approval.startsWith("unapproved") && !isUrlWithSchemeAndHost(approval)) {
            report.add(path, "\"" + approval + "\" must be a URL with scheme and host, or a reason starting with"
                    + " \"unapproved\"", "API approval");
        }
    }

    private static boolean isUrlWithSchemeAndHost(String value) {
        try {
            URI uri = new URI(value);
            return uri.getScheme() != null && uri.getRawAuthority() != null && !uri.getRawAuthority().isEmpty();
        } catch (URISyntaxException e) {
            return false;
        }
    }

    private static void checkVersions(JsonNode versions, Report report) {
        if (!versions.isArray() || versions.isEmpty()) {
            report.add("spec.versions", "must list at least one version", CRD_VERSIONS);
            return;
        }
        Set<String> versionNames = new HashSet<>();
        int storageVersions = 0;
        for (int i = 0; i < versions.size(); i++) {
            JsonNode version = versions.get(i);
            String path = "spec.versions[" + i + "]";
            String name = version.path("name").asText();
            if (report.check(path + ".name", name, DNS1035_LABEL) && !versionNames.add(name)) {
                report.add(path + ".name", "\"" + name + "\" names an earlier version too", CRD_VERSIONS);
            }
            if (version.path("storage").asBoolean(false)) {
                storageVersions++;
            }
            JsonNode schema = version.path("schema").path("openAPIV3Schema");
            if (schema.isMissingNode()) {
                report.add(path + ".schema.openAPIV3Schema", "must be set in apiextensions.k8s.io/v1", CRD_VERSIONS);
            } else {
                checkSchema(schema, path + ".schema.openAPIV3Schema", Level.ROOT, report);
            }
            checkPrinterColumns(version.path("additionalPrinterColumns"), schema, path, report);
        }
        if (storageVersions != 1) {
            report.add("spec.versions", "must have exactly one version with storage: true, not " + storageVersions,
                    CRD_VERSIONS);
        }
    }

    /** Where a schema node sits, which decides what the structural rules require of it. */
    private enum Level {
        ROOT("at the root"), ITEMS("for array items"), FIELD("for object fields");

        private final String where;

        Level(String where) {
            this.where = where;
        }
    }

    /**
     * A structural schema node: apiextensions-apiserver schema/validation.go validateStructuralInvariants, plus the
     * OpenAPI restrictions of validation.go ValidateCustomResourceDefinitionOpenAPISchema.
     */
    private static void checkSchema(JsonNode schema, String path, Level level, Report report) {
        if (!schema.isObject()) {
            report.add(path, "must be a schema object, not " + schema, STRUCTURAL);
            return;
        }
        checkUnsupportedKeywords(schema, path, report);
        checkType(schema, path, level, report);
        String type = schema.path("type").asText();
        boolean preservesUnknownFields = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        boolean embeddedResource = schema.path("x-kubernetes-embedded-resource").asBoolean(false);
        if (schema.has("x-kubernetes-preserve-unknown-fields") && !preservesUnknownFields) {
            report.add(path + ".x-kubernetes-preserve-unknown-fields", "must be true or undefined", STRUCTURAL);
        }
        if (schema.path("uniqueItems").asBoolean(false)) {
            report.add(path + ".uniqueItems", "must not be true (its check is quadratic)", STRUCTURAL);
        }

        JsonNode items = schema.get("items");
        if (type.equals("array") && items == null) {
            report.add(path + ".items", "must be specified for type array", STRUCTURAL);
        }
        if (items != null && items.isArray()) {
            report.add(path + ".items", "must be a schema object and not an array", STRUCTURAL);
        } else if (items != null) {
            checkSchema(items, path + ".items", Level.ITEMS, report);
        }
        JsonNode properties = schema.path("properties");
        for (Map.Entry<String, JsonNode> property : properties.properties()) {
            checkSchema(property.getValue(), path + ".properties[" + property.getKey() + "]", Level.FIELD, report);
        }
        JsonNode additionalProperties = schema.get("additionalProperties");
        if (additionalProperties != null) {
            String additionalPath = path + ".additionalProperties";
            boolean isFalse = additionalProperties.isBoolean() && !additionalProperties.booleanValue();
            if (level == Level.ROOT) {
                report.add(additionalPath, "must not be used at the root", STRUCTURAL);
            }
            if (!properties.isEmpty() && (isFalse || additionalProperties.isObject())) {
                report.add(additionalPath, "must not be used together with properties", STRUCTURAL);
            } else if (isFalse) {
                // the server accepts it on its own, but pruning then drops every field silently
                report.add(additionalPath, "must not be false", OURS);
            }
            if (additionalProperties.isObject()) {
                checkSchema(additionalProperties, additionalPath, Level.FIELD, report);
            }
        }
        if (embeddedResource && !preservesUnknownFields && properties.isEmpty()) {
            report.add(path + ".properties", "must not be empty if x-kubernetes-embedded-resource is true without"
                    + " x-kubernetes-preserve-unknown-fields", STRUCTURAL);
        }
        checkListType(schema, type, items, path, report);
        if (level == Level.ROOT && properties.has("metadata")) {
            checkRootMetadata(properties.get("metadata"), path + ".properties[metadata]", report);
        }
        checkJunctors(schema, schema, path, path, INT_OR_STRING_ANY_OF.equals(schema.get("anyOf")),
                INT_OR_STRING_ANY_OF.equals(schema.path("allOf").path(0).get("anyOf")), report);
    }

    /** A type is required, but for int-or-string and preserved nodes; at the root and for embedded objects, object. */
    private static void checkType(JsonNode schema, String path, Level level, Report report) {
        JsonNode typeNode = schema.get("type");
        String type = typeNode == null ? "" : typeNode.asText();
        boolean intOrString = schema.path("x-kubernetes-int-or-string").asBoolean(false);
        if (schema.path("x-kubernetes-embedded-resource").asBoolean(false) && !type.equals("object")) {
            report.add(path + ".type", "must be object if x-kubernetes-embedded-resource is true", STRUCTURAL);
        } else if (typeNode == null && !intOrString
                && !schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
            report.add(path + ".type", "must not be empty " + level.where, STRUCTURAL);
        }
        if (typeNode != null && !(typeNode.isTextual() && SCHEMA_TYPES.contains(type))) {
            report.add(path + ".type", typeNode + " must be one of " + SCHEMA_TYPES, STRUCTURAL);
        }
        if (level == Level.ROOT && typeNode != null && !type.equals("object")) {
            report.add(path + ".type", "must be object at the root", STRUCTURAL);
        }
        if (intOrString && typeNode != null) {
            // the server accepts this, but a type admits only one of the two kinds of value
            report.add(path + ".type", "must be empty if x-kubernetes-int-or-string is true", OURS);
        }
    }

    private static void checkUnsupportedKeywords(JsonNode schema, String path, Report report) {
        for (String keyword : UNSUPPORTED_KEYWORDS) {
            if (schema.has(keyword)) {
                report.add(path + "." + keyword, "is not supported", STRUCTURAL);
            }
        }
    }

    private static void checkListType(JsonNode schema, String type, JsonNode items, String path, Report report) {
        JsonNode listType = schema.get("x-kubernetes-list-type");
        if (listType == null) {
            return;
        }
        if (!LIST_TYPES.contains(listType.asText())) {
            report.add(path + ".x-kubernetes-list-type", listType + " must be one of " + LIST_TYPES, STRUCTURAL);
        }
        if (!type.equals("array")) {
            report.add(path + ".type", "must be array if x-kubernetes-list-type is set", STRUCTURAL);
        }
        if (listType.asText().equals("map")) {
            if (schema.path("x-kubernetes-list-map-keys").isEmpty()) {
                report.add(path + ".x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map",
                        STRUCTURAL);
            }
            if (items == null || !items.path("type").asText().equals("object")) {
                report.add(path + ".items.type", "must be object if x-kubernetes-list-type is map", STRUCTURAL);
            }
        }
    }

    /** At the root, metadata is implicitly ObjectMeta: a schema may only say it is an object and restrict names. */
    private static void checkRootMetadata(JsonNode metadata, String path, Report report) {
        if (!metadata.path("type").asText().equals("object")) {
            report.add(path + ".type", "must be object", STRUCTURAL);
        }
        for (String keyword : iterable(metadata.fieldNames())) {
            if (!keyword.equals("type") && !keyword.equals("properties")) {
                report.add(path + "." + keyword, "must not be set: metadata is implicitly specified", STRUCTURAL);
            }
        }
        for (String field : iterable(metadata.path("properties").fieldNames())) {
            if (!field.equals("name") && !field.equals("generateName")) {
                report.add(path + ".properties[" + field + "]", "must not be specified: only name and generateName"
                        + " may be restricted", STRUCTURAL);
            }
        }
    }

    /**
     * The allOf/anyOf/oneOf/not clauses of {@code node} (at {@code path}), which constrain the value the structural
     * node {@code structural} (at {@code structuralPath}, null below a field it lacks) describes. The int-or-string
     * pattern {@code anyOf: [{type: integer}, {type: string}]}, directly or as the first allOf clause, may name types.
     */
    private static void checkJunctors(JsonNode node, JsonNode structural, String path, String structuralPath,
            boolean intOrStringAnyOf, boolean intOrStringFirstAllOf, Report report) {
        for (String junctor : List.of("allOf", "anyOf", "oneOf")) {
            JsonNode clauses = node.path(junctor);
            if (!clauses.isArray() || (junctor.equals("anyOf") && intOrStringAnyOf)) {
                continue;
            }
            for (int i = 0; i < clauses.size(); i++) {
                boolean clauseIsIntOrString = junctor.equals("allOf") && i == 0 && intOrStringFirstAllOf;
                checkClause(clauses.get(i), structural, path + "." + junctor + "[" + i + "]", structuralPath,
                        clauseIsIntOrString, report);
            }
        }
        if (node.has("not")) {
            checkClause(node.get("not"), structural, path + ".not", structuralPath, false, report);
        }
    }

    /**
     * A clause may only add value validation to what the structural node declares: schema/validation.go
     * validateNestedValueValidation, and complete.go for "every field a clause names is declared outside". The
     * server checks the latter for the root's clauses only; the documented rule holds for every node, and so here.
     */
    private static void checkClause(JsonNode clause, JsonNode structural, String path, String structuralPath,
            boolean intOrStringAnyOf, Report report) {
        if (!clause.isObject()) {
            report.add(path, "must be a schema object, not " + clause, STRUCTURAL);
            return;
        }
        checkUnsupportedKeywords(clause, path, report);
        for (String keyword : iterable(clause.fieldNames())) {
            if (FORBIDDEN_IN_JUNCTORS.contains(keyword) || keyword.startsWith("x-kubernetes-")) {
                report.add(path + "." + keyword, "must not be set inside allOf, anyOf, oneOf or not", STRUCTURAL);
            }
        }
        for (Map.Entry<String, JsonNode> property : clause.path("properties").properties()) {
            String propertyPath = path + ".properties[" + property.getKey() + "]";
            String structuralPropertyPath = structuralPath + ".properties[" + property.getKey() + "]";
            JsonNode declared = structural == null ? null : structural.path("properties").get(property.getKey());
            if (property.getKey().equals("metadata")) {
                report.add(propertyPath, "must not be specified inside allOf, anyOf, oneOf or not", STRUCTURAL);
            } else if (structural != null && declared == null) {
                report.add(structuralPropertyPath, "must be specified because " + propertyPath + " names it",
                        STRUCTURAL);
            }
            checkClause(property.getValue(), declared, propertyPath, structuralPropertyPath, false, report);
        }
        JsonNode items = clause.get("items");
        if (items != null) {
            JsonNode declared = structural == null ? null : structural.get("items");
            if (structural != null && declared == null) {
                report.add(structuralPath + ".items", "must be specified because " + path + ".items names it",
                        STRUCTURAL);
            }
            checkClause(items, declared, path + ".items", structuralPath + ".items", false, report);
        }
        checkJunctors(clause, structural, path, structuralPath, intOrStringAnyOf, false, report);
    }

    /** validation.go ValidateCustomResourceColumnDefinition, and that the column's path names a declared field. */
    private static void checkPrinterColumns(JsonNode columns, JsonNode schema, String versionPath, Report report) {
        Set<String> columnNames = new HashSet<>();
        for (int i = 0; i < columns.size(); i++) {
            JsonNode column = columns.get(i);
            String path = versionPath + ".additionalPrinterColumns[" + i + "]";
            String name = column.path("name").asText();
            if (name.isEmpty()) {
                report.add(path + ".name", "must be set", PRINTER_COLUMN);
            } else if (!columnNames.add(name)) {
                report.add(path + ".name", "\"" + name + "\" names an earlier column too", OURS);
            }
            String type = column.path("type").asText();
            if (!COLUMN_TYPES.contains(type)) {
                report.add(path + ".type", "\"" + type + "\" must be one of " + COLUMN_TYPES, PRINTER_COLUMN);
            }
            String format = column.path("format").asText();
            if (!format.isEmpty() && !COLUMN_FORMATS.contains(format)) {
                report.add(path + ".format", "\"" + format + "\" must be one of " + COLUMN_FORMATS, PRINTER_COLUMN);
            }
            String jsonPath = column.path("jsonPath").asText();
            if (jsonPath.isEmpty()) {
                report.add(path + ".jsonPath", "must be set", PRINTER_COLUMN);
            } else if (!jsonPath.startsWith(".")) {
                report.add(path + ".jsonPath", "\"" + jsonPath + "\" must be a simple JSON path starting with '.'",
                        PRINTER_COLUMN);
            } else if (schema.isObject()) {
                String undeclared = undeclaredSegment(schema, jsonPath);
                if (undeclared != null) {
                    report.add(path + ".jsonPath", "\"" + jsonPath + "\" names no field the schema declares (at \""
                            + undeclared + "\")", OURS);
                }
            }
        }
    }

    /** One dot-separated step of a simple JSONPath: a field name, then how many [...] (index, slice, filter) follow. */
    private record Segment(String field, int brackets) {
    }

    /**
     * The first segment of a printer column's JSONPath that the root schema does not declare, or null if every one
     * resolves: through {@code properties}, each [...] through {@code items}; anything goes below a node with
     * {@code additionalProperties} or {@code x-kubernetes-preserve-unknown-fields: true}, and below {@code metadata}
     * any ObjectMeta field.
     */
    private static String undeclaredSegment(JsonNode rootSchema, String jsonPath) {
        List<Segment> segments = segments(jsonPath);
        if (!segments.isEmpty() && segments.get(0).field().equals("metadata")) {
            return segments.size() < 2 || OBJECT_META_FIELDS.contains(segments.get(1).field())
                    ? null : segments.get(1).field();
        }
        JsonNode node = rootSchema;
        for (Segment segment : segments) {
            if (acceptsAnyField(node)) {
                return null;
            }
            if (!segment.field().isEmpty()) {
                node = node.path("properties").get(segment.field());
                if (node == null) {
                    return segment.field();
                }
            }
            for (int i = 0; i < segment.brackets(); i++) {
                if (acceptsAnyField(node)) {
                    return null;
                }
                node = node.get("items");
                if (node == null || !node.isObject()) {
                    return segment.field() + "[...]";
                }
            }
        }
        return null;
    }

    private static boolean acceptsAnyField(JsonNode schema) {
        JsonNode additionalProperties = schema.path("additionalProperties");
        return schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
                || additionalProperties.isObject() || additionalProperties.asBoolean(false);
    }

    /** Splits ".a.b[0].c\.d" into a, b with one bracket, and "c.d"; dots inside [...] do not split. */
    private static List<Segment> segments(String jsonPath) {
        List<Segment> segments = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        int brackets = 0;
        int depth = 0;
        for (int i = 1; i < jsonPath.length(); i++) {
            char c = jsonPath.charAt(i);
            if (depth > 0) {
                depth += c == '[' ? 1 : c == ']' ? -1 : 0;
            } else if (c == '\\' && i + 1 < jsonPath.length()) {
                field.append(jsonPath.charAt(++i));
            } else if (c == '[') {
                depth = 1;
                brackets++;
            } else if (c == '.') {
                segments.add(new Segment(field.toString(), brackets));
                field.setLength(0);
                brackets = 0;
            } else {
                field.append(c);
            }
        }
        if (field.length() > 0 || brackets > 0) {
            segments.add(new Segment(field.toString(), brackets));
        }
        return segments;
    }

    private static void requireObject(JsonNode object) {
        if (!object.isObject()) {
            throw new IllegalArgumentException("not a Kubernetes object but " + object.getNodeType());
        }
    }

    private static String subject(JsonNode object) {
        String kind = object.path("kind").asText();
        String name = object.path("metadata").path("name").asText();
        if (name.isEmpty()) {
            name = object.path("metadata").path("generateName").asText();
        }
        return (kind.isEmpty() ? "<no kind>" : kind) + "/" + (name.isEmpty() ? "<no name>" : name);
    }

    private static String compactJson(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree that cannot be written", e);
        }
    }

    private static int utf8Length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static <T> Iterable<T> iterable(Iterator<T> iterator) {
        return () -> iterator;
    }

    /** A name format from apimachinery's validation: its rule name, length limit, pattern and that pattern in words. */
    private record NameFormat(String rule, int maxLength, Pattern pattern, String shape) {

        NameFormat(String rule, int maxLength, String regex, String shape) {
            this(rule, maxLength, Pattern.compile(regex), shape);
        }

        /** What is wrong with {@code value}, or null if it has this format. */
        String problem(String value) {
            if (value.length() > maxLength) {
                return "\"" + value.substring(0, 20) + "...\" is " + value.length() + " characters, more than "
                        + maxLength;
            }
            return pattern.matcher(value).matches() ? null : "\"" + value + "\" must consist of " + shape;
        }
    }

    /** The violations of one object, each line prefixed with the object's Kind/name. */
    private static final class Report {
        private final String subject;
        private final List<String> lines = new ArrayList<>();

        Report(String subject) {
            this.subject = subject;
        }

        void add(String path, String problem, String rule) {
            lines.add(subject + ": " + path + ": " + problem + " (" + rule + ")");
        }

        /** Reports {@code problem} at {@code path} unless it is null; true if it is null. */
        boolean addIfProblem(String path, String problem, String rule) {
            if (problem != null) {
                add(path, problem, rule);
            }
            return problem == null;
        }

        /** Reports {@code value} at {@code path} unless it has the format; true if it has. */
        boolean check(String path, String value, NameFormat format) {
            return addIfProblem(path, format.problem(value), format.rule());
        }
    }
}
