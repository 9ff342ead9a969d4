package io.kubequeue.packaging;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import com.marcnuri.helm.Helm;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.ClusterServiceVersion;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.ClusterServiceVersionBuilder;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.InstallMode;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.InstallModeBuilder;

/**
 * Build step run at {@code package}, after Quarkus generated {@code target/kubernetes/}: writes the release
 * artifacts that must not drift from those manifests.
 * <ul>
 * <li>{@code target/bundle/kube-queue/}: the OLM bundle (registry+v1): {@code manifests/} holds the
 * ClusterServiceVersion (the generated Deployment, its RBAC as cluster and namespace permissions, the owned
 * ElasticQuotaTree and QueuedKind CRDs, the seed's ElasticQuotaTree as {@code alm-examples}, the icon
 * {@value #ICON}, the operator image as related image), the CRD, both Services, a ServiceMonitor (the bundle's one
 * scrape path: the pods carry no scrape annotations here), the chart's PrometheusRule, the disruption budget and
 * the priority class of the plain manifests. Not the HTTPS port's objects (the visibility API's APIService and user
 * ClusterRoles, the suspend-at-creation webhook): OLM does not install an APIService or a webhook configuration
 * shipped as a plain manifest, so the bundle's kube-queue serves no HTTPS port ({@link #withoutServing});
 * {@code metadata/annotations.yaml} the package and channel; {@code bundle.Dockerfile} builds the bundle image,
 * with the same annotations as labels.</li>
 * <li>{@code target/helm/kube-queue-<version>.tgz}: the chart in {@code helm/kube-queue}, packaged.</li>
 * </ul>
 * Usage: {@code ReleaseArtifacts <project dir> <version> [digest=<sha256:…>]}: with a digest the bundle names the
 * image by it (the release workflow); exits 1 with a message if an input is missing or a step fails.
 */
public final class ReleaseArtifacts {

    static final String PACKAGE = "kube-queue";
    /** The one channel the bundle is in, and so its default channel. */
    static final String CHANNEL = "stable";
    /** The CSV's {@code spec.maturity}: how mature the operator is, which is not the channel it is published in. */
    static final String MATURITY = "alpha";
    /** The ElasticQuotaTree shown as the CSV's example: the seed's own, which the README's demo applies too. */
    static final String EXAMPLE = "src/test/resources/seed/elasticquotatree.yaml";
    /** The CSV's icon, embedded base64-encoded. */
    static final String ICON = "src/packaging/resources/kube-queue.icon.svg";
    static final String ICON_MEDIATYPE = "image/svg+xml";
    /** The QueuedKind CRD as generated at package (declared job kinds, docs/kinds.md), beside the ElasticQuotaTree's. */
    static final String QUEUED_KIND_CRD = "queuedkinds.kube-queue.io-v1.yml";
    static final String MANIFESTS = "manifests";
    /** The oldest Kubernetes the bundle installs on (the CSV's, and the chart's {@code kubeVersion}). */
    static final String MIN_KUBE_VERSION = "1.22.0";
    static final String METADATA = "metadata";
    private static final String BUNDLE_ANNOTATION = "operators.operatorframework.io.bundle.";
    /** The env var that switches the HTTPS port on (the plain manifests set it true; the bundle false). */
    static final String SERVING_ENABLED = "KUBE_QUEUE_SERVING_ENABLED";
    /** The HTTPS port's other env vars in the generated Deployment, left out of the bundle's. */
    static final java.util.Set<String> SERVING_ENV = java.util.Set.of("KUBE_QUEUE_SERVING_SUSPEND_AT_CREATION_IN");
    /** The container port, and the Service port, of the HTTPS endpoint. */
    static final String SERVING_PORT = "https";
    /**
     * The API groups of the rules that serve the HTTPS port only (kube-queue writing its CA into the APIService and
     * the webhook configuration): not in the bundle's cluster permissions.
     */
    static final java.util.Set<String> SERVING_GROUPS = java.util.Set.of("apiregistration.k8s.io",
            "admissionregistration.k8s.io");

    private ReleaseArtifacts() {
    }

    /**
     * Writes the bundle and packages the chart.
     *
     * @param args the project directory and the project version
     * @throws IOException if an input cannot be read or an output written
     */
    public static void main(String[] args) throws IOException {
        try {
            write(args);
        } catch (Throwable e) { // an Error too (helm-java's native library): anything but an exit hangs the build
            // the client's HTTP event loop is not a daemon thread: without an exit a failure here hung the build
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0); // the client's HTTP event loop is not a daemon thread; nothing else is left to do
    }

