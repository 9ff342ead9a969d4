package io.kubequeue.packaged;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;

/**
 * The manifests Quarkus generates at package ({@code target/kubernetes/kubernetes.yml}, from
 * {@code src/main/kubernetes/} and the {@code quarkus.kubernetes.*} keys): the names the seed's instructions use,
 * its env vars with their defaults, probes, a restricted container, and RBAC with exactly the verbs kube-queue
 * calls (docs/install.md, "RBAC").
 */
class ManifestsIT {

    private final Rendered manifests = Rendered.generatedManifests();

    /** group/resource → verbs, over every rule of a role. */
    private static Map<String, List<String>> grants(List<PolicyRule> rules) {
        Map<String, List<String>> grants = new TreeMap<>();
        for (PolicyRule rule : rules) {
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    grants.put((group.isEmpty() ? "core" : group) + "/" + resource, rule.getVerbs());
                }
            }
        }
        return grants;
    }

    @Test
    void theDeploymentIsTheSeedsWithItsEnvVarsProbesAndARestrictedContainer() {
        Deployment deployment = manifests.get(Deployment.class, "kube-queue-controller");
        assertEquals("kube-queue", deployment.getMetadata().getNamespace(),
                "kubectl edit deploy kube-queue-controller -nkube-queue (the seed)");
        assertEquals("kube-queue-controller", deployment.getSpec().getTemplate().getSpec().getServiceAccountName());
        assertEquals("kube-queue", manifests.get(ServiceAccount.class, "kube-queue-controller").getMetadata().getNamespace(),
                "the pod's ServiceAccount ships with the manifests");
        Container c = manifests.controller();
        Map<String, String> env = Rendered.literalEnv(c);
        assertEquals(Map.of("QueueGroupPlugin", "elasticquota", "StrictPriority", "false", "StrictConsistency", "false"),
                Map.of("QueueGroupPlugin", env.get("QueueGroupPlugin"), "StrictPriority", env.get("StrictPriority"),
                        "StrictConsistency", env.get("StrictConsistency")));
        assertTrue(c.getEnv().stream().anyMatch(e -> e.getName().equals("POD_NAMESPACE") && e.getValueFrom() != null),
                "the Lease's namespace comes from the pod");
        assertEquals("/q/health/ready", c.getReadinessProbe().getHttpGet().getPath());
        assertEquals("/q/health/live", c.getLivenessProbe().getHttpGet().getPath());
        assertEquals(Boolean.FALSE, c.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals(Boolean.TRUE, c.getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop());
        assertEquals("RuntimeDefault", c.getSecurityContext().getSeccompProfile().getType());
        assertEquals(Boolean.TRUE, deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot());
        assertTrue(c.getResources().getRequests().containsKey("cpu") && c.getResources().getLimits().containsKey("memory"));
        assertTrue(c.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/tmp")),
                "a writable /tmp under a read-only root");
        assertTrue(manifests.ofKind("ServiceMonitor").isEmpty(), "the ServiceMonitor only when asked for");
        // health and metrics on the management interface, apart from the read API (port 8080) and the HTTPS port
        assertEquals(List.of(9000, 9000), List.of(c.getReadinessProbe().getHttpGet().getPort().getIntVal(),
                c.getLivenessProbe().getHttpGet().getPort().getIntVal()));
        // kubectl queue proxies to services/kube-queue-controller:http; the API server dials port https for the
        // visibility API and the webhook; neither carries health or metrics
        Map<String, String> servicePorts = new TreeMap<>();
        manifests.get(Service.class, "kube-queue-controller").getSpec().getPorts().forEach(p -> servicePorts.put(
                p.getName(), p.getPort() + "->" + p.getTargetPort().getIntVal()));
        assertEquals(Map.of("http", "80->8080", "https", "8443->8443"), servicePorts);
        assertTrue(c.getPorts().stream().anyMatch(p -> "https".equals(p.getName()) && p.getContainerPort() == 8443),
                "the container declares the HTTPS port: " + c.getPorts());
        var management = manifests.get(Service.class, "kube-queue-controller-management").getSpec();
        assertEquals("management", management.getPorts().get(0).getName());
        assertEquals(9000, management.getPorts().get(0).getTargetPort().getIntVal());
        assertEquals(deployment.getSpec().getSelector().getMatchLabels(), management.getSelector());
        assertEquals("9000", deployment.getSpec().getTemplate().getMetadata().getAnnotations().get("prometheus.io/port"));
        // issue 29: the pods' annotations are the one scrape path (on the Services too, Prometheus scraped twice)
        for (HasMetadata o : manifests.objects()) {
            Map<String, String> annotations = o.getMetadata().getAnnotations();
            assertTrue(annotations == null || !annotations.containsKey("prometheus.io/scrape"),
                    "scrape annotations on " + o.getKind() + " " + o.getMetadata().getName());
        }
        // a priority above the jobs it queues, from a class that ships with it (a system class may be refused
        // outside kube-system), and a budget that lets a drain move one replica at a time
        String priorityClass = deployment.getSpec().getTemplate().getSpec().getPriorityClassName();
        var shipped = manifests.get(io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass.class, priorityClass);
        assertEquals(1_000_000_000, shipped.getValue(), "the highest a user class may have");
        assertEquals(Boolean.FALSE, shipped.getGlobalDefault());
        var budget = manifests.get(io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget.class,
                "kube-queue-controller").getSpec();
        assertEquals(1, budget.getMaxUnavailable().getIntVal(), "one replica (the default) can still be drained");
        assertEquals(deployment.getSpec().getSelector(), budget.getSelector());
        for (HasMetadata o : manifests.objects()) {
            Map<String, String> annotations = o.getMetadata().getAnnotations();
            assertTrue(annotations == null || !annotations.containsKey("app.quarkus.io/vcs-uri"),
                    "no build machine's clone path in " + o.getKind() + " " + o.getMetadata().getName());
        }
    }

    /**
     * The JVM exits at its first OutOfMemoryError (OutOfMemoryIT) and takes its heap from the container's limit;
     * kube-queue halts itself before Kubernetes would kill it (ShutdownDeadlineIT).
     */
    @Test
    void theJvmExitsOnOutOfMemoryAndStopsWithinTheGracePeriod() {
        Map<String, String> env = Rendered.literalEnv(manifests.controller());
        assertTrue(env.get("JAVA_TOOL_OPTIONS").contains("-XX:+ExitOnOutOfMemoryError"), env.toString());
        assertTrue(env.get("JAVA_TOOL_OPTIONS").contains("-XX:MaxRAMPercentage=50"), env.toString());
        // C1 only: the benchmark's RSS fits under 256 MiB with it, not without (docs/performance.md)
        assertTrue(env.get("JAVA_TOOL_OPTIONS").contains("-XX:TieredStopAtLevel=1"), env.toString());
        long grace = manifests.get(Deployment.class, "kube-queue-controller").getSpec().getTemplate().getSpec()
                .getTerminationGracePeriodSeconds();
        assertEquals(30, grace);
        assertTrue(java.time.Duration.parse("PT" + env.get("KUBE_QUEUE_SHUTDOWN_DEADLINE").toUpperCase())
                .compareTo(java.time.Duration.ofSeconds(grace)) < 0, "the deadline runs out before the grace period");
    }

    @Test
    void rbacGrantsExactlyWhatKubeQueueCalls() {
        assertEquals(new TreeMap<>(Map.ofEntries(
                Map.entry("batch/jobs", List.of("get", "list", "watch", "patch")),
                Map.entry("kubeflow.org/tfjobs", List.of("get", "list", "watch", "patch")),
                Map.entry("kubeflow.org/pytorchjobs", List.of("get", "list", "watch", "patch")),
                Map.entry("kubeflow.org/mpijobs", List.of("get", "list", "watch", "patch")),
                Map.entry("kubeflow.org/tfjobs/status", List.of("patch")),
                Map.entry("kubeflow.org/pytorchjobs/status", List.of("patch")),
                Map.entry("argoproj.io/workflows", List.of("get", "list", "watch", "patch")),
                Map.entry("kube-queue.io/queuedkinds", List.of("get", "list", "watch")),
                Map.entry("kube-queue.io/queuedkinds/status", List.of("patch")),
                Map.entry("authorization.k8s.io/selfsubjectaccessreviews", List.of("create")),
                Map.entry("apiextensions.k8s.io/customresourcedefinitions", List.of("get")),
                Map.entry("core/pods", List.of("list", "watch")),
                Map.entry("core/resourcequotas", List.of("list", "watch")),
                Map.entry("scheduling.k8s.io/priorityclasses", List.of("list", "watch")),
                Map.entry("core/limitranges", List.of("list", "watch")),
                Map.entry("node.k8s.io/runtimeclasses", List.of("list", "watch")),
                Map.entry("events.k8s.io/events", List.of("create")),
                Map.entry("authentication.k8s.io/tokenreviews", List.of("create")),
                Map.entry("authorization.k8s.io/subjectaccessreviews", List.of("create")),
                Map.entry("apiregistration.k8s.io/apiservices", List.of("get", "patch")),
                Map.entry("admissionregistration.k8s.io/mutatingwebhookconfigurations", List.of("get", "patch")))),
                grants(manifests.get(ClusterRole.class, "kube-queue-controller").getRules()));
        Role lease = manifests.get(Role.class, "kube-queue-controller-leader-election");
        assertEquals("kube-queue", lease.getMetadata().getNamespace());
        // fabric8's LeaseLock creates the Lease, then renews, takes over and hands it back with a merge PATCH
        assertEquals(Map.of("coordination.k8s.io/leases", List.of("get", "create", "patch")),
                grants(lease.getRules()));
        // the record key: its Secret read by name, created once if missing (a create cannot be limited to a name)
        Role recordKey = manifests.get(Role.class, "kube-queue-controller-record-key");
        assertEquals("kube-queue", recordKey.getMetadata().getNamespace());
        assertEquals(2, recordKey.getRules().size());
        assertEquals(Map.of("core/secrets", List.of("get")), grants(recordKey.getRules().subList(0, 1)));
        assertEquals(List.of("kube-queue-record-key"), recordKey.getRules().get(0).getResourceNames(),
                "get of that Secret only");
        assertEquals(Map.of("core/secrets", List.of("create")), grants(recordKey.getRules().subList(1, 2)));
        Role tree = manifests.get(Role.class, "kube-queue-controller-quota-tree");
        assertEquals("kube-system", tree.getMetadata().getNamespace());
        assertEquals(Map.of("scheduling.sigs.k8s.io/elasticquotatrees", List.of("get", "list", "watch"),
                "scheduling.sigs.k8s.io/elasticquotatrees/status", List.of("patch")), grants(tree.getRules()));
        // the readers' Role: the service proxy to kube-queue's own Service, bound by no one until an admin does
        Role reader = manifests.get(Role.class, "kube-queue-reader");
        assertEquals("kube-queue", reader.getMetadata().getNamespace());
        assertEquals(Map.of("core/services/proxy", List.of("get", "create")), grants(reader.getRules()));
        assertEquals(List.of("kube-queue-controller", "kube-queue-controller:http"),
                reader.getRules().get(0).getResourceNames());
        // nothing else grants anything: the controller's ClusterRole and four Roles, bound to its account only (and
        // Kubernetes' extension-apiserver-authentication-reader); the users' ClusterRoles, bound to no one
        assertEquals(List.of("kube-queue-controller", "kube-queue-visibility-edit", "kube-queue-visibility-quotagroups",
                "kube-queue-visibility-view", "kube-queue-visibility-whatifs"),
                names("ClusterRole").stream().sorted().toList());
        assertEquals(List.of("kube-queue-controller", "kube-queue-controller-auth-reader",
                "kube-queue-controller-leader-election", "kube-queue-controller-quota-tree",
                "kube-queue-controller-record-key", "kube-queue-controller-serving"),
                java.util.stream.Stream.concat(names("ClusterRoleBinding").stream(), names("RoleBinding").stream())
                        .sorted().toList());
        for (HasMetadata binding : manifests.objects()) {
            List<io.fabric8.kubernetes.api.model.rbac.Subject> subjects = binding instanceof
                    io.fabric8.kubernetes.api.model.rbac.RoleBinding b ? b.getSubjects()
                    : binding instanceof io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding b ? b.getSubjects() : null;
            if (subjects != null) {
                assertEquals(List.of(new io.fabric8.kubernetes.api.model.rbac.Subject(null, "ServiceAccount",
                        "kube-queue-controller", "kube-queue")), subjects, binding.getMetadata().getName());
            }
        }
        // the namespace enforces the Pod Security Standard the pod meets
        assertEquals("restricted", manifests.get(io.fabric8.kubernetes.api.model.Namespace.class, "kube-queue")
                .getMetadata().getLabels().get("pod-security.kubernetes.io/enforce"));
    }

    /**
     * The HTTPS port's rights are exactly what {@code io.kubequeue.serving} calls, each limited by name to the objects
     * kube-queue's settings name by default: get and patch of the APIService and of the webhook configuration (their
     * caBundle), get and update of the self-signed certificate's Secret (create: the record key's Role), get of the
     * front proxy's ConfigMap through Kubernetes' own Role; no wildcard in any shipped role.
     */
    @Test
    void theHttpsPortsRightsAreExactlyTheObjectsItWritesByName() {
        var serving = io.kubequeue.testing.TestConfig.kubeQueue(Map.of()).serving();
        List<PolicyRule> servingRules = manifests.get(ClusterRole.class, "kube-queue-controller").getRules().stream()
                .filter(r -> r.getApiGroups().contains("apiregistration.k8s.io")
                        || r.getApiGroups().contains("admissionregistration.k8s.io")).toList();
        assertEquals(List.of(
                new io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder().withApiGroups("apiregistration.k8s.io")
                        .withResources("apiservices").withResourceNames(serving.apiService()).withVerbs("get", "patch")
                        .build(),
                new io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder()
                        .withApiGroups("admissionregistration.k8s.io").withResources("mutatingwebhookconfigurations")
                        .withResourceNames(serving.webhookConfiguration()).withVerbs("get", "patch").build()),
                servingRules);
        Role secret = manifests.get(Role.class, "kube-queue-controller-serving");
        assertEquals("kube-queue", secret.getMetadata().getNamespace(), "kube-queue's namespace (POD_NAMESPACE)");
        assertEquals(List.of(new io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder().withApiGroups("")
                .withResources("secrets").withResourceNames(serving.secret()).withVerbs("get", "update").build()),
                secret.getRules());
        assertTrue(manifests.get(Role.class, "kube-queue-controller-record-key").getRules().stream()
                .anyMatch(r -> r.getResources().equals(List.of("secrets")) && r.getVerbs().equals(List.of("create"))
                        && (r.getResourceNames() == null || r.getResourceNames().isEmpty())),
                "the Secret's create comes from the record key's Role, in the same namespace");
        var reader = manifests.get(io.fabric8.kubernetes.api.model.rbac.RoleBinding.class,
                "kube-queue-controller-auth-reader");
        assertEquals("kube-system", reader.getMetadata().getNamespace());
        assertEquals(new io.fabric8.kubernetes.api.model.rbac.RoleRef("rbac.authorization.k8s.io", "Role",
                "extension-apiserver-authentication-reader"), reader.getRoleRef());
        for (HasMetadata o : manifests.objects()) {
            List<PolicyRule> rules = o instanceof ClusterRole r ? r.getRules() : o instanceof Role r ? r.getRules() : null;
            if (rules != null) {
                assertTrue(rules.stream().noneMatch(r -> r.getVerbs().contains("*") || r.getResources().contains("*")
                        || r.getApiGroups().contains("*")), "a wildcard in " + o.getKind() + " " + o.getMetadata().getName());
            }
        }
        Map<String, String> env = Rendered.literalEnv(manifests.controller());
        assertEquals("true", env.get("KUBE_QUEUE_SERVING_ENABLED"), "the HTTPS port is off in code, on as shipped");
        assertEquals(serving.port(), manifests.controller().getPorts().stream().filter(p -> "https".equals(p.getName()))
                .findFirst().orElseThrow().getContainerPort(), "the container's https port is where kube-queue listens");
    }

    /**
     * The APIService names kube-queue's Service and its HTTPS port, and leaves the caBundle to kube-queue; the users'
     * ClusterRoles grant what docs/visibility.md says, aggregated as it says.
     */
    @Test
    void theVisibilityApiIsRegisteredOnTheHttpsPortAndReadersGetItThroughViewEditAdmin() {
        var serving = io.kubequeue.testing.TestConfig.kubeQueue(Map.of()).serving();
        com.fasterxml.jackson.databind.JsonNode apiService = object("APIService", serving.apiService());
        var spec = apiService.path("spec");
        assertEquals("visibility.kube-queue.io", spec.path("group").asText());
        assertEquals("v1alpha1", spec.path("version").asText());
        assertEquals(serving.service(), spec.path("service").path("name").asText());
        assertEquals("kube-queue", spec.path("service").path("namespace").asText());
        assertEquals(httpsServicePort(), spec.path("service").path("port").asInt());
        assertFalse(spec.has("caBundle"), "kube-queue writes it");
        assertFalse(spec.path("insecureSkipTLSVerify").asBoolean(true));
        assertEquals(1000, spec.path("groupPriorityMinimum").asInt());
        assertEquals(15, spec.path("versionPriority").asInt());

        String group = "visibility.kube-queue.io";
        Map<String, String> aggregated = Map.of("rbac.authorization.k8s.io/aggregate-to-view", "true",
                "rbac.authorization.k8s.io/aggregate-to-edit", "true", "rbac.authorization.k8s.io/aggregate-to-admin", "true");
        ClusterRole view = manifests.get(ClusterRole.class, "kube-queue-visibility-view");
        assertEquals(aggregated, view.getMetadata().getLabels());
        assertEquals(Map.of(group + "/pendingjobs", List.of("get", "list")), grants(view.getRules()));
        ClusterRole edit = manifests.get(ClusterRole.class, "kube-queue-visibility-edit");
        assertEquals(Map.of("rbac.authorization.k8s.io/aggregate-to-edit", "true",
                "rbac.authorization.k8s.io/aggregate-to-admin", "true"), edit.getMetadata().getLabels());
        assertEquals(Map.of(group + "/dryruns", List.of("create")), grants(edit.getRules()));
        ClusterRole quotaGroups = manifests.get(ClusterRole.class, "kube-queue-visibility-quotagroups");
        assertTrue(quotaGroups.getMetadata().getLabels() == null || quotaGroups.getMetadata().getLabels().keySet()
                .stream().noneMatch(k -> k.startsWith("rbac.authorization.k8s.io/aggregate-to-")), "not aggregated");
        assertEquals(Map.of(group + "/quotagroups", List.of("get", "list"), group + "/quotagroups/pendingjobs",
                List.of("get")), grants(quotaGroups.getRules()));
        ClusterRole whatIfs = manifests.get(ClusterRole.class, "kube-queue-visibility-whatifs");
        assertTrue(whatIfs.getMetadata().getLabels() == null || whatIfs.getMetadata().getLabels().keySet()
                .stream().noneMatch(k -> k.startsWith("rbac.authorization.k8s.io/aggregate-to-")),
                "cluster-scoped: not aggregated");
        assertEquals(Map.of(group + "/whatifs", List.of("create")), grants(whatIfs.getRules()));
    }

    /**
     * The webhook configuration: kube-queue's Service and HTTPS port, labelled namespaces only and never the cluster's
     * own or kube-queue's, every job of which kube-queue suspends when a quota group lists it; Ignore on failure.
     */
    @Test
    void theWebhookIsCalledForLabelledNamespacesOnlyAndIgnoredWhenKubeQueueIsDown() {
        var serving = io.kubequeue.testing.TestConfig.kubeQueue(Map.of()).serving();
        var configuration = manifests.get(
                io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration.class,
                serving.webhookConfiguration());
        assertEquals(List.of("jobs.suspend-at-creation.kube-queue.io", "kubeflow.suspend-at-creation.kube-queue.io"),
                configuration.getWebhooks().stream().map(w -> w.getName()).toList());
        for (var hook : configuration.getWebhooks()) {
            var service = hook.getClientConfig().getService();
            assertEquals(List.of(serving.service(), "kube-queue", "/webhooks/suspend-at-creation", httpsServicePort()),
                    List.of(service.getName(), service.getNamespace(), service.getPath(), service.getPort()));
            assertEquals(null, hook.getClientConfig().getCaBundle(), "kube-queue writes it");
            assertEquals(List.of("v1"), hook.getAdmissionReviewVersions());
            assertEquals(List.of("None", 5, "Ignore", "Equivalent", "Never"), List.of(hook.getSideEffects(),
                    hook.getTimeoutSeconds(), hook.getFailurePolicy(), hook.getMatchPolicy(), hook.getReinvocationPolicy()));
            assertEquals(Map.of("kube-queue.io/suspend-at-creation", "true"), hook.getNamespaceSelector().getMatchLabels());
            var excluded = hook.getNamespaceSelector().getMatchExpressions();
            assertEquals(1, excluded.size());
            assertEquals(List.of("kubernetes.io/metadata.name", "NotIn"), List.of(excluded.get(0).getKey(),
                    excluded.get(0).getOperator()));
            assertTrue(excluded.get(0).getValues().containsAll(List.of("kube-system", "kube-queue")),
                    excluded.get(0).getValues().toString());
        }
        assertEquals("*", Rendered.literalEnv(manifests.controller()).get("KUBE_QUEUE_SERVING_SUSPEND_AT_CREATION_IN"),
                "a labelled namespace's jobs are suspended when a quota group lists it");
    }

    /** The port of Service kube-queue-controller named https, which must target the container's https port. */
    private int httpsServicePort() {
        var port = manifests.get(Service.class, "kube-queue-controller").getSpec().getPorts().stream()
                .filter(p -> "https".equals(p.getName())).findFirst().orElseThrow();
        int container = manifests.controller().getPorts().stream().filter(p -> "https".equals(p.getName()))
                .findFirst().orElseThrow().getContainerPort();
        assertEquals(container, port.getTargetPort().getIntVal());
        return port.getPort();
    }

    /** The generated object of this kind and name as a JSON tree (for kinds fabric8 has no model of). */
    private static com.fasterxml.jackson.databind.JsonNode object(String kind, String name) {
        return io.kubequeue.testing.ApiServerRules.readAll(java.nio.file.Path.of("target", "kubernetes", "kubernetes.yml"))
                .stream().filter(o -> kind.equals(o.path("kind").asText())
                        && name.equals(o.path("metadata").path("name").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in the generated manifests"));
    }

    private List<String> names(String kind) {
        return manifests.ofKind(kind).stream().map(HasMetadata::getMetadata).map(m -> m.getName()).toList();
    }
}
