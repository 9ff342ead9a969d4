package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.operator.Cluster;
import io.kubequeue.operator.Manifests;

/**
 * The seed's scenario end to end, against a real API server: k3s in a container (Testcontainers), with the
 * packaged operator (the jar, or the native binary under {@code -Pnative}) running as a process of its own with
 * exactly the rights of its generated, least-privilege RBAC.
 *
 * <ol>
 *   <li>k3s starts; the TFJob CRD (the training-operator's, a copy in {@code src/test/resources/crds/}) and the
 *       ElasticQuotaTree CRD generated at package ({@code target/kubernetes/}) are installed and awaited
 *       {@code Established};</li>
 *   <li>from the install manifests generated at package ({@code target/kubernetes/kubernetes.yml}) the
 *       Namespace, ServiceAccount, ClusterRole(Binding)s and Role(Binding)s are applied, not the Deployment
 *       (no image is built here): the replica runs outside the cluster, with the Deployment's env vars, through
 *       k3s's admin kubeconfig <em>impersonating</em> the ServiceAccount
 *       {@code system:serviceaccount:kube-queue:kube-queue-controller} (fabric8's env var
 *       {@code KUBERNETES_IMPERSONATE_USERNAME}), so every request it makes is authorized as the pod's would be;</li>
 *   <li>the seed's quota tree (namespace {@code default} may use 4 cpu) and its two TFJobs (3 cpu each, queued by
 *       the annotation {@code scheduling.x-k8s.io/suspend}) are applied: one is admitted (annotation removed,
 *       admission record written), the other stays queued and shows condition {@code Queuing=True};</li>
 *   <li>the test plays the training operator: the admitted job gets condition {@code Succeeded=True} through the
 *       status subresource; the other is then admitted;</li>
 *   <li>the replica's log shows no {@code Forbidden} answer from the API server.</li>
 * </ol>
 *
 * <p>Needs a Docker engine (GitHub's ubuntu runners have one); where none runs, JUnit reports the class skipped
 * ("disabledWithoutDocker"). The replica's output is {@code target/packaged-tests/kube-queue-k3s.log}.
 */
@Testcontainers(disabledWithoutDocker = true)
class K3sSeedScenarioIT {

    /** Pinned, so that the API server under test changes only by a commit. */
    private static final DockerImageName K3S_IMAGE = DockerImageName.parse("rancher/k3s:v1.31.4-k3s1");
    private static final String OPERATOR_NAMESPACE = "kube-queue";
    private static final String SERVICE_ACCOUNT = "kube-queue-controller";
    private static final String OPERATOR_USER =
            "system:serviceaccount:" + OPERATOR_NAMESPACE + ":" + SERVICE_ACCOUNT;
    private static final String GROUP = "root.defaultQuotaGroup";
    private static final Path GENERATED = Path.of("target", "kubernetes");
    private static final Path MANIFESTS = GENERATED.resolve("kubernetes.yml");
    private static final Path QUOTA_TREE_CRD = GENERATED.resolve("elasticquotatrees.scheduling.sigs.k8s.io-v1.yml");
    /** What an install applies besides the CRDs and the workload itself. */
    private static final Set<String> INSTALLED_KINDS =
            Set.of("Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding");
    private static final Pattern FORBIDDEN = Pattern.compile("(?i)forbidden");
    private static final Pattern WARNING_OR_ERROR = Pattern.compile("\\b(WARN|ERROR)\\b");

    /** Generous: shared CI runners pull the image, start k3s and a JVM on two slow cores. */
    private static final Duration CLUSTER_START = Duration.ofMinutes(4);
    private static final Duration ESTABLISHED = Duration.ofMinutes(2);
    private static final Duration RBAC_IN_FORCE = Duration.ofMinutes(1);
    private static final Duration OPERATOR_START = Duration.ofMinutes(3);
    private static final Duration ADMISSION = Duration.ofMinutes(2);

    private K3sContainer k3s;
    private KubernetesClient admin;
    private Cluster cluster;
    private PackagedOperator operator;

