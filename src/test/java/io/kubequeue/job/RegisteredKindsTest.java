package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.testing.Parse;

/**
 * Holds what cannot be derived from {@link JobKinds} in code to the registered kinds: the RBAC rules of both
 * manifests (the fragment Quarkus merges into the generated manifests, and the Helm chart rendered by helm), the
 * CRD generator's exclusion list, the Helm chart's {@code jobKinds} switches, and the CDI beans and reconcilers.
 * Each registered kind's group and plural get exactly {@link JobKinds#VERBS}, its status
 * {@link ShowsQueuingCondition#STATUS_VERBS} if it shows condition Queuing and nothing otherwise; and no job-kind rule
 * names a kind that is not registered (any grant that is not one of kube-queue's own needs, {@link #OTHER_NEEDS},
 * counts as a job kind's).
 */
class RegisteredKindsTest {

    private static final KubernetesClient CLIENT = Parse.client();
    private static final List<JobKind<?>> KINDS = JobKinds.all(CLIENT);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /**
     * What kube-queue's ClusterRole grants besides job kinds, as {@code group/resource}: the pods (ResourceQuota plugin,
     * admission timeout), ResourceQuotas (ResourceQuota plugin), PriorityClasses, LimitRanges and RuntimeClasses
     * (pricing), Events, the read API's two reviews (docs/security.md; the visibility API's access reviews too), and
     * the HTTPS port's APIService and webhook configuration, whose caBundle kube-queue writes (docs/visibility.md), and
     * the declared kinds' QueuedKinds, their status, kube-queue's own access reviews and the CRDs, read for their schema (docs/kinds.md; the declared
     * kinds' own rules are HelmChartDeclaredKindsTest's).
     */
    private static final Set<String> OTHER_NEEDS = Set.of("/pods", "/resourcequotas",
            "scheduling.k8s.io/priorityclasses", "/limitranges", "node.k8s.io/runtimeclasses", "events.k8s.io/events", "authentication.k8s.io/tokenreviews",
            "authorization.k8s.io/subjectaccessreviews", "apiregistration.k8s.io/apiservices",
            "admissionregistration.k8s.io/mutatingwebhookconfigurations", "kube-queue.io/queuedkinds",
            "kube-queue.io/queuedkinds/status", "authorization.k8s.io/selfsubjectaccessreviews",
            "apiextensions.k8s.io/customresourcedefinitions");

    // ---- serialization ----------------------------------------------------------------------------------------

    /** Manifests are read as the registered kinds' types only once {@link JobKinds#registerTypes} ran on the client. */
    @Test
    void registeringTheKindsTeachesAFreshClientEveryCustomKind() {
        String tfjob = "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: j, namespace: a}\nspec: {}\n";
        try (KubernetesClient fresh = new io.fabric8.kubernetes.client.KubernetesClientBuilder().build()) {
            assertEquals(io.fabric8.kubernetes.api.model.GenericKubernetesResource.class, first(fresh, tfjob).getClass());
            JobKinds.registerTypes(fresh);
            for (Class<? extends HasMetadata> type : JobKinds.customResourceTypes(fresh)) {
                String manifest = "apiVersion: " + HasMetadata.getApiVersion(type) + "\nkind: "
                        + HasMetadata.getKind(type) + "\nmetadata: {name: j, namespace: a}\nspec: {}\n";
                assertEquals(type, first(fresh, manifest).getClass(), manifest);
            }
        }
    }

    private static HasMetadata first(KubernetesClient client, String manifest) {
        return client.load(new ByteArrayInputStream(manifest.getBytes(StandardCharsets.UTF_8))).items().get(0);
    }

    // ---- RBAC -----------------------------------------------------------------------------------------------

    @Test
    void theManifestsFragmentGrantsEachRegisteredKindWhatItNeedsAndNoOtherKind() throws IOException {
        Path fragment = Path.of("src", "main", "kubernetes", "kubernetes.yml");
        try (InputStream in = Files.newInputStream(fragment)) {
            assertJobKindRules(fragment.toString(), CLIENT.load(in).items());
        }
    }

