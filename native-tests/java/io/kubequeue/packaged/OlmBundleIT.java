package io.kubequeue.packaged;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.xml.sax.SAXException;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.ClusterServiceVersion;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.ClusterServiceVersionSpec;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.CRDDescription;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.Icon;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.InstallMode;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.RelatedImage;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.StrategyDeploymentSpec;
import io.kubequeue.quota.elastic.ElasticQuotaTree;
import io.kubequeue.testing.ApiServerRules;

/**
 * The OLM bundle written at package ({@code target/bundle/kube-queue}, registry+v1): the fields OLM requires
 * (operator-framework's bundle format and ClusterServiceVersion docs), and no drift from the generated
 * manifests: the CSV's deployment, RBAC and owned CRD are those of {@code target/kubernetes}; its example,
 * related images and suggested namespace agree with them too. {@code bundle.Dockerfile} labels the image as
 * {@code metadata/annotations.yaml} annotates the bundle.
 */
class OlmBundleIT {

    private static final Path BUNDLE = Path.of("target", "bundle", "kube-queue");
    private static final String SEED_TREE = "src/test/resources/seed/elasticquotatree.yaml";
    private static final Path ICON = Path.of("src", "packaging", "resources", "kube-queue.icon.svg");
    private static final String CHANNELS = "operators.operatorframework.io.bundle.channels.v1";
    private static final String DEFAULT_CHANNEL = "operators.operatorframework.io.bundle.channel.default.v1";
    /** The values OLM's {@code capabilities} annotation may take (operator capability levels). */
    private static final Set<String> CAPABILITIES = Set.of("Basic Install", "Seamless Upgrades", "Full Lifecycle",
            "Deep Insights", "Auto Pilot");
    private static final Set<String> BUNDLE_KINDS = Set.of("ClusterServiceVersion", "CustomResourceDefinition",
            "Service", "ConfigMap", "Secret", "ServiceMonitor", "PrometheusRule", "Role", "ClusterRole",
            "RoleBinding", "ClusterRoleBinding", "ServiceAccount", "PodDisruptionBudget", "PriorityClass");

    private final KubernetesClient parser = new KubernetesClientBuilder().build();
    private final Rendered generated = Rendered.generatedManifests();

    private Rendered manifests() throws IOException {
        try (Stream<Path> files = Files.list(BUNDLE.resolve("manifests"))) {
            return new Rendered(files.sorted().flatMap(f -> Rendered.of(f).objects().stream()).toList());
        }
    }

    private ClusterServiceVersion csv() throws IOException {
        List<HasMetadata> csvs = manifests().ofKind("ClusterServiceVersion");
        assertEquals(1, csvs.size(), "one ClusterServiceVersion per bundle");
        return (ClusterServiceVersion) csvs.get(0);
    }

    @SuppressWarnings("unchecked")
    private Map<String, String> bundleAnnotations() throws IOException {
        return (Map<String, String>) parser.getKubernetesSerialization()
                .unmarshal(Files.readString(BUNDLE.resolve("metadata").resolve("annotations.yaml")), Map.class)
                .get("annotations");
    }

    /** The owned CRD as the bundle ships it. */
    private CustomResourceDefinition ownedCrd(CRDDescription owned) throws IOException {
        return manifests().get(CustomResourceDefinition.class, owned.getName());
    }

    @Test
    void metadataNamesTheFormatThePackageAndADefaultChannelItServes() throws IOException {
        Map<String, String> annotations = bundleAnnotations();
        assertEquals("registry+v1", annotations.get("operators.operatorframework.io.bundle.mediatype.v1"));
        assertEquals("manifests/", annotations.get("operators.operatorframework.io.bundle.manifests.v1"));
        assertEquals("metadata/", annotations.get("operators.operatorframework.io.bundle.metadata.v1"));
        assertEquals("kube-queue", annotations.get("operators.operatorframework.io.bundle.package.v1"));
        List<String> channels = List.of(annotations.get("operators.operatorframework.io.bundle.channels.v1").split(","));
        assertTrue(channels.contains(annotations.get(DEFAULT_CHANNEL)),
                "the default channel is one of the bundle's channels");
        assertEquals("stable", annotations.get(CHANNELS));
        assertEquals("stable", annotations.get(DEFAULT_CHANNEL));
    }

