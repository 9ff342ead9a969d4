package io.kubequeue.packaged;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assertEquals("http", manifests.get(Service.class, "kube-queue-controller").getSpec().getPorts().get(0).getName());
        assertTrue(manifests.ofKind("ServiceMonitor").isEmpty(), "the ServiceMonitor only when asked for");
        // health and metrics on the management interface, apart from the read API (port 8080 only)
        assertEquals(List.of(9000, 9000), List.of(c.getReadinessProbe().getHttpGet().getPort().getIntVal(),
                c.getLivenessProbe().getHttpGet().getPort().getIntVal()));
        assertEquals(List.of(80), manifests.get(Service.class, "kube-queue-controller").getSpec().getPorts().stream()
                .map(p -> p.getPort()).toList(), "the read API's Service carries no health or metrics port");
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
                Map.entry("core/pods", List.of("list", "watch")),
                Map.entry("core/resourcequotas", List.of("list", "watch")),
                Map.entry("scheduling.k8s.io/priorityclasses", List.of("list", "watch")),
                Map.entry("core/limitranges", List.of("list", "watch")),
                Map.entry("node.k8s.io/runtimeclasses", List.of("list", "watch")),
                Map.entry("events.k8s.io/events", List.of("create")),
                Map.entry("authentication.k8s.io/tokenreviews", List.of("create")),
                Map.entry("authorization.k8s.io/subjectaccessreviews", List.of("create")))),
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
        // nothing else grants anything: one ClusterRole, three Roles bound to the controller's account only
        assertEquals(List.of("kube-queue-controller"), names("ClusterRole"));
        assertEquals(4, manifests.ofKind("ClusterRoleBinding").size() + manifests.ofKind("RoleBinding").size());
        assertTrue(manifests.ofKind("RoleBinding").stream().noneMatch(b -> b.getMetadata().getName()
                .equals("kube-queue-reader")));
        // the namespace enforces the Pod Security Standard the pod meets
        assertEquals("restricted", manifests.get(io.fabric8.kubernetes.api.model.Namespace.class, "kube-queue")
                .getMetadata().getLabels().get("pod-security.kubernetes.io/enforce"));
    }

    private List<String> names(String kind) {
        return manifests.ofKind(kind).stream().map(HasMetadata::getMetadata).map(m -> m.getName()).toList();
    }
}
