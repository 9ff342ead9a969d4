package io.kubequeue.packaged;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;

/**
 * The Helm chart in {@code helm/kube-queue}, linted and rendered with helm itself (helm-java bundles it), and
 * held to the manifests generated at package: same RBAC, same CRD, and the seed's env vars set from the values
 * of the same names (the original chart swapped the two Strict switches).
 */
class HelmChartIT {

    private static final Path CHART = Path.of("helm", "kube-queue");

    private static Rendered template(Map<String, Object> values) {
        TemplateCommand command = new Helm(CHART).template().withName("kq").withNamespace("kube-queue")
                .withKubeVersion("1.31.0");
        values.forEach(command::set);
        return Rendered.of(command.call());
    }

    @Test
    void lintsCleanlyEvenStrictly() {
        LintResult lint = new Helm(CHART).lint().strict().call();
        assertFalse(lint.isFailed(), () -> String.join("\n", lint.getMessages()));
    }

    @Test
    void defaultsRenderTheSeedsSettingsProbesAndARestrictedContainer() {
        Rendered rendered = template(Map.of());
        Container c = rendered.controller();
        Map<String, String> env = Rendered.literalEnv(c);
        assertEquals("elasticquota", env.get("QueueGroupPlugin"));
        assertEquals("false", env.get("StrictPriority"));
        assertEquals("false", env.get("StrictConsistency"));
        assertEquals("kube-system", env.get("KUBE_QUEUE_ELASTIC_QUOTA_NAMESPACE"));
        assertFalse(env.containsKey("KUBE_QUEUE_DISABLED_KINDS"), "every kind is managed by default");
        assertFalse(env.containsKey("KUBE_QUEUE_WATCH_NAMESPACES"), "every namespace by default");
        assertEquals("/q/health/ready", c.getReadinessProbe().getHttpGet().getPath());
        assertEquals("/q/health/live", c.getLivenessProbe().getHttpGet().getPath());
        assertEquals("/q/health/started", c.getStartupProbe().getHttpGet().getPath());
        assertEquals(Boolean.FALSE, c.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals(Boolean.TRUE, c.getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals("RuntimeDefault", c.getSecurityContext().getSeccompProfile().getType(),
                "Pod Security 'restricted' refuses a pod without it");
        assertEquals(Boolean.TRUE, rendered.get(Deployment.class, "kube-queue-controller").getSpec().getTemplate()
                .getSpec().getSecurityContext().getRunAsNonRoot());
        assertNotNull(c.getResources().getLimits().get("memory"));
        assertEquals("http", rendered.get(Service.class, "kube-queue-controller").getSpec().getPorts().get(0).getName(),
                "kubectl queue proxies to services/kube-queue-controller:http");
        // health and metrics on the management interface, as in the manifests
        Rendered generated = Rendered.generatedManifests();
        assertEquals(new java.util.HashSet<>(generated.controller().getPorts()), new java.util.HashSet<>(c.getPorts()));
        assertEquals(generated.controller().getReadinessProbe().getHttpGet().getPort(),
                c.getReadinessProbe().getHttpGet().getPort());
        assertEquals(generated.get(Service.class, "kube-queue-controller-management").getSpec().getPorts(),
                rendered.get(Service.class, "kube-queue-controller-management").getSpec().getPorts());
        assertEquals(List.of(80), rendered.get(Service.class, "kube-queue-controller").getSpec().getPorts().stream()
                .map(p -> p.getPort()).toList());
        assertTrue(rendered.ofKind("ServiceMonitor").isEmpty(), "the ServiceMonitor only when asked for");
    }

    @Test
    void nonDefaultValuesReachTheEnvVarsOfTheSameNames() {
        Rendered rendered = template(Map.ofEntries(Map.entry("queueGroupPlugin", "resourcequota"),
                Map.entry("strictPriority", "true"), Map.entry("replicas", "2"),
                Map.entry("jobKinds.Workflow", "false"), Map.entry("jobKinds.MPIJob", "false"),
                Map.entry("serviceMonitor.enabled", "true"), Map.entry("watchNamespaces[0]", "team-a"),
                Map.entry("watchNamespaces[1]", "team-b"),
                Map.entry("extraEnv[0].name", "KUBE_QUEUE_BACKOFF_MAX"), Map.entry("extraEnv[0].value", "30s"),
                Map.entry("nodeSelector.pool", "system"), Map.entry("config", "kube-queue.backoff.initial=2s")));
        Map<String, String> env = Rendered.literalEnv(rendered.controller());
        assertEquals("resourcequota", env.get("QueueGroupPlugin"));
        assertEquals("true", env.get("StrictPriority"), "strictPriority sets StrictPriority");
        assertEquals("false", env.get("StrictConsistency"), "and leaves StrictConsistency alone");
        assertEquals("MPIJob,Workflow", env.get("KUBE_QUEUE_DISABLED_KINDS"));
        assertEquals("team-a,team-b", env.get("KUBE_QUEUE_WATCH_NAMESPACES"));
        assertEquals("30s", env.get("KUBE_QUEUE_BACKOFF_MAX"));
        Deployment deployment = rendered.get(Deployment.class, "kube-queue-controller");
        assertEquals(2, deployment.getSpec().getReplicas());
        assertEquals("system", deployment.getSpec().getTemplate().getSpec().getNodeSelector().get("pool"));
        assertEquals(1, rendered.ofKind("ServiceMonitor").size());
        assertTrue(rendered.get(ConfigMap.class, "kube-queue-config").getData().get("application.properties")
                .contains("kube-queue.backoff.initial=2s"));
        Map<String, String> swapped = Rendered.literalEnv(template(Map.of("strictConsistency", "true")).controller());
        assertEquals("true", swapped.get("StrictConsistency"));
        assertEquals("false", swapped.get("StrictPriority"));
    }

    @Test
    void reclaimAndTheAdmissionTimeoutReachTheirEnvVarsAndBadValuesAreRefused() {
        Map<String, String> defaults = Rendered.literalEnv(template(Map.of()).controller());
        assertEquals("false", defaults.get("KUBE_QUEUE_RECLAIM_ENABLED"));
        assertEquals("3", defaults.get("KUBE_QUEUE_RECLAIM_MAX_PER_HOUR"));
        assertFalse(defaults.containsKey("KUBE_QUEUE_ADMISSION_TIMEOUT"), "off by default");

        Map<String, String> set = Rendered.literalEnv(template(Map.of("reclaim.enabled", "true",
                "reclaim.maxPerHour", "5", "admissionTimeout.global", "1h30m")).controller());
        assertEquals("true", set.get("KUBE_QUEUE_RECLAIM_ENABLED"));
        assertEquals("5", set.get("KUBE_QUEUE_RECLAIM_MAX_PER_HOUR"));
        assertEquals("1h30m", set.get("KUBE_QUEUE_ADMISSION_TIMEOUT"));

        for (Map.Entry<String, String> bad : Map.of("reclaim.maxPerHour", "0", "admissionTimeout.global", "-5m")
                .entrySet()) {
            Exception e = assertThrows(Exception.class, () -> template(Map.of(bad.getKey(), bad.getValue())));
            assertTrue(e.getMessage().contains(bad.getKey().substring(bad.getKey().indexOf('.') + 1)), e.getMessage());
        }
        Exception soon = assertThrows(Exception.class, () -> template(Map.of("admissionTimeout.global", "soon")));
        assertTrue(soon.getMessage().contains("global"), soon.getMessage());
    }

    @Test
    void theJvmOptionsAndShutdownDeadlineAreTheManifestsAndFollowTheGracePeriod() {
        Rendered defaults = template(Map.of());
        Map<String, String> env = Rendered.literalEnv(defaults.controller());
        Map<String, String> generated = Rendered.literalEnv(Rendered.generatedManifests().controller());
        assertEquals(generated.get("JAVA_TOOL_OPTIONS"), env.get("JAVA_TOOL_OPTIONS"));
        assertEquals(generated.get("KUBE_QUEUE_SHUTDOWN_DEADLINE"), env.get("KUBE_QUEUE_SHUTDOWN_DEADLINE"));
        assertEquals(30L, defaults.get(Deployment.class, "kube-queue-controller").getSpec().getTemplate().getSpec()
                .getTerminationGracePeriodSeconds());

        Rendered longer = template(Map.of("terminationGracePeriodSeconds", "120", "jvmOptions", ""));
        assertEquals(120L, longer.get(Deployment.class, "kube-queue-controller").getSpec().getTemplate().getSpec()
                .getTerminationGracePeriodSeconds());
        Map<String, String> longerEnv = Rendered.literalEnv(longer.controller());
        assertEquals("115s", longerEnv.get("KUBE_QUEUE_SHUTDOWN_DEADLINE"), "5 s before Kubernetes would kill it");
        assertFalse(longerEnv.containsKey("JAVA_TOOL_OPTIONS"), "empty jvmOptions: the JVM's defaults");
    }

    @Test
    void withoutLeaderElectionTheOldPodStopsBeforeTheNewOneStarts() {
        assertEquals("Recreate", template(Map.of("leaderElection.enabled", "false")).get(Deployment.class,
                "kube-queue-controller").getSpec().getStrategy().getType(), "no two admitting pods during a rollout");
        Deployment elected = template(Map.of()).get(Deployment.class, "kube-queue-controller");
        assertTrue(elected.getSpec().getStrategy() == null || !"Recreate".equals(elected.getSpec().getStrategy().getType()),
                "with a Lease a rolling update is safe: the new pod follows until the old one hands the Lease over");
    }

    @Test
    void priorityClassSecurityContextsSpreadDisruptionBudgetAndOneScrapePath() {
        Rendered defaults = template(Map.of());
        var pod = defaults.get(Deployment.class, "kube-queue-controller").getSpec().getTemplate();
        assertEquals(null, pod.getSpec().getPriorityClassName());
        assertEquals(List.of(), defaults.ofKind("PodDisruptionBudget"), "one replica: no budget to block a drain");
        assertEquals("true", pod.getMetadata().getAnnotations().get("prometheus.io/scrape"));

        Rendered ha = template(Map.ofEntries(Map.entry("replicas", "2"),
                Map.entry("priorityClassName", "system-cluster-critical"),
                Map.entry("securityContext.readOnlyRootFilesystem", "false"),
                Map.entry("podSecurityContext.runAsUser", "1001"),
                Map.entry("topologySpreadConstraints[0].topologyKey", "kubernetes.io/hostname"),
                Map.entry("topologySpreadConstraints[0].maxSkew", "1"),
                Map.entry("topologySpreadConstraints[0].whenUnsatisfiable", "ScheduleAnyway"),
                Map.entry("serviceMonitor.enabled", "true")));
        var haPod = ha.get(Deployment.class, "kube-queue-controller").getSpec().getTemplate();
        assertEquals("system-cluster-critical", haPod.getSpec().getPriorityClassName());
        assertEquals(Boolean.FALSE, ha.controller().getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals("RuntimeDefault", ha.controller().getSecurityContext().getSeccompProfile().getType(),
                "an override of one field keeps the others");
        assertEquals(1001L, haPod.getSpec().getSecurityContext().getRunAsUser());
        assertEquals(Boolean.TRUE, haPod.getSpec().getSecurityContext().getRunAsNonRoot());
        assertEquals("kubernetes.io/hostname", haPod.getSpec().getTopologySpreadConstraints().get(0).getTopologyKey());
        assertEquals(1, ha.ofKind("PodDisruptionBudget").size(), "two replicas: one stays up through a drain");
        assertFalse(haPod.getMetadata().getAnnotations().containsKey("prometheus.io/scrape"),
                "with the ServiceMonitor on, the pods are not also scraped by annotation");
    }

    /** Issue 29, item 2: where jobs that skip the queue are charged reaches its env var; nowhere by default. */
    @Test
    void jobsThatSkipTheQueueAreChargedOnlyWhereAskedFor() {
        assertFalse(Rendered.literalEnv(template(Map.of()).controller()).containsKey("KUBE_QUEUE_CHARGE_UNSUSPENDED_IN"));
        assertEquals("*", Rendered.literalEnv(template(Map.of("chargeUnsuspendedIn[0]", "*")).controller())
                .get("KUBE_QUEUE_CHARGE_UNSUSPENDED_IN"));
        assertEquals("team-a,team-b", Rendered.literalEnv(template(Map.of("chargeUnsuspendedIn[0]", "team-a",
                "chargeUnsuspendedIn[1]", "team-b")).controller()).get("KUBE_QUEUE_CHARGE_UNSUSPENDED_IN"));
        assertThrows(IllegalStateException.class, () -> template(Map.of("chargeUnsuspendedIn[0]", "Team A")));
    }

    /** Issue 29, item 5: the log format's switch reaches its env var, text by default; a non-boolean is refused. */
    @Test
    void logsAreTextByDefaultAndJsonWhenAskedFor() {
        assertEquals("false", Rendered.literalEnv(template(Map.of()).controller()).get("KUBE_QUEUE_LOG_JSON"));
        assertEquals("true", Rendered.literalEnv(template(Map.of("logs.json", "true")).controller())
                .get("KUBE_QUEUE_LOG_JSON"));
        assertThrows(IllegalStateException.class, () -> template(Map.of("logs.json", "yes")));
    }

    @Test
    void thePrometheusRuleIsOffByDefaultAndCarriesTheAlertsWithTheirThresholds() {
        assertEquals(List.of(), template(Map.of()).ofKind("PrometheusRule"));
        List<HasMetadata> rules = template(Map.of("prometheusRule.enabled", "true",
                "prometheusRule.oldestPendingSeconds", "600", "prometheusRule.labels.release", "prom"))
                .ofKind("PrometheusRule");
        assertEquals(1, rules.size());
        assertEquals("prom", rules.get(0).getMetadata().getLabels().get("release"), "the labels Prometheus selects on");
        com.fasterxml.jackson.databind.JsonNode alerts = new com.fasterxml.jackson.databind.ObjectMapper()
                .valueToTree(rules.get(0)).path("spec").path("groups").path(0).path("rules");
        Map<String, String> exprByAlert = new java.util.TreeMap<>();
        alerts.forEach(r -> exprByAlert.put(r.path("alert").asText(), r.path("expr").asText()));
        assertEquals(List.of("KubeQueueAdmissionPatchesFailing", "KubeQueueAdmissionsStuck", "KubeQueueHeadFitsButWaits",
                "KubeQueueInvalidJobs", "KubeQueueNoLeader", "KubeQueueNoQuotaGroups", "KubeQueueOldestPendingJob",
                "KubeQueueTwoLeaders"), List.copyOf(exprByAlert.keySet()));
        assertEquals("max by (quota_group) (kube_queue_head_fits) == 1", exprByAlert.get("KubeQueueHeadFitsButWaits"));
        assertTrue(exprByAlert.get("KubeQueueOldestPendingJob").endsWith("> 600"), exprByAlert.toString());
        assertTrue(exprByAlert.get("KubeQueueAdmissionPatchesFailing").trim().endsWith("> 0.1"), exprByAlert.toString());
        alerts.forEach(r -> assertTrue(r.path("annotations").path("summary").asText().length() > 10,
                r.path("alert").asText() + " has a summary"));
        assertTrue(alerts.findValuesAsText("summary").toString().contains("{{ $labels.quota_group }}"),
                "Prometheus' template, not Helm's, fills in the group");
    }

    @Test
    void badValuesAreRefusedWithTheValidOnes() {
        Exception plugin = assertThrows(Exception.class, () -> template(Map.of("queueGroupPlugin", "quota")));
        assertTrue(plugin.getMessage().contains("elasticquota") && plugin.getMessage().contains("resourcequota"),
                plugin.getMessage());
        Exception duration = assertThrows(Exception.class,
                () -> template(Map.of("leaderElection.leaseDuration", "10s5ms"))); // Quarkus would refuse it at start
        assertTrue(duration.getMessage().contains("leaseDuration"), duration.getMessage());
        Exception replicas = assertThrows(Exception.class,
                () -> template(Map.of("replicas", "2", "leaderElection.enabled", "false")));
        assertTrue(replicas.getMessage().contains("leaderElection.enabled"), replicas.getMessage());
        Exception ratio = assertThrows(Exception.class,
                () -> template(Map.of("prometheusRule.enabled", "true", "prometheusRule.failedPatchRatio", "2")));
        assertTrue(ratio.getMessage().contains("failedPatchRatio"), ratio.getMessage());
    }

    /**
     * The chart grants the generated manifests' rules less what its quota plugin does not read (the manifests keep
     * both: their plugin is switched by editing the Deployment), less pods when neither an admission timeout nor
     * reclaim can apply under the ElasticQuotaTree plugin, and, with the read API open, the two reviews.
     */
    @Test
    void rbacIsTheGeneratedRbacLessWhatThePluginTimeoutAndReadApiDoNotUse() {
        Rendered generated = Rendered.generatedManifests();
        List<PolicyRule> all = generated.get(ClusterRole.class, "kube-queue-controller").getRules();
        java.util.function.Predicate<PolicyRule> pods = r -> r.getApiGroups().equals(List.of(""))
                && r.getResources().contains("pods");
        java.util.function.Predicate<PolicyRule> resourceQuotas = r -> r.getApiGroups().equals(List.of(""))
                && r.getResources().contains("resourcequotas");
        java.util.function.Predicate<PolicyRule> reviews = r -> r.getApiGroups().contains("authentication.k8s.io")
                || r.getApiGroups().contains("authorization.k8s.io");

        Rendered elastic = template(Map.of());
        assertEquals(all.stream().filter(resourceQuotas.negate()).toList(),
                elastic.get(ClusterRole.class, "kube-queue-controller").getRules(),
                "pods by default: a quota group's annotation may set an admission timeout at any time");
        assertEquals(all.stream().filter(resourceQuotas.negate().and(pods.negate())).toList(),
                template(Map.of("admissionTimeout.perGroup", "false")).get(ClusterRole.class, "kube-queue-controller")
                        .getRules(), "no admission timeout can apply: no pods");
        assertEquals(all.stream().filter(resourceQuotas.negate()).toList(),
                template(Map.of("admissionTimeout.perGroup", "false", "admissionTimeout.global", "15m"))
                        .get(ClusterRole.class, "kube-queue-controller").getRules(), "the global timeout needs pods");
        assertEquals(all.stream().filter(resourceQuotas.negate()).toList(),
                template(Map.of("admissionTimeout.perGroup", "false", "reclaim.enabled", "true"))
                        .get(ClusterRole.class, "kube-queue-controller").getRules(),
                "reclaim needs pods: a victim keeps its room until they are gone");
        Rendered quotas = template(Map.of("queueGroupPlugin", "resourcequota", "admissionTimeout.perGroup", "false"));
        assertEquals(all, quotas.get(ClusterRole.class, "kube-queue-controller").getRules());
        assertTrue(quotas.objects().stream().noneMatch(o -> o.getMetadata().getName()
                .equals("kube-queue-controller-quota-tree")), "no ElasticQuotaTree rights under resourcequota");
        assertEquals(all.stream().filter(resourceQuotas.negate().and(reviews.negate())).toList(),
                template(Map.of("readApi.authentication", "none")).get(ClusterRole.class, "kube-queue-controller")
                        .getRules());
        assertEquals(2, all.stream().filter(reviews).count(), "tokenreviews and subjectaccessreviews, create");

        for (String role : List.of("kube-queue-controller-leader-election", "kube-queue-controller-quota-tree",
                "kube-queue-controller-record-key", "kube-queue-reader")) {
            assertEquals(generated.get(Role.class, role).getRules(), elastic.get(Role.class, role).getRules(), role);
            assertEquals(generated.get(Role.class, role).getMetadata().getNamespace(),
                    elastic.get(Role.class, role).getMetadata().getNamespace(), role);
        }
        assertEquals(List.of("get", "create", "patch"), elastic.get(Role.class, "kube-queue-controller-leader-election")
                .getRules().get(0).getVerbs(), "fabric8's Lease lock renews with a patch, never an update");
        assertTrue(elastic.get(ClusterRole.class, "kube-queue-controller").getRules().stream()
                .noneMatch(r -> r.getVerbs().contains("*") || r.getResources().contains("*")
                        || r.getApiGroups().contains("*")), "no wildcards");
    }

    @Test
    void theReaderRoleGrantsOnlyTheServiceProxyAndIsBoundOnlyWhenAskedFor() {
        Rendered defaults = template(Map.of());
        PolicyRule proxy = defaults.get(Role.class, "kube-queue-reader").getRules().get(0);
        assertEquals(List.of("services/proxy"), proxy.getResources());
        assertTrue(proxy.getResourceNames().contains("kube-queue-controller:http"), proxy.getResourceNames().toString());
        assertTrue(defaults.ofKind("RoleBinding").stream().noneMatch(b -> b.getMetadata().getName()
                .equals("kube-queue-reader")), "not bound by default");
        RoleBinding everyone = template(Map.of("readerRole.bindAllAuthenticated", "true"))
                .get(RoleBinding.class, "kube-queue-reader");
        assertEquals("system:authenticated", everyone.getSubjects().get(0).getName());
        assertEquals("kubernetes", Rendered.literalEnv(defaults.controller()).get("KUBE_QUEUE_READ_API_AUTHENTICATION"));
        assertEquals("none", Rendered.literalEnv(template(Map.of("readApi.authentication", "none")).controller())
                .get("KUBE_QUEUE_READ_API_AUTHENTICATION"));
        assertThrows(Exception.class, () -> template(Map.of("readApi.authentication", "open")));
    }

    /**
     * A second release in another namespace renders cluster-wide objects of the same names, which the first
     * release owns: Helm refuses it (ownership metadata) instead of starting a second leader.
     */
    @Test
    void twoReleasesCollideOnEveryClusterWideName() {
        Rendered first = template(Map.of());
        Rendered second = Rendered.of(new Helm(CHART).template().withName("other").withNamespace("team-queue")
                .withKubeVersion("1.31.0").call());
        java.util.function.Function<Rendered, List<String>> clusterWide = r -> r.objects().stream()
                .filter(o -> o.getMetadata().getNamespace() == null)
                .map(o -> o.getKind() + "/" + o.getMetadata().getName()).sorted().toList();
        assertEquals(List.of("ClusterRole/kube-queue-controller", "ClusterRoleBinding/kube-queue-controller"),
                clusterWide.apply(first));
        assertEquals(clusterWide.apply(first), clusterWide.apply(second));
    }

    @Test
    void theNetworkPolicyLetsInOnlyTheListedPeersTheApiServerAndTheOtherReplicas() {
        assertEquals(List.of(), template(Map.of()).ofKind("NetworkPolicy"), "off by default");
        NetworkPolicy alone = template(Map.of("networkPolicy.enabled", "true", "leaderElection.enabled", "false"))
                .get(NetworkPolicy.class, "kube-queue-controller");
        // an empty `from` would let every source in: no peers listed means no rule, i.e. closed to every pod
        assertEquals(List.of(), alone.getSpec().getIngress(), "nothing listed, one replica: no ingress rule");
        assertEquals(List.of("Ingress"), alone.getSpec().getPolicyTypes());
        // with leader election on, a follower forwards read API calls to the leader: kube-queue's own pods only
        NetworkPolicy closed = template(Map.of("networkPolicy.enabled", "true")).get(NetworkPolicy.class,
                "kube-queue-controller");
        assertEquals(1, closed.getSpec().getIngress().size(), "nothing listed: the replicas reach each other's read API");
        var replicas = closed.getSpec().getIngress().get(0);
        assertEquals(8080, replicas.getPorts().get(0).getPort().getIntVal());
        assertEquals(1, replicas.getFrom().size());
        assertEquals(closed.getSpec().getPodSelector().getMatchLabels(),
                replicas.getFrom().get(0).getPodSelector().getMatchLabels(), "exactly the controller's pods");
        assertEquals(null, replicas.getFrom().get(0).getNamespaceSelector(), "in the release's namespace only");
        NetworkPolicy policy = template(Map.of("networkPolicy.enabled", "true",
                "networkPolicy.from[0].namespaceSelector.matchLabels.team", "monitoring",
                "networkPolicy.apiServerCIDRs[0]", "10.0.0.1/32")).get(NetworkPolicy.class, "kube-queue-controller");
        assertEquals(1, policy.getSpec().getIngress().size(), "no metricsFrom: the management port stays closed");
        var rule = policy.getSpec().getIngress().get(0);
        assertEquals(8080, rule.getPorts().get(0).getPort().getIntVal());
        assertEquals("monitoring", rule.getFrom().get(0).getNamespaceSelector().getMatchLabels().get("team"));
        assertEquals("10.0.0.1/32", rule.getFrom().get(1).getIpBlock().getCidr());
        assertEquals(replicas.getFrom().get(0), rule.getFrom().get(2));
        assertEquals("kube-queue-controller", policy.getSpec().getPodSelector().getMatchLabels()
                .get("app.kubernetes.io/name"), "selects the controller's pods");
        NetworkPolicy prometheus = template(Map.of("networkPolicy.enabled", "true",
                "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.team", "monitoring"))
                .get(NetworkPolicy.class, "kube-queue-controller");
        assertEquals(2, prometheus.getSpec().getIngress().size(), prometheus.getSpec().getIngress().toString());
        assertEquals(replicas, prometheus.getSpec().getIngress().get(0), "the read API's port: the replicas only");
        var metrics = prometheus.getSpec().getIngress().get(1);
        assertEquals(9000, metrics.getPorts().get(0).getPort().getIntVal());
        assertEquals("monitoring", metrics.getFrom().get(0).getNamespaceSelector().getMatchLabels().get("team"));
        assertThrows(Exception.class, () -> template(Map.of("networkPolicy.apiServerCIDRs[0]", "apiserver")));
        for (NetworkPolicy p : List.of(alone, closed, policy, prometheus)) {
            p.getSpec().getIngress().forEach(r -> assertFalse(r.getFrom() == null || r.getFrom().isEmpty(),
                    "a rule without peers would open its port to every source"));
        }
    }

    @Test
    void theImageIsPulledByDigestWhenOneIsGiven() {
        String digest = "sha256:" + "0123456789abcdef".repeat(4);
        assertEquals("ghcr.io/kube-queue/kube-queue@" + digest,
                template(Map.of("image.digest", digest, "image.tag", "1.2.3")).controller().getImage());
        assertEquals("ghcr.io/kube-queue/kube-queue:1.2.3", template(Map.of("image.tag", "1.2.3")).controller().getImage());
        assertThrows(Exception.class, () -> template(Map.of("image.digest", "latest")));
    }

    @Test
    void helmInstallsTheGeneratedCrd() {
        CustomResourceDefinition generated = Rendered.of(Rendered.generatedCrd())
                .get(CustomResourceDefinition.class, "elasticquotatrees.scheduling.sigs.k8s.io");
        Rendered shipped = Rendered.of(new Helm(CHART).show().crds().call()); // what helm install applies first
        assertEquals(1, shipped.objects().size());
        assertEquals(generated, shipped.get(CustomResourceDefinition.class, "elasticquotatrees.scheduling.sigs.k8s.io"),
                "helm/kube-queue/crds/ is out of date: copy " + Rendered.generatedCrd() + " there");
    }
}