    /**
     * bundle.Dockerfile builds the bundle image from the bundle's folder: an empty base, the labels OLM reads
     * from the image (the same as annotations.yaml: opm and OLM refuse a bundle where they differ), and the two
     * folders copied to where the labels say they are.
     */
    @Test
    void theBundleDockerfileLabelsTheImageAsAnnotationsYamlSaysAndCopiesBothFolders() throws IOException {
        List<String> lines = Files.readAllLines(BUNDLE.resolve("bundle.Dockerfile")).stream()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertEquals("FROM scratch", lines.get(0));
        Map<String, String> labels = new LinkedHashMap<>();
        for (String label : lines.stream().filter(l -> l.startsWith("LABEL ")).toList()) {
            String[] keyValue = label.substring("LABEL ".length()).split("=", 2);
            assertEquals(2, keyValue.length, label);
            assertEquals(null, labels.put(keyValue[0], keyValue[1]), "one label per key: " + label);
        }
        Map<String, String> annotations = bundleAnnotations();
        assertEquals(annotations, labels);
        assertEquals("stable", labels.get(CHANNELS));
        assertEquals("stable", labels.get(DEFAULT_CHANNEL));
        List<String> copies = lines.stream().filter(l -> l.startsWith("COPY ")).toList();
        assertEquals(List.of("COPY manifests /manifests/", "COPY metadata /metadata/"), copies);
        assertEquals("/" + annotations.get("operators.operatorframework.io.bundle.manifests.v1"),
                copies.get(0).split(" ")[2]);
        assertEquals("/" + annotations.get("operators.operatorframework.io.bundle.metadata.v1"),
                copies.get(1).split(" ")[2]);
        for (String copy : copies) {
            assertTrue(Files.isDirectory(BUNDLE.resolve(copy.split(" ")[1])), copy + ": the source is in the bundle");
        }
        assertEquals(1 + labels.size() + copies.size(), lines.size(), "nothing else: " + lines);
    }

    @Test
    void everyManifestIsAKindOlmInstallsFromABundle() throws IOException {
        Rendered bundled = manifests();
        for (HasMetadata o : bundled.objects()) {
            assertTrue(BUNDLE_KINDS.contains(o.getKind()), o.getKind() + " " + o.getMetadata().getName());
        }
        // as every install path: both Services, and the readers' Role (people's, not in the CSV's permissions)
        assertEquals(generated.get(io.fabric8.kubernetes.api.model.Service.class, "kube-queue-controller-management")
                .getSpec().getPorts(), bundled.get(io.fabric8.kubernetes.api.model.Service.class,
                "kube-queue-controller-management").getSpec().getPorts());
        assertEquals(generated.get(io.fabric8.kubernetes.api.model.rbac.Role.class, "kube-queue-reader").getRules(),
                bundled.get(io.fabric8.kubernetes.api.model.rbac.Role.class, "kube-queue-reader").getRules());
    }