    @BeforeEach
    void startCluster() {
        k3s = new K3sContainer(K3S_IMAGE).withStartupTimeout(CLUSTER_START);
        k3s.start();
        admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(k3s.getKubeConfigYaml())).build();
        Manifests.registerKinds(admin); // TFJob and ElasticQuotaTree read from YAML as kube-queue's model classes
        cluster = new Cluster(admin);
    }

    @AfterEach
    void stopAll() {
        if (operator != null) {
            operator.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (k3s != null) {
            k3s.stop();
        }
    }

    @Test
    void seedScenarioWithTheGeneratedRbac() throws IOException {
        installCrds();
        Map<String, String> deploymentEnv = installRbac();
        awaitRbacInForce();
        assertImpersonationNarrowsTheAdmin();

        Path kubeconfig = Path.of("target", "packaged-tests", "k3s-kubeconfig.yaml");
        Files.createDirectories(kubeconfig.getParent());
        Files.writeString(kubeconfig, k3s.getKubeConfigYaml());
        operator = PackagedOperator.startWithKubeconfig("kube-queue-k3s", kubeconfig, OPERATOR_USER, deploymentEnv);
        // ready once start-up recovery is done, although PyTorchJob, MPIJob and Workflow have no CRD here
        await("the replica recovered, is ready and leads").atMost(OPERATOR_START).pollInterval(Duration.ofSeconds(1))
                .until(() -> running() && operator.ready() && operator.leads());

        // the seed: the quota tree first (so that the jobs meet their group), then the two TFJobs
        cluster.apply("/seed/elasticquotatree.yaml");
        await("the replica reads the seed's quota tree").atMost(Duration.ofMinutes(1))
                .until(() -> running() && operator.log().contains(GROUP + " max"));
        cluster.apply("/seed/tfjobs.yaml");

        await("one of the seed's TFJobs admitted").atMost(ADMISSION)
                .until(() -> running() && (admitted("job1") || admitted("job2")));
        String first = admitted("job1") ? "job1" : "job2";
        String second = first.equals("job1") ? "job2" : "job1";
        assertEquals(GROUP, tfJob(first).getMetadata().getAnnotations().get(Annotations.QUOTA_GROUP),
                "the admission record names the quota group");
        // 3 + 3 cpu > 4: the other waits, and kubectl get tfjob shows it Queuing
        await(second + " shows condition Queuing=True").atMost(Duration.ofMinutes(1))
                .until(() -> "True".equals(condition(tfJob(second), "Queuing")));
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10))
                .until(() -> Cluster.suspended(tfJob(second)));

        succeed(first); // the training operator's part: the job ran and succeeded
        await(second + " admitted once " + first + " succeeded").atMost(ADMISSION)
                .until(() -> running() && admitted(second));
        assertEquals(GROUP, tfJob(second).getMetadata().getAnnotations().get(Annotations.QUOTA_GROUP));
        await("both admissions logged").atMost(Duration.ofSeconds(30)).until(() ->
                operator.log().contains("admitted TFJob default/" + first + " into quota group " + GROUP)
                        && operator.log().contains("admitted TFJob default/" + second + " into quota group " + GROUP));
        // events.k8s.io/v1 Events are validated by a real API server (the mock server takes anything)
        await("an Admitted event on " + first).atMost(Duration.ofSeconds(30)).until(() ->
                admin.resources(Event.class).inNamespace("default").list().getItems().stream().anyMatch(e ->
                        first.equals(e.getRegarding().getName()) && "Admitted".equals(e.getReason())));

        String log = operator.log();
        report(log);
        assertTrue(operator.ready(), "ready, with TFJob the only job CRD installed");
        List<String> forbidden = log.lines().filter(l -> FORBIDDEN.matcher(l).find()).toList();
        assertEquals(List.of(), forbidden,
                "the generated RBAC must cover every call; replica log: " + operator.logFile().toAbsolutePath());
        assertTrue(operator.alive(), "the replica still runs");
    }

    /** Both CRDs, then each awaited Established and served (the first list of its kind answers). */
    private void installCrds() throws IOException {
        List<CustomResourceDefinition> crds = new ArrayList<>();
        try (InputStream in = K3sSeedScenarioIT.class.getResourceAsStream("/crds/kubeflow.org_tfjobs.yaml")) {
            assertTrue(in != null, "no test resource /crds/kubeflow.org_tfjobs.yaml");
            crds.add(admin.apiextensions().v1().customResourceDefinitions().load(in).item());
        }
        assertTrue(Files.isRegularFile(QUOTA_TREE_CRD), QUOTA_TREE_CRD + " is generated at package: run ./mvnw verify");
        try (InputStream in = Files.newInputStream(QUOTA_TREE_CRD)) {
            crds.add(admin.apiextensions().v1().customResourceDefinitions().load(in).item());
        }
        for (CustomResourceDefinition crd : crds) {
            admin.apiextensions().v1().customResourceDefinitions().resource(crd).create();
        }
        for (CustomResourceDefinition crd : crds) {
            admin.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                    .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions()
                            .stream().anyMatch(x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())),
                            ESTABLISHED.toSeconds(), TimeUnit.SECONDS);
        }
        await("the new kinds are served").atMost(Duration.ofMinutes(1)).ignoreExceptions().until(() -> {
            admin.resources(TFJob.class).inAnyNamespace().list();
            admin.resources(io.kubequeue.quota.ElasticQuotaTree.class).inNamespace("kube-system").list();
            return true;
        });
    }

    /**
     * Applies the install manifests' Namespace, ServiceAccount and RBAC objects.
     *
     * @return the Deployment's env vars with a literal value: the replica gets them as the pod would
     */
    private Map<String, String> installRbac() throws IOException {
        assertTrue(Files.isRegularFile(MANIFESTS), MANIFESTS + " is generated at package: run ./mvnw verify");
        List<HasMetadata> objects;
        try (InputStream in = Files.newInputStream(MANIFESTS)) {
            objects = admin.load(in).items();
        }
        // the Namespace before the objects that live in it
        objects.stream().filter(o -> o.getKind().equals("Namespace")).forEach(o -> admin.resource(o).create());
        objects.stream().filter(o -> INSTALLED_KINDS.contains(o.getKind()) && !o.getKind().equals("Namespace"))
                .forEach(o -> admin.resource(o).create());
        assertTrue(objects.stream().anyMatch(o -> o instanceof ServiceAccount
                && SERVICE_ACCOUNT.equals(o.getMetadata().getName())), "the Deployment's ServiceAccount ships with it");
        // read as JSON: the apps/v1 model classes are not on this classpath
        JsonNode deployment = objects.stream().filter(o -> o.getKind().equals("Deployment")).findFirst()
                .map(o -> admin.getKubernetesSerialization().convertValue(o, JsonNode.class))
                .orElseThrow(() -> new AssertionError("no Deployment in " + MANIFESTS));
        JsonNode pod = deployment.at("/spec/template/spec");
        assertEquals(SERVICE_ACCOUNT, pod.path("serviceAccountName").asText(), "the Deployment's ServiceAccount");
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode v : pod.at("/containers/0/env")) {
            if (v.has("value")) {
                env.put(v.path("name").asText(), v.path("value").asText());
            }
        }
        return env;
    }

    /**
     * Waits until the API server's authorizer has the new bindings (its RBAC cache follows the objects by a
     * moment), so that a Forbidden in the replica's log can only mean a missing rule: every call below is one
     * kube-queue makes (src/main/kubernetes/kubernetes.yml). And checks least privilege: no Secrets.
     */
    private void awaitRbacInForce() {
        List<ResourceAttributes> needed = List.of(
                access("batch", "jobs", null, null, "watch"),
                access("batch", "jobs", null, null, "patch"),
                access("kubeflow.org", "tfjobs", null, null, "list"),
                access("kubeflow.org", "tfjobs", null, "default", "patch"),
                access("kubeflow.org", "tfjobs", "status", "default", "patch"),
                access("scheduling.sigs.k8s.io", "elasticquotatrees", null, "kube-system", "watch"),
                access("coordination.k8s.io", "leases", null, OPERATOR_NAMESPACE, "create"),
                access("coordination.k8s.io", "leases", null, OPERATOR_NAMESPACE, "update"),
                access("coordination.k8s.io", "leases", null, OPERATOR_NAMESPACE, "patch"),
                access("events.k8s.io", "events", null, "default", "create"),
                access("scheduling.k8s.io", "priorityclasses", null, null, "watch"));
        await("the generated RBAC in force").atMost(RBAC_IN_FORCE).pollInterval(Duration.ofMillis(500))
                .until(() -> needed.stream().allMatch(this::allowed));
        assertFalse(allowed(access("", "secrets", null, OPERATOR_NAMESPACE, "list")),
                "least privilege: kube-queue reads no Secrets");
    }

    private static ResourceAttributes access(String group, String resource, String subresource, String namespace,
                                             String verb) {
        return new ResourceAttributesBuilder().withGroup(group).withResource(resource).withSubresource(subresource)
                .withNamespace(namespace).withVerb(verb).build();
    }

    private boolean allowed(ResourceAttributes attributes) {
        SubjectAccessReview review = new SubjectAccessReviewBuilder().withNewSpec().withUser(OPERATOR_USER)
                .withGroups("system:serviceaccounts", "system:serviceaccounts:" + OPERATOR_NAMESPACE,
                        "system:authenticated")
                .withResourceAttributes(attributes).endSpec().build();
        return Boolean.TRUE.equals(admin.authorization().v1().subjectAccessReview().create(review).getStatus()
                .getAllowed());
    }

    /**
     * The replica gets the same kubeconfig and user: here, a client so configured must be refused what the
     * ServiceAccount may not do, and granted what it may (proof that the admin's credentials are narrowed).
     */
    private void assertImpersonationNarrowsTheAdmin() {
        Config config = new ConfigBuilder(Config.fromKubeconfig(k3s.getKubeConfigYaml()))
                .withImpersonateUsername(OPERATOR_USER).build();
        try (KubernetesClient asOperator = new KubernetesClientBuilder().withConfig(config).build()) {
            asOperator.resources(TFJob.class).inAnyNamespace().list();
            KubernetesClientException refused = null;
            try {
                asOperator.secrets().inNamespace(OPERATOR_NAMESPACE).list();
            } catch (KubernetesClientException e) {
                refused = e;
            }
            assertTrue(refused != null && refused.getCode() == 403,
                    "impersonating " + OPERATOR_USER + " must not list Secrets: " + refused);
        }
    }

    /** The process is alive; if it is not, fails at once with its log rather than at the end of a long wait. */
    private boolean running() {
        if (!operator.alive()) {
            throw new AssertionError("the replica exited; its log (" + operator.logFile() + "):\n" + operator.log());
        }
        return true;
    }

    private TFJob tfJob(String name) {
        return admin.resources(TFJob.class).inNamespace("default").withName(name).get();
    }

    /** No suspend mark left, and the admission record written. */
    private boolean admitted(String name) {
        TFJob job = tfJob(name);
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        return !Cluster.suspended(job) && annotations != null && annotations.containsKey(Annotations.QUOTA_GROUP);
    }

    /** The status of the job's condition of that type, or null without one. */
    private static String condition(TFJob job, String type) {
        if (job.getStatus() == null) {
            return null;
        }
        for (JsonNode c : job.getStatus().path("conditions")) {
            if (type.equals(c.path("type").asText())) {
                return c.path("status").asText();
            }
        }
        return null;
    }

    /**
     * What the training operator does when a TFJob ends: condition {@code Succeeded=True} appended through the
     * status subresource. A PUT with the read resourceVersion; retried when kube-queue's own status write (its
     * Queuing condition) came in between (409 Conflict).
     */
    private void succeed(String name) {
        await("status Succeeded=True written on " + name).atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(KubernetesClientException.class).until(() -> {
                    TFJob job = tfJob(name);
                    ObjectNode status = job.getStatus() instanceof ObjectNode o ? o.deepCopy()
                            : JsonNodeFactory.instance.objectNode();
                    ArrayNode conditions = status.has("conditions") && status.get("conditions").isArray()
                            ? (ArrayNode) status.get("conditions") : status.putArray("conditions");
                    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
                    conditions.addObject().put("type", "Succeeded").put("status", "True")
                            .put("reason", "TFJobSucceeded").put("message", "TFJob default/" + name + " successfully completed.")
                            .put("lastUpdateTime", now).put("lastTransitionTime", now);
                    status.put("completionTime", now);
                    job.setStatus(status);
                    admin.resources(TFJob.class).inNamespace("default").resource(job).updateStatus();
                    return true;
                });
        assertEquals("True", condition(tfJob(name), "Succeeded"));
    }

    /** The replica's warnings and errors, printed for CI's log (a real API server answers what a mock does not). */
    private static void report(String log) {
        List<String> lines = log.lines().filter(l -> WARNING_OR_ERROR.matcher(l).find()).toList();
        System.out.println("K3sSeedScenarioIT: " + lines.size() + " WARN/ERROR lines in the replica's log"
                + (lines.isEmpty() ? "" : ":\n  " + String.join("\n  ", lines)));
    }
}
