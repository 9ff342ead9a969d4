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
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
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
        assertEquals(servicePorts(generated), servicePorts(rendered), "the read API's port and the HTTPS port");
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
        java.util.function.Predicate<PolicyRule> tokenReviews = r -> r.getApiGroups().contains("authentication.k8s.io");
        // the read and visibility APIs' reviews of their callers; not kube-queue's review of itself (declared kinds)
        java.util.function.Predicate<PolicyRule> accessReviews = r -> r.getResources().contains("subjectaccessreviews");
        java.util.function.Predicate<PolicyRule> webhook = r -> r.getApiGroups().contains("admissionregistration.k8s.io");
        java.util.function.Predicate<PolicyRule> apiService = r -> r.getApiGroups().contains("apiregistration.k8s.io");
        // the webhook is off by default in the chart (in the manifests a namespace label switches it on)
        java.util.function.Predicate<PolicyRule> byDefault = resourceQuotas.negate().and(webhook.negate());

        Rendered elastic = template(Map.of());
        assertEquals(all.stream().filter(byDefault).toList(),
                elastic.get(ClusterRole.class, "kube-queue-controller").getRules(),
                "pods by default: a quota group's annotation may set an admission timeout at any time");
        assertEquals(all.stream().filter(byDefault.and(pods.negate())).toList(),
                template(Map.of("admissionTimeout.perGroup", "false")).get(ClusterRole.class, "kube-queue-controller")
                        .getRules(), "no admission timeout can apply: no pods");
        assertEquals(all.stream().filter(byDefault).toList(),
                template(Map.of("admissionTimeout.perGroup", "false", "admissionTimeout.global", "15m"))
                        .get(ClusterRole.class, "kube-queue-controller").getRules(), "the global timeout needs pods");
        assertEquals(all.stream().filter(byDefault).toList(),
                template(Map.of("admissionTimeout.perGroup", "false", "reclaim.enabled", "true"))
                        .get(ClusterRole.class, "kube-queue-controller").getRules(),
                "reclaim needs pods: a victim keeps its room until they are gone");
        Rendered quotas = template(Map.of("queueGroupPlugin", "resourcequota", "admissionTimeout.perGroup", "false",
                "suspendAtCreation.enabled", "true", "suspendAtCreation.namespaces[0]", "team-a"));
        assertEquals(all, quotas.get(ClusterRole.class, "kube-queue-controller").getRules());
        assertTrue(quotas.objects().stream().noneMatch(o -> o.getMetadata().getName()
                .equals("kube-queue-controller-quota-tree")), "no ElasticQuotaTree rights under resourcequota");
        assertEquals(all.stream().filter(byDefault.and(tokenReviews.negate())).toList(),
                template(Map.of("readApi.authentication", "none")).get(ClusterRole.class, "kube-queue-controller")
                        .getRules(), "the visibility API still reviews its callers' access");
        assertEquals(all.stream().filter(byDefault.and(tokenReviews.negate()).and(accessReviews.negate())
                        .and(apiService.negate())).toList(),
                template(Map.of("readApi.authentication", "none", "visibility.enabled", "false"))
                        .get(ClusterRole.class, "kube-queue-controller").getRules(), "no API reviews anyone");
        assertEquals(2, all.stream().filter(tokenReviews.or(accessReviews)).count(),
                "tokenreviews and subjectaccessreviews, create");

        for (String role : List.of("kube-queue-controller-leader-election", "kube-queue-controller-quota-tree",
                "kube-queue-controller-record-key", "kube-queue-reader", "kube-queue-controller-serving")) {
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
        assertEquals(List.of("APIService/v1alpha1.visibility.kube-queue.io", "ClusterRole/kube-queue-controller",
                "ClusterRole/kube-queue-visibility-edit", "ClusterRole/kube-queue-visibility-quotagroups",
                "ClusterRole/kube-queue-visibility-view", "ClusterRole/kube-queue-visibility-whatifs",
                "ClusterRoleBinding/kube-queue-controller"),
                clusterWide.apply(first));
        assertEquals(clusterWide.apply(first), clusterWide.apply(second));
    }

    @Test
    void theNetworkPolicyLetsInOnlyTheListedPeersTheApiServerAndTheOtherReplicas() {
        assertEquals(List.of(), template(Map.of()).ofKind("NetworkPolicy"), "off by default");
        // the HTTPS port's rule, open to every source, is theNetworkPolicyOpensTheHttpsPortToEverySource's
        NetworkPolicy alone = template(Map.of("networkPolicy.enabled", "true", "leaderElection.enabled", "false",
                "serving.enabled", "false")).get(NetworkPolicy.class, "kube-queue-controller");
        // an empty `from` would let every source in: no peers listed means no rule, i.e. closed to every pod
        assertEquals(List.of(), alone.getSpec().getIngress(), "nothing listed, one replica: no ingress rule");
        assertEquals(List.of("Ingress"), alone.getSpec().getPolicyTypes());
        // with leader election on, a follower forwards read API calls to the leader: kube-queue's own pods only
        NetworkPolicy closed = template(Map.of("networkPolicy.enabled", "true", "serving.enabled", "false"))
                .get(NetworkPolicy.class, "kube-queue-controller");
        assertEquals(1, closed.getSpec().getIngress().size(), "nothing listed: the replicas reach each other's read API");
        var replicas = closed.getSpec().getIngress().get(0);
        assertEquals(8080, replicas.getPorts().get(0).getPort().getIntVal());
        assertEquals(1, replicas.getFrom().size());
        assertEquals(closed.getSpec().getPodSelector().getMatchLabels(),
                replicas.getFrom().get(0).getPodSelector().getMatchLabels(), "exactly the controller's pods");
        assertEquals(null, replicas.getFrom().get(0).getNamespaceSelector(), "in the release's namespace only");
        NetworkPolicy policy = template(Map.of("networkPolicy.enabled", "true", "serving.enabled", "false",
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
        NetworkPolicy prometheus = template(Map.of("networkPolicy.enabled", "true", "serving.enabled", "false",
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

    // ---- the HTTPS port: the visibility API, the suspend-at-creation webhook, their certificate ----------------

    /** Port name → "port->targetPort" of Service kube-queue-controller. */
    private static Map<String, String> servicePorts(Rendered rendered) {
        Map<String, String> ports = new java.util.TreeMap<>();
        rendered.get(Service.class, "kube-queue-controller").getSpec().getPorts()
                .forEach(p -> ports.put(p.getName(), p.getPort() + "->" + p.getTargetPort().getIntVal()));
        return ports;
    }

    /** The one object of this kind and name as a JSON tree (APIService, cert-manager's kinds: no fabric8 model). */
    private static com.fasterxml.jackson.databind.JsonNode object(List<com.fasterxml.jackson.databind.JsonNode> objects,
                                                                   String kind, String name) {
        return objects.stream().filter(o -> kind.equals(o.path("kind").asText())
                        && name.equals(o.path("metadata").path("name").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    private static List<com.fasterxml.jackson.databind.JsonNode> templateTrees(Map<String, Object> values) {
        TemplateCommand command = new Helm(CHART).template().withName("kq").withNamespace("kube-queue")
                .withKubeVersion("1.31.0");
        values.forEach(command::set);
        return io.kubequeue.testing.ApiServerRules.readAll(command.call());
    }

    private static List<String> kindsAndNames(List<com.fasterxml.jackson.databind.JsonNode> objects) {
        return objects.stream().map(o -> o.path("kind").asText() + "/" + o.path("metadata").path("name").asText())
                .toList();
    }

    private static java.util.Optional<MutatingWebhookConfiguration> webhooks(Rendered rendered) {
        return rendered.objects().stream().filter(MutatingWebhookConfiguration.class::isInstance)
                .map(MutatingWebhookConfiguration.class::cast).findFirst();
    }

    /** The rules of the controller's ClusterRole on the HTTPS port's objects (their caBundle). */
    private static List<PolicyRule> caBundleRules(Rendered rendered) {
        return rendered.get(ClusterRole.class, "kube-queue-controller").getRules().stream()
                .filter(r -> r.getApiGroups().contains("apiregistration.k8s.io")
                        || r.getApiGroups().contains("admissionregistration.k8s.io")).toList();
    }

    /**
     * By default the chart serves the HTTPS port as the manifests do (same env, container port, Service port, the same
     * APIService) with kube-queue's self-signed certificate, and no webhook: its configuration is left out, and so are
     * the right to it and its name in kube-queue's settings (a blank name: kube-queue writes no caBundle there).
     */
    @Test
    void theHttpsPortAndTheVisibilityApiAreTheManifestsAndTheWebhookIsOffByDefault() {
        Rendered rendered = template(Map.of());
        Rendered generated = Rendered.generatedManifests();
        Map<String, String> env = Rendered.literalEnv(rendered.controller());
        assertEquals("true", env.get("KUBE_QUEUE_SERVING_ENABLED"));
        assertEquals("8443", env.get("KUBE_QUEUE_SERVING_PORT"));
        assertEquals(" ", env.get("KUBE_QUEUE_SERVING_WEBHOOK_CONFIGURATION"), "no webhook configuration to write");
        assertFalse(env.containsKey("KUBE_QUEUE_SERVING_API_SERVICE"), "the default name, which the chart installs");
        assertFalse(env.containsKey("KUBE_QUEUE_SERVING_SUSPEND_AT_CREATION_IN"));
        assertFalse(env.containsKey("KUBE_QUEUE_SERVING_CERT_FILE"), "self-signed by default");
        assertEquals(generated.controller().getPorts().stream().filter(p -> p.getName().equals("https")).toList(),
                rendered.controller().getPorts().stream().filter(p -> p.getName().equals("https")).toList());
        assertEquals(webhooks(rendered), java.util.Optional.empty());

        var manifests = io.kubequeue.testing.ApiServerRules.readAll(Path.of("target", "kubernetes",
                "kubernetes.yml"));
        var chart = templateTrees(Map.of());
        assertEquals(object(manifests, "APIService", "v1alpha1.visibility.kube-queue.io").path("spec"),
                object(chart, "APIService", "v1alpha1.visibility.kube-queue.io").path("spec"));
        for (String role : List.of("kube-queue-visibility-view", "kube-queue-visibility-edit",
                "kube-queue-visibility-quotagroups", "kube-queue-visibility-whatifs")) {
            ClusterRole shipped = generated.get(ClusterRole.class, role);
            ClusterRole charted = rendered.get(ClusterRole.class, role);
            assertEquals(shipped.getRules(), charted.getRules(), role);
            Map<String, String> aggregation = new java.util.TreeMap<>(charted.getMetadata().getLabels());
            aggregation.keySet().removeIf(k -> !k.startsWith("rbac.authorization.k8s.io/"));
            assertEquals(shipped.getMetadata().getLabels() == null ? Map.of() : shipped.getMetadata().getLabels(),
                    aggregation, role + ": aggregated as in the manifests");
        }
        var reader = rendered.get(RoleBinding.class, "kube-queue-controller-auth-reader");
        assertEquals("kube-system", reader.getMetadata().getNamespace());
        assertEquals(generated.get(RoleBinding.class, "kube-queue-controller-auth-reader").getRoleRef(),
                reader.getRoleRef());
    }

    /**
     * The HTTPS port's rights in the chart are exactly those of the objects kube-queue writes, by the names its
     * settings give them (io.kubequeue.config.KubeQueueConfig.Serving's defaults), for what the values switch on, and
     * no role of the chart holds a wildcard.
     */
    @Test
    void theHttpsPortsRightsAreExactlyWhatTheValuesSwitchOn() {
        var serving = io.kubequeue.testing.TestConfig.kubeQueue(Map.of()).serving();
        PolicyRule apiService = new io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder()
                .withApiGroups("apiregistration.k8s.io").withResources("apiservices")
                .withResourceNames(serving.apiService()).withVerbs("get", "patch").build();
        PolicyRule webhook = new io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder()
                .withApiGroups("admissionregistration.k8s.io").withResources("mutatingwebhookconfigurations")
                .withResourceNames(serving.webhookConfiguration()).withVerbs("get", "patch").build();
        PolicyRule secret = new io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder().withApiGroups("")
                .withResources("secrets").withResourceNames(serving.secret()).withVerbs("get", "update").build();
        Map<String, Object> webhookOn = Map.of("suspendAtCreation.enabled", "true",
                "suspendAtCreation.namespaces[0]", "team-a");

        Rendered defaults = template(Map.of());
        assertEquals(List.of(apiService), caBundleRules(defaults));
        assertEquals(List.of(secret), defaults.get(Role.class, "kube-queue-controller-serving").getRules());
        assertEquals("kube-queue", defaults.get(Role.class, "kube-queue-controller-serving").getMetadata().getNamespace());
        assertEquals(List.of(apiService, webhook), caBundleRules(template(webhookOn)));
        Map<String, Object> webhookOnly = new java.util.HashMap<>(webhookOn);
        webhookOnly.put("visibility.enabled", "false");
        assertEquals(List.of(webhook), caBundleRules(template(webhookOnly)));

        for (Map<String, Object> values : List.of(Map.<String, Object>of("serving.enabled", "false"),
                Map.<String, Object>of("serving.certManager.enabled", "true"))) {
            Rendered none = template(values);
            assertEquals(List.of(), caBundleRules(none), values + ": kube-queue writes no caBundle");
            assertTrue(none.ofKind("Role").stream().noneMatch(r -> r.getMetadata().getName()
                    .equals("kube-queue-controller-serving")), values + ": no Secret kube-queue-tls to read or update");
        }
        assertTrue(template(Map.of("serving.enabled", "false")).ofKind("RoleBinding").stream().noneMatch(b -> b
                .getMetadata().getName().equals("kube-queue-controller-auth-reader")), "nothing reads the front proxy's CA");
        for (Rendered r : List.of(defaults, template(webhookOn), template(Map.of("serving.certManager.enabled", "true")))) {
            for (HasMetadata o : r.objects()) {
                List<PolicyRule> rules = o instanceof ClusterRole c ? c.getRules() : o instanceof Role x ? x.getRules() : null;
                if (rules != null) {
                    assertTrue(rules.stream().noneMatch(rule -> rule.getVerbs().contains("*")
                            || rule.getResources().contains("*") || rule.getApiGroups().contains("*")),
                            "a wildcard in " + o.getKind() + " " + o.getMetadata().getName());
                }
            }
        }
    }

    /**
     * suspendAtCreation.namespaces: names become the webhook's namespaceSelector (In) and kube-queue's env var; "*" a
     * selector of every namespace but the cluster's own and the release's, and "*" for kube-queue (the namespaces a
     * quota group lists). The policy and the timeout reach both webhooks; a kind switched off in jobKinds is not sent.
     */
    @Test
    void suspendAtCreationNamespacesBecomeTheSelectorAndTheEnvVar() {
        Rendered named = template(Map.of("suspendAtCreation.enabled", "true", "suspendAtCreation.namespaces[0]", "team-a",
                "suspendAtCreation.namespaces[1]", "team-b"));
        Map<String, String> env = Rendered.literalEnv(named.controller());
        assertEquals("team-a,team-b", env.get("KUBE_QUEUE_SERVING_SUSPEND_AT_CREATION_IN"));
        assertFalse(env.containsKey("KUBE_QUEUE_SERVING_WEBHOOK_CONFIGURATION"), "the default name, installed");
        MutatingWebhookConfiguration configuration = webhooks(named).orElseThrow();
        assertEquals("kube-queue-suspend-at-creation", configuration.getMetadata().getName());
        assertEquals(2, configuration.getWebhooks().size());
        MutatingWebhookConfiguration manifests = Rendered.generatedManifests().get(MutatingWebhookConfiguration.class,
                "kube-queue-suspend-at-creation");
        for (int i = 0; i < 2; i++) {
            var hook = configuration.getWebhooks().get(i);
            var shipped = manifests.getWebhooks().get(i);
            assertEquals(shipped.getName(), hook.getName());
            assertEquals(shipped.getRules(), hook.getRules());
            assertEquals(shipped.getClientConfig(), hook.getClientConfig(), "the same Service, path and port");
            assertEquals(List.of(shipped.getAdmissionReviewVersions(), shipped.getSideEffects(), shipped.getTimeoutSeconds(),
                    shipped.getFailurePolicy(), shipped.getMatchPolicy(), shipped.getReinvocationPolicy()),
                    List.of(hook.getAdmissionReviewVersions(), hook.getSideEffects(), hook.getTimeoutSeconds(),
                    hook.getFailurePolicy(), hook.getMatchPolicy(), hook.getReinvocationPolicy()));
            var selector = hook.getNamespaceSelector();
            assertTrue(selector.getMatchLabels() == null || selector.getMatchLabels().isEmpty(), hook.getName());
            assertEquals(1, selector.getMatchExpressions().size());
            var names = selector.getMatchExpressions().get(0);
            assertEquals(List.of("kubernetes.io/metadata.name", "In", List.of("team-a", "team-b")),
                    List.of(names.getKey(), names.getOperator(), names.getValues()));
        }

        Rendered every = template(Map.of("suspendAtCreation.enabled", "true", "suspendAtCreation.namespaces[0]", "*",
                "suspendAtCreation.failurePolicy", "Fail", "suspendAtCreation.timeoutSeconds", "10"));
        assertEquals("*", Rendered.literalEnv(every.controller()).get("KUBE_QUEUE_SERVING_SUSPEND_AT_CREATION_IN"));
        for (var hook : webhooks(every).orElseThrow().getWebhooks()) {
            var excluded = hook.getNamespaceSelector().getMatchExpressions().get(0);
            assertEquals(List.of("kubernetes.io/metadata.name", "NotIn",
                    List.of("kube-system", "kube-public", "kube-node-lease", "kube-queue")),
                    List.of(excluded.getKey(), excluded.getOperator(), excluded.getValues()), hook.getName());
            assertEquals("Fail", hook.getFailurePolicy());
            assertEquals(10, hook.getTimeoutSeconds());
        }
        Rendered elsewhere = Rendered.of(new Helm(CHART).template().withName("kq").withNamespace("queueing")
                .withKubeVersion("1.31.0").set("suspendAtCreation.enabled", "true")
                .set("suspendAtCreation.namespaces[0]", "*").call());
        assertTrue(webhooks(elsewhere).orElseThrow().getWebhooks().get(0).getNamespaceSelector().getMatchExpressions()
                .get(0).getValues().contains("queueing"), "never the release's own namespace");

        Rendered noTfJobs = template(Map.of("suspendAtCreation.enabled", "true", "suspendAtCreation.namespaces[0]", "a",
                "jobKinds.TFJob", "false", "jobKinds.Job", "false"));
        var hooks = webhooks(noTfJobs).orElseThrow().getWebhooks();
        assertEquals(List.of("kubeflow.suspend-at-creation.kube-queue.io"), hooks.stream().map(h -> h.getName()).toList(),
                "no batch Job sent when kube-queue leaves them alone");
        assertEquals(List.of("pytorchjobs", "mpijobs"), hooks.get(0).getRules().get(0).getResources());
    }

    /** visibility.enabled=false: no APIService, no users' ClusterRoles, no right to the APIService nor its name. */
    @Test
    void withoutTheVisibilityApiNothingOfItIsInstalled() {
        var objects = templateTrees(Map.of("visibility.enabled", "false"));
        assertTrue(kindsAndNames(objects).stream().noneMatch(o -> o.startsWith("APIService/")
                || o.startsWith("ClusterRole/kube-queue-visibility-")), kindsAndNames(objects).toString());
        Rendered rendered = template(Map.of("visibility.enabled", "false"));
        assertEquals(List.of(), caBundleRules(rendered));
        assertEquals(" ", Rendered.literalEnv(rendered.controller()).get("KUBE_QUEUE_SERVING_API_SERVICE"));
        assertFalse(notes(Map.of("visibility.enabled", "false")).contains("kubectl get pendingjobs -n"),
                "NOTES do not send anyone to it");
        String notes = notes(Map.of());
        assertTrue(notes.contains("kubectl get pendingjobs -n NAMESPACE")
                && notes.contains("kubectl get apiservice v1alpha1.visibility.kube-queue.io"), notes);
    }

    /** What helm install prints after the install (helm template leaves NOTES.txt out). */
    private static String notes(Map<String, Object> values) {
        var install = new Helm(CHART).install().withName("kq").withNamespace("kube-queue").withKubeVersion("1.31.0")
                .clientOnly().dryRun();
        values.forEach(install::set);
        String output = install.call().getOutput();
        assertTrue(output.contains("NOTES:"), output);
        return output.substring(output.indexOf("NOTES:"));
    }

    /**
     * serving.certManager.enabled: a self-signed Issuer and a Certificate for the Service's DNS names, its Secret
     * mounted read-only where kube-queue's env vars point, the CA injected into the APIService and the webhook
     * configuration by cert-manager; an issuerRef of one's own replaces the Issuer.
     */
    @Test
    void certManagerIssuesTheCertificateMountsItAndInjectsItsCa() {
        Map<String, Object> values = Map.of("serving.certManager.enabled", "true", "suspendAtCreation.enabled", "true",
                "suspendAtCreation.namespaces[0]", "team-a");
        var objects = templateTrees(values);
        var issuer = object(objects, "Issuer", "kube-queue-selfsigned");
        assertEquals("cert-manager.io/v1", issuer.path("apiVersion").asText());
        assertTrue(issuer.path("spec").path("selfSigned").isObject());
        var certificate = object(objects, "Certificate", "kube-queue-serving");
        var spec = certificate.path("spec");
        assertEquals("kube-queue", certificate.path("metadata").path("namespace").asText());
        List<String> dnsNames = new java.util.ArrayList<>();
        spec.path("dnsNames").forEach(n -> dnsNames.add(n.asText()));
        assertTrue(dnsNames.containsAll(List.of("kube-queue-controller.kube-queue.svc",
                "kube-queue-controller.kube-queue.svc.cluster.local")), dnsNames.toString());
        assertEquals(io.kubequeue.serving.ServingCertificate.serviceNames("kube-queue-controller", "kube-queue"), dnsNames,
                "the names of kube-queue's own certificate");
        assertTrue(spec.path("usages").toString().contains("client auth"), "a follower presents it to the leader");
        assertEquals("kube-queue-selfsigned", spec.path("issuerRef").path("name").asText());
        String secret = spec.path("secretName").asText();
        for (String kind : List.of("APIService", "MutatingWebhookConfiguration")) {
            var annotated = objects.stream().filter(o -> kind.equals(o.path("kind").asText())).findFirst().orElseThrow();
            assertEquals("kube-queue/kube-queue-serving", annotated.path("metadata").path("annotations")
                    .path("cert-manager.io/inject-ca-from").asText(), kind);
            assertFalse(annotated.toString().contains("caBundle"), kind);
        }

        Rendered rendered = template(values);
        var pod = rendered.get(Deployment.class, "kube-queue-controller").getSpec().getTemplate().getSpec();
        var volume = pod.getVolumes().stream().filter(v -> v.getSecret() != null
                && secret.equals(v.getSecret().getSecretName())).findFirst().orElseThrow();
        var mount = rendered.controller().getVolumeMounts().stream().filter(m -> m.getName().equals(volume.getName()))
                .findFirst().orElseThrow();
        assertEquals(Boolean.TRUE, mount.getReadOnly());
        Map<String, String> env = Rendered.literalEnv(rendered.controller());
        assertEquals(mount.getMountPath() + "/tls.crt", env.get("KUBE_QUEUE_SERVING_CERT_FILE"));
        assertEquals(mount.getMountPath() + "/tls.key", env.get("KUBE_QUEUE_SERVING_KEY_FILE"));
        assertFalse(env.containsKey("KUBE_QUEUE_SERVING_API_SERVICE"), "kube-queue writes no caBundle: no need to blank it");

        var own = templateTrees(Map.of("serving.certManager.enabled", "true", "serving.certManager.issuerRef.name",
                "company-ca", "serving.certManager.issuerRef.kind", "ClusterIssuer"));
        assertTrue(kindsAndNames(own).stream().noneMatch(o -> o.startsWith("Issuer/")), kindsAndNames(own).toString());
        var ref = object(own, "Certificate", "kube-queue-serving").path("spec").path("issuerRef");
        assertEquals(List.of("company-ca", "ClusterIssuer", "cert-manager.io"), List.of(ref.path("name").asText(),
                ref.path("kind").asText(), ref.path("group").asText()));
        assertTrue(kindsAndNames(templateTrees(Map.of())).stream().noneMatch(o -> o.startsWith("Certificate/")
                || o.startsWith("Issuer/")), "no cert-manager objects by default");
    }

    /** serving.enabled=false: no port, no APIService, no webhook, and kube-queue told so. */
    @Test
    void withoutTheHttpsPortNothingOfItIsInstalled() {
        Rendered off = template(Map.of("serving.enabled", "false"));
        assertEquals("false", Rendered.literalEnv(off.controller()).get("KUBE_QUEUE_SERVING_ENABLED"));
        assertTrue(off.controller().getPorts().stream().noneMatch(p -> p.getName().equals("https")));
        assertEquals(Map.of("http", "80->8080"), servicePorts(off));
        assertTrue(kindsAndNames(templateTrees(Map.of("serving.enabled", "false"))).stream().noneMatch(o -> o
                .startsWith("APIService/") || o.startsWith("MutatingWebhookConfiguration/")
                || o.startsWith("ClusterRole/kube-queue-visibility-")));
        Rendered moved = template(Map.of("serving.port", "9443"));
        assertEquals("9443->9443", servicePorts(moved).get("https"));
        assertEquals("9443", Rendered.literalEnv(moved.controller()).get("KUBE_QUEUE_SERVING_PORT"));
        assertEquals(9443, object(templateTrees(Map.of("serving.port", "9443")), "APIService",
                "v1alpha1.visibility.kube-queue.io").path("spec").path("service").path("port").asInt());
    }

    /**
     * The chart's serving env vars are what kube-queue's settings read, as SmallRye reads the environment: they start
     * (an empty name would stop start-up; a blank one is read as none) and say what the values meant.
     */
    @Test
    void theServingEnvVarsAreReadByKubeQueuesSettings() {
        java.util.function.Function<Map<String, Object>, io.kubequeue.config.KubeQueueConfig.Serving> settings = values -> {
            Map<String, String> env = new java.util.HashMap<>(Rendered.literalEnv(template(values).controller()));
            env.keySet().removeIf(k -> !k.startsWith("KUBE_QUEUE_SERVING_"));
            return io.kubequeue.testing.TestConfig.fromEnv(env).serving();
        };
        var defaults = settings.apply(Map.of());
        assertTrue(defaults.enabled());
        assertEquals("v1alpha1.visibility.kube-queue.io", defaults.apiService());
        assertTrue(defaults.webhookConfiguration().isBlank(), "no webhook configuration: none written");
        assertEquals(java.util.Set.of(), defaults.suspendAtCreationInNames());
        var neither = settings.apply(Map.of("visibility.enabled", "false"));
        assertTrue(neither.apiService().isBlank() && neither.webhookConfiguration().isBlank());
        var every = settings.apply(Map.of("suspendAtCreation.enabled", "true", "suspendAtCreation.namespaces[0]", "*"));
        assertEquals(java.util.Set.of("*"), every.suspendAtCreationInNames());
        assertEquals("kube-queue-suspend-at-creation", every.webhookConfiguration());
        var mounted = settings.apply(Map.of("serving.certManager.enabled", "true"));
        assertEquals(java.util.Optional.of("/etc/kube-queue/serving-cert/tls.crt"), mounted.certFile());
        assertEquals(java.util.Optional.of("/etc/kube-queue/serving-cert/tls.key"), mounted.keyFile());
        assertFalse(settings.apply(Map.of("serving.enabled", "false")).enabled());
    }

    /** Bad serving values fail before anything is rendered (the schema) or with a message naming the value. */
    @Test
    void badServingValuesAreRefused() {
        for (Map.Entry<String, String> bad : List.of(Map.entry("suspendAtCreation.failurePolicy", "Never"),
                Map.entry("suspendAtCreation.timeoutSeconds", "0"), Map.entry("suspendAtCreation.timeoutSeconds", "31"),
                Map.entry("serving.port", "9000"), Map.entry("serving.port", "80"),
                Map.entry("suspendAtCreation.namespaces[0]", "Team A"))) {
            Exception e = assertThrows(Exception.class, () -> template(Map.of(bad.getKey(), bad.getValue())), bad.toString());
            String field = bad.getKey().replaceAll("\\[0\\]$", "");
            assertTrue(e.getMessage().contains(field.substring(field.lastIndexOf('.') + 1)), e.getMessage());
        }
        Exception none = assertThrows(Exception.class, () -> template(Map.of("suspendAtCreation.enabled", "true")));
        assertTrue(none.getMessage().contains("suspendAtCreation.namespaces"), none.getMessage());
        Exception system = assertThrows(Exception.class, () -> template(Map.of("suspendAtCreation.enabled", "true",
                "suspendAtCreation.namespaces[0]", "kube-system")));
        assertTrue(system.getMessage().contains("kube-system"), system.getMessage());
        Exception own = assertThrows(Exception.class, () -> template(Map.of("suspendAtCreation.enabled", "true",
                "suspendAtCreation.namespaces[0]", "kube-queue")));
        assertTrue(own.getMessage().contains("kube-queue"), own.getMessage());
        Exception unserved = assertThrows(Exception.class, () -> template(Map.of("suspendAtCreation.enabled", "true",
                "suspendAtCreation.namespaces[0]", "team-a", "serving.enabled", "false")));
        assertTrue(unserved.getMessage().contains("serving.enabled"), unserved.getMessage());
        assertThrows(Exception.class, () -> template(Map.of("serving.certManager.issuerRef.kind", "")));
    }

    /**
     * The API server calls the HTTPS port from addresses no pod selector names: the NetworkPolicy opens that port to
     * every source, and that port alone (the read API's and the management port's rules keep their peers).
     */
    @Test
    void theNetworkPolicyOpensTheHttpsPortToEverySource() {
        NetworkPolicy policy = template(Map.of("networkPolicy.enabled", "true", "serving.port", "9443",
                "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.team", "monitoring"))
                .get(NetworkPolicy.class, "kube-queue-controller");
        var open = policy.getSpec().getIngress().stream().filter(r -> r.getFrom() == null || r.getFrom().isEmpty())
                .toList();
        assertEquals(1, open.size(), policy.getSpec().getIngress().toString());
        assertEquals(List.of(9443), open.get(0).getPorts().stream().map(p -> p.getPort().getIntVal()).toList());
        assertEquals(3, policy.getSpec().getIngress().size(), "the read API's, the management port's and the HTTPS port's");
        assertTrue(template(Map.of("networkPolicy.enabled", "true", "serving.enabled", "false"))
                .get(NetworkPolicy.class, "kube-queue-controller").getSpec().getIngress().stream()
                .allMatch(r -> r.getFrom() != null && !r.getFrom().isEmpty()), "without the HTTPS port no rule is open");
    }

    @Test
    void theImageIsPulledByDigestWhenOneIsGiven() {
        String digest = "sha256:" + "0123456789abcdef".repeat(4);
        assertEquals("ghcr.io/kube-queue/kube-queue@" + digest,
                template(Map.of("image.digest", digest, "image.tag", "1.2.3")).controller().getImage());
        assertEquals("ghcr.io/kube-queue/kube-queue:1.2.3", template(Map.of("image.tag", "1.2.3")).controller().getImage());
        assertThrows(Exception.class, () -> template(Map.of("image.digest", "latest")));
    }

    /**
     * helm/kube-queue/crds/ holds the CRDs generated at package, unchanged: ElasticQuotaTree's and QueuedKind's. The
     * second file starts with a {@code ---} line: {@code helm show crds} joins the files without one, and two CRDs
     * would read as one document with duplicate keys.
     */
    @Test
    void helmInstallsTheGeneratedCrds() {
        Rendered shipped = Rendered.of(new Helm(CHART).show().crds().call()); // what helm install applies first
        assertEquals(2, shipped.objects().size());
        for (Path file : List.of(Rendered.generatedCrd(), Rendered.generatedQueuedKindCrd())) {
            CustomResourceDefinition generated = (CustomResourceDefinition) Rendered.of(file).objects().get(0);
            assertEquals(generated, shipped.get(CustomResourceDefinition.class, generated.getMetadata().getName()),
                    "helm/kube-queue/crds/ is out of date: copy " + file + " there (after a --- line)");
        }
    }
}