    /**
     * Issue 29, item 4: under OLM the Prometheus Operator scrapes through the bundle's ServiceMonitor, the one scrape
     * path (the pods carry no scrape annotations), and the bundle ships the chart's alerts, the disruption budget
     * and the priority class of the plain manifests.
     */
    @Test
    void theBundleShipsOneScrapePathTheAlertsTheBudgetAndThePriorityClass() throws IOException {
        Rendered bundled = manifests();
        HasMetadata monitor = bundled.ofKind("ServiceMonitor").get(0);
        Map<String, Object> spec = parser.getKubernetesSerialization().convertValue(
                ((io.fabric8.kubernetes.api.model.GenericKubernetesResource) monitor).getAdditionalProperties().get("spec"),
                Map.class);
        io.fabric8.kubernetes.api.model.Service management = bundled.get(io.fabric8.kubernetes.api.model.Service.class,
                "kube-queue-controller-management");
        // a ServiceMonitor selects Services by their labels: the management Service's, which only it and the read
        // API's Service carry, and the endpoint's port name picks the management one
        @SuppressWarnings("unchecked")
        Map<String, String> selected = (Map<String, String>) ((Map<String, Object>) spec.get("selector")).get("matchLabels");
        assertTrue(management.getMetadata().getLabels().entrySet().containsAll(selected.entrySet()),
                "it selects the management Service: " + selected + " in " + management.getMetadata().getLabels());
        assertEquals(List.of(Map.of("port", "management", "path", "/q/metrics", "interval", "30s")), spec.get("endpoints"));
        var pod = csv().getSpec().getInstall().getSpec().getDeployments().get(0).getSpec().getTemplate();
        assertTrue(pod.getMetadata().getAnnotations() == null || pod.getMetadata().getAnnotations().keySet().stream()
                .noneMatch(k -> k.startsWith("prometheus.io/")), "the pods are not also scraped by annotation");
        for (HasMetadata o : bundled.objects()) {
            assertTrue(o.getMetadata().getAnnotations() == null || !o.getMetadata().getAnnotations()
                    .containsKey("prometheus.io/scrape"), o.getKind() + " " + o.getMetadata().getName());
        }

        String alerts = Files.readString(Path.of("helm", "kube-queue", "templates", "prometheusrule.yaml"));
        java.util.regex.Matcher names = java.util.regex.Pattern.compile("- alert: (\\w+)").matcher(alerts);
        List<String> chartAlerts = new java.util.ArrayList<>();
        while (names.find()) {
            chartAlerts.add(names.group(1));
        }
        String bundledRule = parser.getKubernetesSerialization().asYaml(bundled.ofKind("PrometheusRule").get(0));
        assertTrue(chartAlerts.size() >= 5, "the chart's alerts were read: " + chartAlerts);
        for (String alert : chartAlerts) {
            assertTrue(bundledRule.contains("alert: \"" + alert + "\""), alert + " in " + bundledRule);
        }
        assertEquals(generated.ofKind("PodDisruptionBudget").size(), bundled.ofKind("PodDisruptionBudget").size());
        assertEquals("kube-queue-critical", pod.getSpec().getPriorityClassName());
        assertEquals(1, bundled.ofKind("PriorityClass").size(), "the class the pods name ships with them");
    }

    /**
     * OLM installs neither an APIService nor a MutatingWebhookConfiguration shipped as a plain manifest (only from the
     * CSV's apiservicedefinitions and webhookdefinitions, with a Service and certificates of its own): the bundle
     * leaves the HTTPS port out (docs/install.md, "OLM"), with its objects, its port and its rights, and says so to
     * kube-queue (KUBE_QUEUE_SERVING_ENABLED=false), while the plain manifests ship all of it.
     */
    @Test
    void theHttpsPortIsLeftOutOfTheBundle() throws IOException {
        Rendered bundled = manifests();
        assertEquals(List.of(), bundled.ofKind("APIService"));
        assertEquals(List.of(), bundled.ofKind("MutatingWebhookConfiguration"));
        assertTrue(bundled.ofKind("ClusterRole").stream().noneMatch(r -> r.getMetadata().getName()
                .startsWith("kube-queue-visibility-")), "no visibility API, no readers' roles for it");
        Container c = csv().getSpec().getInstall().getSpec().getDeployments().get(0).getSpec().getTemplate().getSpec()
                .getContainers().get(0);
        assertEquals("false", Rendered.literalEnv(c).get("KUBE_QUEUE_SERVING_ENABLED"));
        assertTrue(c.getPorts().stream().noneMatch(p -> p.getName().equals("https")), c.getPorts().toString());
        assertEquals(List.of("http"), bundled.get(io.fabric8.kubernetes.api.model.Service.class, "kube-queue-controller")
                .getSpec().getPorts().stream().map(p -> p.getName()).toList());
        String permissions = parser.getKubernetesSerialization().asYaml(csv().getSpec().getInstall().getSpec());
        for (String right : List.of("apiservices", "mutatingwebhookconfigurations", "kube-queue-tls")) {
            assertFalse(permissions.contains(right), right + " in the CSV's permissions");
        }
        // what the plain manifests ship and the bundle leaves out
        assertEquals("true", Rendered.literalEnv(generated.controller()).get("KUBE_QUEUE_SERVING_ENABLED"));
        assertEquals(List.of(1, 1), List.of(generated.ofKind("MutatingWebhookConfiguration").size(),
                generated.ofKind("APIService").size()), "the manifests ship both");
    }