    private static void write(String[] args) throws IOException {
        Path project = Path.of(args[0]);
        String version = args[1];
        if (args.length > 2 && !args[2].startsWith("digest=")) {
            throw new IllegalArgumentException("the third argument is digest=<sha256:…>, not '" + args[2] + "'");
        }
        String digest = args.length > 2 ? args[2].substring("digest=".length()) : "";
        Path target = project.resolve("target");
        Path bundle = target.resolve("bundle").resolve(PACKAGE);
        writeBundle(project, version, digest, bundle);
        System.out.println("[kube-queue] OLM bundle written to " + bundle);
        Path helm = Files.createDirectories(target.resolve("helm"));
        new Helm(project.resolve("helm").resolve(PACKAGE)).packageIt().withDestination(helm).call();
        System.out.println("[kube-queue] Helm chart packaged into " + helm);
    }

    /**
     * Writes the OLM bundle of a package build: from {@code target/kubernetes/} (the generated manifests and CRD),
     * the seed's example, the icon and the chart's PrometheusRule (rendered with the namespace OLM suggests).
     *
     * @param project the project directory, after {@code package} generated {@code target/kubernetes/}
     * @param version the project version
     * @param digest  the image's digest ({@code sha256:…}) to name it by, or empty to name it by tag
     * @param bundle  the folder to write into ({@code manifests/}, {@code metadata/}, {@code bundle.Dockerfile})
     * @throws IOException if an input cannot be read or an output written
     * @throws IllegalArgumentException for a digest that is not {@code sha256:} and 64 hex digits
     */
    public static void writeBundle(Path project, String version, String digest, Path bundle) throws IOException {
        Path generated = project.resolve("target").resolve("kubernetes");
        try (KubernetesClient parser = new KubernetesClientBuilder().build()) {
            List<HasMetadata> manifests = read(parser, generated.resolve("kubernetes.yml"));
            CustomResourceDefinition crd = (CustomResourceDefinition) read(parser,
                    generated.resolve("elasticquotatrees.scheduling.sigs.k8s.io-v1.yml")).get(0);
            CustomResourceDefinition queuedKinds = (CustomResourceDefinition) read(parser,
                    generated.resolve(QUEUED_KIND_CRD)).get(0);
            HasMetadata example = read(parser, project.resolve(EXAMPLE)).get(0);
            byte[] icon = Files.readAllBytes(project.resolve(ICON));
            // the alerts have one source, the chart's template: rendered here with the namespace OLM suggests
            String namespace = one(manifests, Deployment.class, "kube-queue-controller").getMetadata().getNamespace();
            String alerts = new Helm(project.resolve("helm").resolve(PACKAGE)).template().withName(PACKAGE)
                    .withNamespace(namespace).withKubeVersion(MIN_KUBE_VERSION).set("prometheusRule.enabled", "true")
                    .call();
            HasMetadata prometheusRule = parser.load(new java.io.ByteArrayInputStream(
                            alerts.getBytes(java.nio.charset.StandardCharsets.UTF_8))).items().stream()
                    .filter(o -> "PrometheusRule".equals(o.getKind())).findFirst()
                    .orElseThrow(() -> new IllegalStateException("the chart rendered no PrometheusRule"));
            writeBundle(parser, bundle, manifests, crd, queuedKinds, example, icon, version, prometheusRule, digest);
        }
    }

