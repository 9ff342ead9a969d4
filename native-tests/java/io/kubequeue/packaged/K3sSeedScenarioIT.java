package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
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
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.kubeflow.MPIJobV2beta1;
import io.kubequeue.job.kubeflow.PyTorchJob;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.testing.Cluster;
import io.kubequeue.operator.Manifests;
import io.kubequeue.quota.elastic.ElasticQuotaTree;

/**
 * kube-queue installed and run against a real API server (k3s in a container, Testcontainers), exactly as
 * docs/install.md's "Manifests" path gives it, with the packaged operator (the jar, or the native binary under
 * {@code -Pnative}) acting with exactly the rights of its generated RBAC:
 *
 * <ol>
 *   <li>the job kinds' own CRDs, as their operators ship them: TFJob and PyTorchJob (training-operator v1.9.0),
 *       MPIJob {@code v2beta1} (mpi-operator; a cluster serves one MPIJob version, so kube-queue's {@code v1}
 *       informer finds nothing there), Argo's Workflow; created, not applied, since the Kubeflow ones are too big
 *       for {@code kubectl apply};</li>
 *   <li>{@code kubectl apply -f target/kubernetes/elasticquotatrees.scheduling.sigs.k8s.io-v1.yml}, then
 *       {@code kubectl apply -f target/kubernetes/kubernetes.yml}, with the {@code kubectl} on the PATH (GitHub's
 *       runners have one), else the same client-side apply done with fabric8 (the object, plus the copy kubectl
 *       keeps in an annotation). The API server validates every object, the Deployment included. No image of
 *       this commit exists in the cluster, so a ResourceQuota of zero pods in {@code kube-queue} keeps the
 *       Deployment from starting one; the replica runs outside the cluster instead, with the Deployment's env vars
 *       as the cluster stored them, through k3s's admin kubeconfig <em>impersonating</em> the ServiceAccount
 *       {@code system:serviceaccount:kube-queue:kube-queue-controller};</li>
 *   <li>for each quota plugin: the seed's quota object and two TFJobs (3 cpu each, 4 allowed; one runs, the
 *       other shows {@code Queuing} until the test, playing the training operator, marks the first Succeeded
 *       through {@code /status}); then one job of each kind, each queued the way its own operator expects, most
 *       without annotations ({@code src/test/resources/k3s/one-of-each-kind.yaml}), every one admitted;</li>
 *   <li>the replica's log shows no {@code Forbidden} answer and no refused admission.</li>
 * </ol>
 *
 * <p>Needs a Docker engine (GitHub's ubuntu runners have one); where none runs, JUnit reports the class skipped
 * ("disabledWithoutDocker"). The replicas' output is {@code target/packaged-tests/kube-queue-k3s-*.log}.
 */
@Testcontainers(disabledWithoutDocker = true)
class K3sSeedScenarioIT {

    /** Pinned, so that the API server under test changes only by a commit. */
    private static final DockerImageName K3S_IMAGE = DockerImageName.parse("rancher/k3s:v1.31.4-k3s1");
    private static final String OPERATOR_NAMESPACE = "kube-queue";
    private static final String SERVICE_ACCOUNT = "kube-queue-controller";
    private static final String DEPLOYMENT = "kube-queue-controller";
    private static final String OPERATOR_USER =
            "system:serviceaccount:" + OPERATOR_NAMESPACE + ":" + SERVICE_ACCOUNT;
    private static final String TREE_GROUP = "root.defaultQuotaGroup";
    private static final Path GENERATED = Path.of("target", "kubernetes");
    private static final Path MANIFESTS = GENERATED.resolve("kubernetes.yml");
    private static final Path QUOTA_TREE_CRD = GENERATED.resolve("elasticquotatrees.scheduling.sigs.k8s.io-v1.yml");
    private static final List<String> JOB_KIND_CRDS = List.of("kubeflow.org_tfjobs.yaml",
            "kubeflow.org_pytorchjobs.yaml", "kubeflow.org_mpijobs.v2beta1.yaml", "argoproj.io_workflows.yaml");
    private static final Pattern FORBIDDEN = Pattern.compile("(?i)forbidden");
    private static final Pattern WARNING_OR_ERROR = Pattern.compile("\\b(WARN|ERROR)\\b");