    @Test
    void theHelmChartGrantsEachRegisteredKindWhatItNeedsAndNoOtherKind() {
        for (Map<String, String> values : List.of(Map.<String, String>of(),
                Map.of("queueGroupPlugin", "resourcequota", "readApi.authentication", "none"))) {
            var template = new Helm(Path.of("helm", "kube-queue")).template().withName("kq")
                    .withNamespace("kube-queue").withKubeVersion("1.31.0");
            values.forEach(template::set);
            String rendered = template.call();
            assertJobKindRules("the Helm chart with " + values,
                    CLIENT.load(new ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8))).items());
        }
    }

    /**
     * The record key's Role grants what {@link io.kubequeue.operator.RecordKeySecret} calls and no more: get of its
     * Secret by name, and create (which RBAC cannot limit to a name), in kube-queue's own namespace; in the manifests
     * fragment and the chart alike.
     */
    @Test
    void theRecordKeyRoleGrantsGetOfItsSecretAndCreateOnly() throws IOException {
        Path fragment = Path.of("src", "main", "kubernetes", "kubernetes.yml");
        List<HasMetadata> manifests;
        try (InputStream in = Files.newInputStream(fragment)) {
            manifests = CLIENT.load(in).items();
        }
        String chart = new Helm(Path.of("helm", "kube-queue")).template().withName("kq").withNamespace("kube-queue")
                .withKubeVersion("1.31.0").call();
        for (List<HasMetadata> objects : List.of(manifests,
                CLIENT.load(new ByteArrayInputStream(chart.getBytes(StandardCharsets.UTF_8))).items())) {
            io.fabric8.kubernetes.api.model.rbac.Role role = objects.stream()
                    .filter(io.fabric8.kubernetes.api.model.rbac.Role.class::isInstance)
                    .map(io.fabric8.kubernetes.api.model.rbac.Role.class::cast)
                    .filter(r -> "kube-queue-controller-record-key".equals(r.getMetadata().getName())).findFirst()
                    .orElseThrow(() -> new AssertionError("no Role kube-queue-controller-record-key"));
            assertEquals("kube-queue", role.getMetadata().getNamespace());
            assertEquals(List.of(
                    new io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder().withApiGroups("")
                            .withResources("secrets").withResourceNames(io.kubequeue.operator.RecordKeySecret.NAME)
                            .withVerbs("get").build(),
                    new io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder().withApiGroups("")
                            .withResources("secrets").withVerbs("create").build()), role.getRules());
            assertTrue(objects.stream().anyMatch(o -> o instanceof io.fabric8.kubernetes.api.model.rbac.RoleBinding b
                    && "kube-queue-controller-record-key".equals(b.getRoleRef().getName())
                    && "kube-queue-controller".equals(b.getSubjects().get(0).getName())), "bound to kube-queue");
        }
    }

    /**
     * @param where   names the manifest in failure messages
     * @param objects its objects; ClusterRole {@code kube-queue-controller} is held to the registered kinds
     */
    private static void assertJobKindRules(String where, List<HasMetadata> objects) {
        ClusterRole role = objects.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                .filter(r -> "kube-queue-controller".equals(r.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new AssertionError(where + ": no ClusterRole kube-queue-controller"));
        Map<String, Set<String>> granted = grants(role.getRules());
        Map<String, Set<String>> expected = new TreeMap<>();
        for (JobKind<?> kind : KINDS) {
            String resource = kind.apiGroup() + "/" + kind.plural();
            expected.put(resource, new TreeSet<>(JobKinds.VERBS));
            if (kind instanceof ShowsQueuingCondition<?>) {
                expected.put(resource + "/status", new TreeSet<>(ShowsQueuingCondition.STATUS_VERBS));
            }
        }
        Map<String, Set<String>> jobKindGrants = new TreeMap<>(granted);
        jobKindGrants.keySet().removeAll(OTHER_NEEDS);
        assertEquals(expected, jobKindGrants, where + ": the job kinds' rules of ClusterRole kube-queue-controller"
                + " (group/resource -> verbs) are not the registered kinds' (JobKinds, JobKind.apiGroup/plural,"
                + " JobKinds.VERBS, ShowsQueuingCondition.STATUS_VERBS)");
    }

    /** Every verb granted per {@code group/resource}, over all rules (a rule grants each group × each resource). */
    private static Map<String, Set<String>> grants(List<PolicyRule> rules) {
        Map<String, Set<String>> granted = new TreeMap<>();
        for (PolicyRule rule : rules) {
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    granted.computeIfAbsent(group + "/" + resource, k -> new TreeSet<>()).addAll(rule.getVerbs());
                }
            }
        }
        return granted;
    }

    // ---- CRD generation, the Helm chart's switches ----------------------------------------------------------

    /**
     * {@code quarkus.operator-sdk.crd.exclude-resources} is a build-time property, read by the CRD generator before
     * any of kube-queue's code runs: it must name exactly the registered kinds' custom resource classes (other
     * operators own those CRDs), and so not ElasticQuotaTree, whose CRD kube-queue generates and ships.
     */
    @Test
    void theCrdGeneratorExcludesExactlyTheRegisteredCustomResourceKinds() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(Path.of("src", "main", "resources", "application.properties"))) {
            properties.load(in);
        }
        Set<String> excluded = Arrays.stream(properties.getProperty("quarkus.operator-sdk.crd.exclude-resources", "")
                .split(",")).map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toCollection(TreeSet::new));
        Set<String> registered = JobKinds.customResourceTypes(CLIENT).stream().map(Class::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(registered, excluded, "quarkus.operator-sdk.crd.exclude-resources (application.properties)");
    }

    @Test
    void theHelmChartSwitchesEachRegisteredKindByName() throws IOException {
        Set<String> names = new TreeSet<>(JobKinds.names(CLIENT));
        JsonNode values = YAML.readTree(Path.of("helm", "kube-queue", "values.yaml").toFile());
        assertEquals(names, fieldNames(values.path("jobKinds")), "jobKinds in helm/kube-queue/values.yaml");
        JsonNode schema = new ObjectMapper().readTree(Path.of("helm", "kube-queue", "values.schema.json").toFile());
        assertEquals(names, fieldNames(schema.path("properties").path("jobKinds").path("properties")),
                "jobKinds in helm/kube-queue/values.schema.json");
    }

    private static Set<String> fieldNames(JsonNode object) {
        Set<String> names = new TreeSet<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    // ---- the beans and reconcilers ----------------------------------------------------------------------------

    /**
     * The running operator gets its kinds as CDI beans, one per concrete {@link JobKind} class: those classes are
     * the registered adapters' classes, and each kind has exactly one reconciler, of its type. A declared kind
     * ({@link io.kubequeue.job.declared.DeclaredJobKind}) is no bean: it is made at run time from a QueuedKind, and
     * watched by {@link io.kubequeue.job.declared.DeclaredKinds}, not by a reconciler.
     */
    @Test
    void theKindBeansAndReconcilersAreTheRegisteredKinds() throws IOException, URISyntaxException {
        Path classes = Path.of(JobKind.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Class<?>> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes.resolve(Path.of("io", "kubequeue", "job")))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".")
                        .replaceAll("\\.class$", "");
                try {
                    found.add(Class.forName(name, false, JobKind.class.getClassLoader()));
                } catch (ClassNotFoundException e) {
                    throw new AssertionError(e);
                }
            }
        }
        Set<String> adapters = found.stream().filter(c -> JobKind.class.isAssignableFrom(c) && concrete(c) && !declared(c))
                .map(Class::getName).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(KINDS.stream().map(k -> k.getClass().getName()).collect(Collectors.toCollection(TreeSet::new)),
                adapters, "the concrete JobKind classes (CDI beans) are the kinds JobKinds lists");
        for (Class<?> adapter : found.stream().filter(c -> JobKind.class.isAssignableFrom(c) && concrete(c) && !declared(c)).toList()) {
            assertTrue(adapter.isAnnotationPresent(jakarta.inject.Singleton.class), adapter + " is a @Singleton bean");
        }

        List<String> reconciled = found.stream().filter(c -> JobReconciler.class.isAssignableFrom(c) && concrete(c))
                .map(c -> ((ParameterizedType) c.getGenericSuperclass()).getActualTypeArguments()[0].getTypeName())
                .sorted().toList();
        assertEquals(KINDS.stream().map(k -> k.type().getName()).sorted().toList(), reconciled,
                "one reconciler per registered kind, of its type");
    }

    private static boolean declared(Class<?> c) {
        return c == io.kubequeue.job.declared.DeclaredJobKind.class;
    }

    private static boolean concrete(Class<?> c) {
        return !c.isInterface() && !Modifier.isAbstract(c.getModifiers());
    }
}