    private static List<HasMetadata> read(KubernetesClient parser, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return parser.load(in).items();
        }
    }

    private static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type, String name) {
        return objects.stream().filter(type::isInstance).map(type::cast)
                .filter(o -> name.equals(o.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + type.getSimpleName() + " " + name
                        + " in target/kubernetes/kubernetes.yml"));
    }

    /**
     * The bundle's annotations, in this order: {@code metadata/annotations.yaml} holds them and
     * {@code bundle.Dockerfile} sets them as the image's labels, which OLM requires to agree.
     */
    static Map<String, String> bundleAnnotations() {
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(BUNDLE_ANNOTATION + "mediatype.v1", "registry+v1");
        annotations.put(BUNDLE_ANNOTATION + "manifests.v1", MANIFESTS + "/");
        annotations.put(BUNDLE_ANNOTATION + "metadata.v1", METADATA + "/");
        annotations.put(BUNDLE_ANNOTATION + "package.v1", PACKAGE);
        annotations.put(BUNDLE_ANNOTATION + "channels.v1", CHANNEL);
        annotations.put(BUNDLE_ANNOTATION + "channel.default.v1", CHANNEL);
        return annotations;
    }

    /** {@code bundle.Dockerfile}, built from the bundle's folder: the annotations as labels, then both folders. */
    static String bundleDockerfile(Map<String, String> annotations) {
        StringBuilder dockerfile = new StringBuilder("FROM scratch\n\n");
        annotations.forEach((key, value) -> dockerfile.append("LABEL ").append(key).append('=').append(value)
                .append('\n'));
        dockerfile.append('\n');
        for (String dir : List.of(MANIFESTS, METADATA)) {
            dockerfile.append("COPY ").append(dir).append(" /").append(dir).append("/\n");
        }
        return dockerfile.toString();
    }

    /** The CRD version the CSV names as owned. */
    private static String ownedVersion(CustomResourceDefinition crd) {
        return crd.getSpec().getVersions().get(0).getName();
    }

    /**
     * The CSV's {@code alm-examples}: a JSON array of the one example, after checking that it has the kind and
     * version of the owned CRD, so that the console's "create" form offers it.
     */
    static String almExamples(KubernetesClient parser, CustomResourceDefinition crd, HasMetadata example) {
        String kind = crd.getSpec().getNames().getKind();
        String apiVersion = crd.getSpec().getGroup() + "/" + ownedVersion(crd);
        if (!kind.equals(example.getKind()) || !apiVersion.equals(example.getApiVersion())) {
            throw new IllegalStateException(EXAMPLE + " is a " + example.getApiVersion() + " " + example.getKind()
                    + ", not a " + apiVersion + " " + kind);
        }
        return parser.getKubernetesSerialization().asJson(List.of(example));
    }

    /**
     * Writes the bundle into {@code bundle}: the CSV, the two CRDs and the two Services under {@code manifests/},
     * {@code metadata/annotations.yaml} and {@code bundle.Dockerfile}.
     *
     * @param manifests what Quarkus generated ({@code target/kubernetes/kubernetes.yml})
     * @param crd       the generated ElasticQuotaTree CRD
     * @param queuedKinds the generated QueuedKind CRD (declared job kinds), owned too
     * @param example   the ElasticQuotaTree shown as the CSV's example
     * @param icon      the icon, an SVG image
     * @param version   the project version
     * @param prometheusRule the chart's alerts, rendered
     * @param digest    the released image's digest ({@code sha256:…}): the CSV then names the image by it, so that
     *                  what OLM installs cannot change under the bundle; empty: by tag (a build of main)
     * @throws IOException if a file cannot be written
     * @throws IllegalArgumentException for a digest that is not {@code sha256:} and 64 hex digits
     */
    static void writeBundle(KubernetesClient parser, Path bundle, List<HasMetadata> manifests,
                            CustomResourceDefinition crd, CustomResourceDefinition queuedKinds, HasMetadata example,
                            byte[] icon, String version,
                            HasMetadata prometheusRule, String digest)
            throws IOException {
        Path dir = Files.createDirectories(bundle.resolve(MANIFESTS));
        Deployment deployment = new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder(
                one(manifests, Deployment.class, "kube-queue-controller")).build();
        if (!digest.isEmpty()) {
            deployment.getSpec().getTemplate().getSpec().getContainers()
                    .forEach(c -> c.setImage(byDigest(c.getImage(), digest)));
        }
        withoutServing(deployment);
        // the bundle's one scrape path is its ServiceMonitor (below): no scrape annotations on the pods
        Map<String, String> podAnnotations = deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        if (podAnnotations != null) {
            podAnnotations.keySet().removeIf(key -> key.startsWith("prometheus.io/"));
        }
        String account = deployment.getSpec().getTemplate().getSpec().getServiceAccountName();
        String image = deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
        // without the HTTPS port kube-queue writes no caBundle: the rules on the APIService and the webhook
        // configuration stay out, as does the Role of its certificate's Secret (kube-queue-controller-serving)
        List<PolicyRule> clusterRules = new ArrayList<>(
                one(manifests, ClusterRole.class, "kube-queue-controller").getRules().stream()
                        .filter(r -> r.getApiGroups().stream().noneMatch(SERVING_GROUPS::contains)).toList());
        // OLM grants namespaced permissions in the operator's namespace only: the quota tree's Role (kube-system)
        // becomes a cluster permission here (get/list/watch on elasticquotatrees, patch on their status)
        clusterRules.addAll(one(manifests, Role.class, "kube-queue-controller-quota-tree").getRules());
        // the operator's namespace: its Lease, and its record key's Secret
        List<PolicyRule> ownNamespaceRules = new ArrayList<>(
                one(manifests, Role.class, "kube-queue-controller-leader-election").getRules());
        ownNamespaceRules.addAll(one(manifests, Role.class, "kube-queue-controller-record-key").getRules());
        String csvVersion = version.toLowerCase(Locale.ROOT);

        Map<String, String> csvAnnotations = new TreeMap<>(Map.of(
                "capabilities", "Basic Install",
                "categories", "AI/Machine Learning",
                "containerImage", image,
                "description", "Queues suspended jobs per quota group and admits them when the group has room",
                "alm-examples", almExamples(parser, crd, example),
                // where the plain manifests and the chart install it: its Lease and Service are looked up there
                "operatorframework.io/suggested-namespace", deployment.getMetadata().getNamespace()));

        ClusterServiceVersion csv = new ClusterServiceVersionBuilder()
                .withNewMetadata().withName(PACKAGE + ".v" + csvVersion).withAnnotations(csvAnnotations)
                .endMetadata()
                .withNewSpec()
                .withDisplayName("kube-queue")
                .withDescription("kube-queue keeps one queue per quota group (ElasticQuotaTree node or namespace "
                        + "ResourceQuota) and admits a suspended Job, TFJob, PyTorchJob, MPIJob or Argo Workflow "
                        + "only when the group, and every parent group, has room for its whole request.")
                .withVersion(csvVersion)
                .withMinKubeVersion(MIN_KUBE_VERSION)
                .withMaturity(MATURITY)
                .withKeywords("queue", "quota", "batch", "kubeflow", "argo")
                .withNewProvider().withName("kube-queue").endProvider()
                .addNewMaintainer().withName("kube-queue").withEmail("kube-queue@users.noreply.github.com").endMaintainer()
                .addNewLink().withName("Documentation").withUrl("https://github.com/kube-queue/kube-queue/tree/main/docs").endLink()
                .addNewIcon().withBase64data(Base64.getEncoder().encodeToString(icon)).withMediatype(ICON_MEDIATYPE)
                .endIcon()
                .addNewRelatedImage().withName(PACKAGE).withImage(image).endRelatedImage()
                .withInstallModes(installMode("OwnNamespace", false), installMode("SingleNamespace", false),
                        installMode("MultiNamespace", false), installMode("AllNamespaces", true))
                .withNewInstall().withStrategy("deployment").withNewSpec()
                .addNewDeployment().withName(deployment.getMetadata().getName())
                .withLabel(deployment.getMetadata().getLabels()).withSpec(deployment.getSpec()).endDeployment()
                .addNewClusterPermission().withServiceAccountName(account).withRules(clusterRules).endClusterPermission()
                .addNewPermission().withServiceAccountName(account).withRules(ownNamespaceRules).endPermission()
                .endSpec().endInstall()
                .withNewCustomresourcedefinitions().addNewOwned()
                .withName(crd.getMetadata().getName()).withVersion(ownedVersion(crd))
                .withKind(crd.getSpec().getNames().getKind()).withDisplayName("Elastic Quota Tree")
                .withDescription("The quota groups: a tree of nodes with min/max resources and the namespaces in each")
                .endOwned().addNewOwned()
                .withName(queuedKinds.getMetadata().getName()).withVersion(ownedVersion(queuedKinds))
                .withKind(queuedKinds.getSpec().getNames().getKind()).withDisplayName("Queued Kind")
                .withDescription("A job kind kube-queue queues by declaration: its group, version, how it is held,"
                        + " its pod sets (docs/kinds.md)")
                .endOwned().endCustomresourcedefinitions()
                .endSpec().build();

        write(parser, dir.resolve(PACKAGE + ".clusterserviceversion.yaml"), csv);
        write(parser, dir.resolve(crd.getMetadata().getName() + ".crd.yaml"), crd);
        write(parser, dir.resolve(queuedKinds.getMetadata().getName() + ".crd.yaml"), queuedKinds);
        // the read API's Service and the management one (health, metrics)
        for (String name : List.of("kube-queue-controller", "kube-queue-controller-management")) {
            Service service = one(manifests, Service.class, name);
            service.getMetadata().setNamespace(null); // OLM creates it in the operator's namespace
            service.getSpec().getPorts().removeIf(p -> SERVING_PORT.equals(p.getName())); // nothing listens there
            write(parser, dir.resolve(name + ".service.yaml"), service);
        }
        // metrics for the Prometheus Operator: the management Service's port, and the chart's alerts
        Service management = one(manifests, Service.class, "kube-queue-controller-management");
        // a ServiceMonitor selects Services by their labels (its endpoint's port name then picks this one)
        Map<String, String> labels = new TreeMap<>(management.getMetadata().getLabels());
        write(parser, dir.resolve("kube-queue-controller.servicemonitor.yaml"), serviceMonitor(management, labels));
        prometheusRule.getMetadata().setNamespace(null);
        prometheusRule.getMetadata().setLabels(labels); // the chart's Helm labels say nothing under OLM
        write(parser, dir.resolve("kube-queue-controller.prometheusrule.yaml"), prometheusRule);
        // the plain manifests' disruption budget and priority class, as they are
        io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget budget = one(manifests,
                io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget.class, "kube-queue-controller");
        budget.getMetadata().setNamespace(null);
        write(parser, dir.resolve("kube-queue-controller.poddisruptionbudget.yaml"), budget);
        write(parser, dir.resolve("kube-queue-critical.priorityclass.yaml"), one(manifests,
                io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass.class, "kube-queue-critical"));
        // for people, not for the operator: the service proxy to the read API, bound to no one (docs/security.md)
        Role reader = one(manifests, Role.class, "kube-queue-reader");
        reader.getMetadata().setNamespace(null);
        write(parser, dir.resolve("kube-queue-reader.role.yaml"), reader);

        Map<String, String> annotations = bundleAnnotations();
        Path metadata = Files.createDirectories(bundle.resolve(METADATA));
        write(parser, metadata.resolve("annotations.yaml"), Map.of("annotations", annotations));
        Files.writeString(bundle.resolve("bundle.Dockerfile"), bundleDockerfile(annotations));
    }

    /**
     * The bundle's Deployment serves no HTTPS port: {@value #SERVING_ENABLED} false, the port and the webhook's
     * namespaces gone. OLM does not install an {@code APIService} or a {@code MutatingWebhookConfiguration} shipped
     * as a plain manifest in a bundle; it makes its own from the CSV's {@code apiservicedefinitions} and
     * {@code webhookdefinitions}, with a Service and certificates of its own, which no test here can check without
     * OLM (docs/install.md, "OLM"). So under OLM there is no visibility API and no suspend-at-creation webhook.
     */
    static void withoutServing(Deployment deployment) {
        for (io.fabric8.kubernetes.api.model.Container c : deployment.getSpec().getTemplate().getSpec()
                .getContainers()) {
            c.getEnv().removeIf(e -> SERVING_ENV.contains(e.getName()));
            c.getEnv().stream().filter(e -> SERVING_ENABLED.equals(e.getName())).forEach(e -> e.setValue("false"));
            c.getPorts().removeIf(p -> SERVING_PORT.equals(p.getName()));
        }
    }

    /**
     * The image reference by digest: {@code ghcr.io/kube-queue/kube-queue:0.1.0} and {@code sha256:ab…} give
     * {@code ghcr.io/kube-queue/kube-queue@sha256:ab…} (the tag dropped: with a digest it is only a label).
     *
     * @throws IllegalArgumentException for a digest that is not {@code sha256:} and 64 lowercase hex digits
     */
    static String byDigest(String image, String digest) {
        if (!digest.matches("sha256:[0-9a-f]{64}")) {
            throw new IllegalArgumentException("not an image digest (sha256: and 64 hex digits): '" + digest + "'");
        }
        String name = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
        int slash = name.lastIndexOf('/');
        int colon = name.lastIndexOf(':');
        if (colon > slash) {
            name = name.substring(0, colon); // a tag, not a registry's port
        }
        return name + "@" + digest;
    }

    /** A ServiceMonitor on the management Service's {@code management} port, {@code /q/metrics}. */
    static io.fabric8.kubernetes.api.model.GenericKubernetesResource serviceMonitor(Service management,
                                                                                  Map<String, String> labels) {
        io.fabric8.kubernetes.api.model.GenericKubernetesResource monitor =
                new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
                        .withApiVersion("monitoring.coreos.com/v1").withKind("ServiceMonitor")
                        .withNewMetadata().withName("kube-queue-controller").withLabels(labels).endMetadata().build();
        monitor.setAdditionalProperty("spec", Map.of(
                "selector", Map.of("matchLabels", labels),
                "endpoints", List.of(Map.of("port", management.getSpec().getPorts().get(0).getName(),
                        "path", "/q/metrics", "interval", "30s"))));
        return monitor;
    }

    private static InstallMode installMode(String type, boolean supported) {
        return new InstallModeBuilder().withType(type)
                .withSupported(supported).build();
    }

    private static void write(KubernetesClient parser, Path file, Object object) throws IOException {
        Files.writeString(file, parser.getKubernetesSerialization().asYaml(object));
    }
}