    /** Generous: shared CI runners pull the image, start k3s and a JVM on two slow cores. */
    private static final Duration CLUSTER_START = Duration.ofMinutes(4);
    private static final Duration ESTABLISHED = Duration.ofMinutes(2);
    private static final Duration RBAC_IN_FORCE = Duration.ofMinutes(1);
    private static final Duration OPERATOR_START = Duration.ofMinutes(3);
    private static final Duration ADMISSION = Duration.ofMinutes(2);

    private static K3sContainer k3s;
    private static KubernetesClient admin;
    private static Path kubeconfig;
    /** The Deployment's env vars with a literal value, as the API server stored them. */
    private static Map<String, String> deploymentEnv;

    private Cluster cluster;
    private PackagedOperator operator;

    @BeforeAll
    static void installAsDocumented() throws IOException, InterruptedException {
        k3s = new K3sContainer(K3S_IMAGE).withStartupTimeout(CLUSTER_START);
        k3s.start();
        admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(k3s.getKubeConfigYaml())).build();
        Manifests.registerKinds(admin); // the job kinds and ElasticQuotaTree read from YAML as kube-queue's classes
        kubeconfig = Path.of("target", "packaged-tests", "k3s-kubeconfig.yaml");
        Files.createDirectories(kubeconfig.getParent());
        Files.writeString(kubeconfig, k3s.getKubeConfigYaml());