    /** Issue 29, item 6: a release's bundle (built with the image's digest) names the image by digest everywhere. */
    @Test
    void aReleasesBundleNamesItsImageByDigest(@org.junit.jupiter.api.io.TempDir Path folder) throws IOException {
        String digest = "sha256:" + "0123456789abcdef".repeat(4);
        io.kubequeue.packaging.ReleaseArtifacts.writeBundle(Path.of("."), "0.1.0", digest, folder);
        Rendered bundled;
        try (Stream<Path> files = Files.list(folder.resolve("manifests"))) {
            bundled = new Rendered(files.sorted().flatMap(f -> Rendered.of(f).objects().stream()).toList());
        }
        ClusterServiceVersion csv = (ClusterServiceVersion) bundled.ofKind("ClusterServiceVersion").get(0);
        String image = "ghcr.io/kube-queue/kube-queue@" + digest;
        assertEquals(image, csv.getMetadata().getAnnotations().get("containerImage"));
        assertEquals(List.of(image), csv.getSpec().getRelatedImages().stream().map(r -> r.getImage()).toList());
        assertEquals(image, csv.getSpec().getInstall().getSpec().getDeployments().get(0).getSpec().getTemplate()
                .getSpec().getContainers().get(0).getImage());
    }

    @Test
    void theCsvHasTheRequiredFields() throws IOException {
        ClusterServiceVersion csv = csv();
        ClusterServiceVersionSpec spec = csv.getSpec();
        assertEquals("operators.coreos.com/v1alpha1", csv.getApiVersion());
        assertTrue(csv.getMetadata().getName().matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?"), csv.getMetadata().getName());
        assertEquals("kube-queue.v" + spec.getVersion(), csv.getMetadata().getName());
        assertTrue(spec.getVersion().matches("\\d+\\.\\d+\\.\\d+(-[0-9a-z.-]+)?"), "semver: " + spec.getVersion());
        assertTrue(spec.getDisplayName() != null && spec.getDescription() != null && spec.getProvider() != null
                && spec.getMinKubeVersion() != null && !spec.getMaintainers().isEmpty());
        assertTrue(!spec.getKeywords().isEmpty() && !spec.getLinks().isEmpty(), "keywords and links");
        Map<String, String> annotations = csv.getMetadata().getAnnotations();
        assertTrue(CAPABILITIES.contains(annotations.get("capabilities")), "capabilities: " + annotations);
        assertTrue(annotations.get("categories") != null && annotations.get("description") != null, "" + annotations);
        assertEquals(Set.of("OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"),
                spec.getInstallModes().stream().map(InstallMode::getType).collect(Collectors.toSet()));
        assertEquals(List.of("AllNamespaces"), spec.getInstallModes().stream().filter(InstallMode::getSupported)
                .map(InstallMode::getType).toList(), "kube-queue watches every namespace");
        assertEquals("deployment", spec.getInstall().getStrategy());
    }

    @Test
    void theCsvInstallsTheGeneratedDeploymentWithItsRbac() throws IOException {
        ClusterServiceVersionSpec spec = csv().getSpec();
        Deployment deployment = generated.get(Deployment.class, "kube-queue-controller");
        List<StrategyDeploymentSpec> deployments = spec.getInstall().getSpec().getDeployments();
        assertEquals(1, deployments.size());
        assertEquals("kube-queue-controller", deployments.get(0).getName());
        // the generated one, but for the scrape annotations (the bundle's scrape path is its ServiceMonitor) and the
        // HTTPS port, which the bundle leaves out (theHttpsPortIsLeftOutOfTheBundle)
        Deployment unannotated = new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder(deployment).build();
        unannotated.getSpec().getTemplate().getMetadata().getAnnotations().keySet()
                .removeIf(key -> key.startsWith("prometheus.io/"));
        Container container = unannotated.getSpec().getTemplate().getSpec().getContainers().get(0);
        container.getPorts().removeIf(p -> p.getName().equals("https"));
        container.getEnv().removeIf(e -> e.getName().equals("KUBE_QUEUE_SERVING_SUSPEND_AT_CREATION_IN"));
        container.getEnv().stream().filter(e -> e.getName().equals("KUBE_QUEUE_SERVING_ENABLED"))
                .forEach(e -> e.setValue("false"));
        assertEquals(unannotated.getSpec(), deployments.get(0).getSpec(), "the bundle's deployment drifted");
        String account = deployment.getSpec().getTemplate().getSpec().getServiceAccountName();
        var cluster = spec.getInstall().getSpec().getClusterPermissions();
        assertEquals(1, cluster.size());
        assertEquals(account, cluster.get(0).getServiceAccountName());
        var expected = new java.util.ArrayList<>(generated.get(ClusterRole.class, "kube-queue-controller").getRules()
                .stream().filter(r -> !r.getApiGroups().contains("apiregistration.k8s.io")
                        && !r.getApiGroups().contains("admissionregistration.k8s.io")).toList());
        expected.addAll(generated.get(Role.class, "kube-queue-controller-quota-tree").getRules());
        assertEquals(expected, cluster.get(0).getRules());
        var namespaced = spec.getInstall().getSpec().getPermissions();
        assertEquals(1, namespaced.size());
        assertEquals(account, namespaced.get(0).getServiceAccountName());
        var ownNamespace = new java.util.ArrayList<>(generated.get(Role.class, "kube-queue-controller-leader-election")
                .getRules());
        ownNamespace.addAll(generated.get(Role.class, "kube-queue-controller-record-key").getRules());
        assertEquals(ownNamespace, namespaced.get(0).getRules(), "the Lease and the record key's Secret");
    }

    @Test
    void theOwnedCrdIsInTheBundleAndIsTheGeneratedOne() throws IOException {
        List<CRDDescription> owned = csv().getSpec().getCustomresourcedefinitions().getOwned();
        assertEquals(List.of("elasticquotatrees.scheduling.sigs.k8s.io", "queuedkinds.kube-queue.io"),
                owned.stream().map(CRDDescription::getName).toList(), "the ElasticQuotaTree (the example's) first");
        for (int i = 0; i < owned.size(); i++) {
            CRDDescription description = owned.get(i);
            CustomResourceDefinition crd = manifests().get(CustomResourceDefinition.class, description.getName());
            assertEquals(crd.getSpec().getNames().getKind(), description.getKind());
            assertTrue(crd.getSpec().getVersions().stream().anyMatch(v -> v.getName().equals(description.getVersion())));
            Path generated = i == 0 ? Rendered.generatedCrd() : Rendered.generatedQueuedKindCrd();
            assertEquals(Rendered.of(generated).get(CustomResourceDefinition.class, crd.getMetadata().getName()), crd);
        }
    }

    /**
     * alm-examples: the console's "create" form starts from it. It must be a JSON array of objects of an owned
     * CRD's kind and version, each one valid for kube-queue's model (unknown fields refused), placed where
     * kube-queue reads the tree (the namespace of its quota-tree Role). It is the seed's example, unchanged.
     */
    @Test
    void theCsvsExampleIsTheSeedsElasticQuotaTreeOfTheOwnedCrd() throws IOException {
        ClusterServiceVersion csv = csv();
        String json = csv.getMetadata().getAnnotations().get("alm-examples");
        assertTrue(json != null, "alm-examples: " + csv.getMetadata().getAnnotations().keySet());
        JsonNode examples = new ObjectMapper().readTree(json);
        assertTrue(examples.isArray(), json);
        assertEquals(1, examples.size(), json);
        JsonNode example = examples.get(0);
        CRDDescription owned = csv.getSpec().getCustomresourcedefinitions().getOwned().get(0);
        CustomResourceDefinition crd = ownedCrd(owned);
        assertEquals(owned.getKind(), example.path("kind").asText());
        assertEquals(crd.getSpec().getGroup() + "/" + owned.getVersion(), example.path("apiVersion").asText());

        ElasticQuotaTree tree = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .treeToValue(example, ElasticQuotaTree.class);
        assertEquals(HasMetadata.getKind(ElasticQuotaTree.class), tree.getKind());
        assertEquals(HasMetadata.getApiVersion(ElasticQuotaTree.class), tree.getApiVersion());
        assertTrue(tree.getMetadata().getName() != null && !tree.getMetadata().getName().isBlank(), json);
        assertTrue(tree.getSpec().getRoot().getName() != null && !tree.getSpec().getRoot().getName().isBlank(), json);
        assertEquals(generated.get(Role.class, "kube-queue-controller-quota-tree").getMetadata().getNamespace(),
                tree.getMetadata().getNamespace(), "kube-queue reads the tree from there only");

        JsonNode seed = ApiServerRules.readAll(Path.of(SEED_TREE)).get(0).path("items").get(0);
        assertEquals(seed, example, "the seed's ElasticQuotaTree, unchanged");
    }

    @Test
    void theCsvsIconIsTheProjectsSvg() throws IOException, ParserConfigurationException, SAXException {
        List<Icon> icons = csv().getSpec().getIcon();
        assertEquals(1, icons.size());
        assertEquals("image/svg+xml", icons.get(0).getMediatype());
        byte[] svg = Base64.getDecoder().decode(icons.get(0).getBase64data());
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        Element root = factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg)).getDocumentElement();
        assertEquals("svg", root.getLocalName());
        assertEquals("http://www.w3.org/2000/svg", root.getNamespaceURI());
        assertEquals(Files.readString(ICON), new String(svg, StandardCharsets.UTF_8));
    }

    /** relatedImages: what a disconnected install must mirror, i.e. every image the Deployment runs. */
    @Test
    void theCsvsRelatedImagesAreTheDeploymentsImages() throws IOException {
        ClusterServiceVersion csv = csv();
        var podSpec = generated.get(Deployment.class, "kube-queue-controller").getSpec().getTemplate().getSpec();
        Set<String> images = Stream.concat(podSpec.getContainers().stream(),
                podSpec.getInitContainers() == null ? Stream.empty() : podSpec.getInitContainers().stream())
                .map(Container::getImage).collect(Collectors.toSet());
        List<RelatedImage> related = csv.getSpec().getRelatedImages();
        assertEquals(images, related.stream().map(RelatedImage::getImage).collect(Collectors.toSet()));
        assertTrue(related.stream().allMatch(r -> r.getName() != null && !r.getName().isBlank()), "" + related);
        assertEquals(generated.controller().getImage(), csv.getMetadata().getAnnotations().get("containerImage"));
    }

    @Test
    void theSuggestedNamespaceIsTheOneTheManifestsInstallInto() throws IOException {
        String namespace = generated.get(Deployment.class, "kube-queue-controller").getMetadata().getNamespace();
        assertTrue(namespace != null && !namespace.isBlank());
        assertEquals(namespace,
                csv().getMetadata().getAnnotations().get("operatorframework.io/suggested-namespace"));
    }
}