        List<CustomResourceDefinition> jobKinds = new ArrayList<>();
        for (String file : JOB_KIND_CRDS) {
            try (InputStream in = K3sSeedScenarioIT.class.getResourceAsStream("/crds/" + file)) {
                assertTrue(in != null, "no test resource /crds/" + file);
                jobKinds.add(admin.apiextensions().v1().customResourceDefinitions().resource(
                        admin.apiextensions().v1().customResourceDefinitions().load(in).item()).create());
            }
        }
        // no pod of the Deployment: this commit has no image in the cluster (the replica runs outside it)
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(OPERATOR_NAMESPACE)
                .endMetadata().build()).create();
        admin.resourceQuotas().inNamespace(OPERATOR_NAMESPACE).resource(new ResourceQuotaBuilder().withNewMetadata()
                .withName("no-pods-in-this-test").endMetadata().withNewSpec().addToHard("pods", new Quantity("0"))
                .endSpec().build()).create();

        assertTrue(Files.isRegularFile(QUOTA_TREE_CRD), QUOTA_TREE_CRD + " is generated at package: run ./mvnw verify");
        Kubectl.apply(kubeconfig, QUOTA_TREE_CRD, admin);
        Kubectl.apply(kubeconfig, MANIFESTS, admin);

        for (String crd : names(jobKinds, "elasticquotatrees.scheduling.sigs.k8s.io")) {
            admin.apiextensions().v1().customResourceDefinitions().withName(crd).waitUntilCondition(c -> c != null
                    && c.getStatus() != null && c.getStatus().getConditions().stream().anyMatch(x ->
                    "Established".equals(x.getType()) && "True".equals(x.getStatus())), ESTABLISHED.toSeconds(), TimeUnit.SECONDS);
        }
        await("the new kinds are served").atMost(Duration.ofMinutes(1)).ignoreExceptions().until(() -> {
            admin.resources(TFJob.class).inAnyNamespace().list();
            admin.resources(PyTorchJob.class).inAnyNamespace().list();
            admin.resources(MPIJobV2beta1.class).inAnyNamespace().list();
            admin.resources(Workflow.class).inAnyNamespace().list();
            admin.resources(ElasticQuotaTree.class).inNamespace("kube-system").list();
            return true;
        });
        deploymentEnv = storedDeploymentEnv();
        awaitRbacInForce();
        assertImpersonationNarrowsTheAdmin();
    }

    @AfterAll
    static void stopCluster() {
        if (admin != null) {
            admin.close();
        }
        if (k3s != null) {
            k3s.stop();
        }
    }

    @AfterEach
    void stopReplicaAndClear() {
        if (operator != null) {
            operator.stop(); // SIGTERM: it hands the Lease over, so the next test's replica leads at once
        }
        if (cluster != null) {
            for (Class<? extends HasMetadata> kind : List.of(TFJob.class, PyTorchJob.class, MPIJobV2beta1.class,
                    Workflow.class, io.fabric8.kubernetes.api.model.batch.v1.Job.class)) {
                admin.resources(kind).inNamespace("default").delete();
            }
            admin.resources(ElasticQuotaTree.class).inNamespace("kube-system").delete();
            admin.resourceQuotas().inNamespace("default").delete();
        }
    }

    @Test
    void elasticQuotaPlugin() {
        runSeedScenario("elasticquota", "/seed/elasticquotatree.yaml", "/seed/tfjobs.yaml", TREE_GROUP,
                () -> await("the replica reads the seed's quota tree").atMost(Duration.ofMinutes(1))
                        .until(() -> running() && operator.log().contains(TREE_GROUP + " max")));
    }

    @Test
    void resourceQuotaPlugin() {
        // the group of a job is its namespace; its limit is the ResourceQuota, whose status the quota controller fills
        runSeedScenario("resourcequota", "/seed/resourcequota.yaml", "/seed/tfjobs-resourcequota.yaml", "default",
                () -> await("the quota controller has counted the ResourceQuota").atMost(Duration.ofMinutes(1))
                        .until(() -> {
                            ResourceQuota quota = admin.resourceQuotas().inNamespace("default").withName("default").get();
                            return quota.getStatus() != null && quota.getStatus().getHard() != null
                                    && quota.getStatus().getHard().containsKey("cpu");
                        }));
    }

    /**
     * The seed's scenario under one plugin, then one job of each kind.
     *
     * @param plugin          {@code QueueGroupPlugin}
     * @param quota           the seed's quota object (test resource)
     * @param jobs            the seed's two TFJobs for that plugin (test resource)
     * @param group           the quota group they meet
     * @param quotaInForce    waits until the quota object is in force
     */
    private void runSeedScenario(String plugin, String quota, String jobs, String group, Runnable quotaInForce) {
        cluster = new Cluster(admin);
        Map<String, String> env = new HashMap<>(deploymentEnv);
        env.put("QueueGroupPlugin", plugin);
        operator = PackagedOperator.startWithKubeconfig("kube-queue-k3s-" + plugin, kubeconfig, OPERATOR_USER, env);
        // ready once recovery is done, although the cluster does not serve MPIJob v1
        await("the replica recovered, is ready and leads").atMost(OPERATOR_START).pollInterval(Duration.ofSeconds(1))
                .until(() -> running() && operator.ready() && operator.leads());

        cluster.apply(quota);
        quotaInForce.run();
        cluster.apply(jobs);
        await("one of the seed's TFJobs admitted").atMost(ADMISSION)
                .until(() -> running() && (admitted("job1") || admitted("job2")));
        String first = admitted("job1") ? "job1" : "job2";
        String second = first.equals("job1") ? "job2" : "job1";
        assertEquals(group, tfJob(first).getMetadata().getAnnotations().get(Annotations.QUOTA_GROUP),
                "the admission record names the quota group");
        // 3 + 3 cpu > 4: the other waits, and kubectl get tfjob shows it Queuing
        await(second + " shows condition Queuing=True").atMost(Duration.ofMinutes(1))
                .until(() -> "True".equals(condition(tfJob(second), "Queuing")));
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10))
                .until(() -> Cluster.suspended(tfJob(second)));

        succeed(first); // the training operator's part: the job ran and succeeded
        await(second + " admitted once " + first + " succeeded").atMost(ADMISSION)
                .until(() -> running() && admitted(second));
        assertEquals(group, tfJob(second).getMetadata().getAnnotations().get(Annotations.QUOTA_GROUP));
        // events.k8s.io/v1 Events are validated by a real API server (the mock server takes anything)
        await("an Admitted event on " + first).atMost(Duration.ofSeconds(30)).until(() ->
                admin.resources(Event.class).inNamespace("default").list().getItems().stream().anyMatch(e ->
                        first.equals(e.getRegarding().getName()) && "Admitted".equals(e.getReason())));
        succeed(second);

        // one job of each kind, most without annotations: each admission patch must apply on a real server
        for (HasMetadata job : cluster.apply("/k3s/one-of-each-kind.yaml")) {
            await(job.getKind() + " " + job.getMetadata().getName() + " admitted").atMost(ADMISSION)
                    .until(() -> running() && cluster.admittedNow(job));
        }

        String log = operator.log();
        report(log);
        assertTrue(operator.ready(), "still ready");
        assertEquals(List.of(), log.lines().filter(l -> FORBIDDEN.matcher(l).find()).toList(),
                "the generated RBAC must cover every call; replica log: " + operator.logFile().toAbsolutePath());
        assertEquals(List.of(), log.lines().filter(l -> l.contains("AdmissionRefused")).toList(),
                "no admission patch refused again and again by the API server");
        assertTrue(operator.alive(), "the replica still runs");
    }

    /** Both install-manifest files, client-side applied as docs/install.md says. */
    private static final class Kubectl {

        /** Whether a kubectl is on the PATH; asked once. */
        private static final boolean ON_PATH = onPath();

        /**
         * {@code kubectl apply -f file} with the kubectl on the PATH; without one, the same with fabric8: each object
         * created with the annotation in which kubectl keeps what it applied.
         */
        static void apply(Path kubeconfig, Path file, KubernetesClient admin) throws IOException, InterruptedException {
            if (ON_PATH) {
                Process p = new ProcessBuilder("kubectl", "--kubeconfig", kubeconfig.toAbsolutePath().toString(),
                        "apply", "-f", file.toAbsolutePath().toString()).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(2, TimeUnit.MINUTES), "kubectl apply -f " + file + " did not end");
                System.out.println("kubectl apply -f " + file + ":\n" + out);
                assertEquals(0, p.exitValue(), "kubectl apply -f " + file + " refused:\n" + out);
                return;
            }
            List<HasMetadata> objects;
            try (InputStream in = Files.newInputStream(file)) {
                objects = admin.load(in).items();
            }
            for (HasMetadata o : objects) {
                String applied = admin.getKubernetesSerialization().asJson(o);
                Map<String, String> annotations = o.getMetadata().getAnnotations() == null ? new LinkedHashMap<>()
                        : new LinkedHashMap<>(o.getMetadata().getAnnotations());
                annotations.put("kubectl.kubernetes.io/last-applied-configuration", applied);
                o.getMetadata().setAnnotations(annotations);
                admin.resource(o).createOr(existing -> existing.patch());
            }
        }

        private static boolean onPath() {
            try {
                Process p = new ProcessBuilder("kubectl", "version", "--client").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private static List<String> names(List<CustomResourceDefinition> crds, String more) {
        List<String> names = new ArrayList<>(crds.stream().map(c -> c.getMetadata().getName()).toList());
        names.add(more);
        return names;
    }

    /** The applied Deployment's env vars that have a literal value, read back from the API server. */
    private static Map<String, String> storedDeploymentEnv() {
        JsonNode deployment = admin.getKubernetesSerialization().convertValue(admin.genericKubernetesResources(
                "apps/v1", "Deployment").inNamespace(OPERATOR_NAMESPACE).withName(DEPLOYMENT).get(), JsonNode.class);
        JsonNode pod = deployment.at("/spec/template/spec");
        assertEquals(SERVICE_ACCOUNT, pod.path("serviceAccountName").asText(), "the Deployment's ServiceAccount");
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode v : pod.at("/containers/0/env")) {
            if (v.has("value")) {
                env.put(v.path("name").asText(), v.path("value").asText());
            }
        }
        assertTrue(env.containsKey("JAVA_TOOL_OPTIONS") && env.containsKey("QueueGroupPlugin"), env.toString());
        return env;
    }

    /**
     * Waits until the API server's authorizer has the new bindings (its RBAC cache follows the objects by a
     * moment), so that a Forbidden in the replica's log can only mean a missing rule: every call below is one
     * kube-queue makes (src/main/kubernetes/kubernetes.yml). And checks least privilege: no Secrets.
     */
    private static void awaitRbacInForce() {
        List<ResourceAttributes> needed = List.of(
                access("batch", "jobs", null, null, "watch"),
                access("batch", "jobs", null, null, "patch"),
                access("kubeflow.org", "tfjobs", null, null, "list"),
                access("kubeflow.org", "tfjobs", null, "default", "patch"),
                access("kubeflow.org", "tfjobs", "status", "default", "patch"),
                access("kubeflow.org", "pytorchjobs", null, "default", "patch"),
                access("kubeflow.org", "mpijobs", null, "default", "patch"),
                access("argoproj.io", "workflows", null, "default", "patch"),
                access("", "resourcequotas", null, null, "watch"),
                access("", "pods", null, null, "watch"),
                access("scheduling.sigs.k8s.io", "elasticquotatrees", null, "kube-system", "watch"),
                access("coordination.k8s.io", "leases", null, OPERATOR_NAMESPACE, "create"),
                access("coordination.k8s.io", "leases", null, OPERATOR_NAMESPACE, "update"),
                access("coordination.k8s.io", "leases", null, OPERATOR_NAMESPACE, "patch"),
                access("events.k8s.io", "events", null, "default", "create"),
                access("scheduling.k8s.io", "priorityclasses", null, null, "watch"),
                access("", "limitranges", null, null, "watch"),
                access("node.k8s.io", "runtimeclasses", null, null, "watch"),
                // the HTTPS port (the Deployment switches it on): its certificate's Secret, its CA into the APIService
                // and the webhook configuration, the front proxy's CA
                named(access("", "secrets", null, OPERATOR_NAMESPACE, "get"), "kube-queue-tls"),
                named(access("", "secrets", null, OPERATOR_NAMESPACE, "update"), "kube-queue-tls"),
                named(access("apiregistration.k8s.io", "apiservices", null, null, "patch"),
                        "v1alpha1.visibility.kube-queue.io"),
                named(access("admissionregistration.k8s.io", "mutatingwebhookconfigurations", null, null, "patch"),
                        "kube-queue-suspend-at-creation"),
                named(access("", "configmaps", null, "kube-system", "get"), "extension-apiserver-authentication"));
        await("the generated RBAC in force").atMost(RBAC_IN_FORCE).pollInterval(Duration.ofMillis(500))
                .until(() -> needed.stream().allMatch(K3sSeedScenarioIT::allowed));
        assertFalse(allowed(access("", "secrets", null, OPERATOR_NAMESPACE, "list")),
                "least privilege: kube-queue reads no Secrets");
    }

    private static ResourceAttributes named(ResourceAttributes attributes, String name) {
        attributes.setName(name);
        return attributes;
    }

    private static ResourceAttributes access(String group, String resource, String subresource, String namespace,
                                             String verb) {
        return new ResourceAttributesBuilder().withGroup(group).withResource(resource).withSubresource(subresource)
                .withNamespace(namespace).withVerb(verb).build();
    }

    private static boolean allowed(ResourceAttributes attributes) {
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
    private static void assertImpersonationNarrowsTheAdmin() {
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
