package io.kubequeue.packaged;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * Kubernetes objects read from rendered or generated manifests (multi-document YAML), with fabric8, and looked
 * up by kind and name. No API server is contacted.
 */
public record Rendered(List<HasMetadata> objects) {

    private static final KubernetesClient PARSER = new KubernetesClientBuilder().build();

    /** Reads every document of a YAML text. */
    public static Rendered of(String yaml) {
        return read(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
    }

    /** Reads every document of a YAML file. */
    public static Rendered of(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Rendered read(InputStream in) {
        return new Rendered(PARSER.load(in).items());
    }

    /** The manifests Quarkus generated at package. */
    public static Rendered generatedManifests() {
        return of(Path.of("target", "kubernetes", "kubernetes.yml"));
    }

    /** The ElasticQuotaTree CRD generated at package from the model class. */
    public static Path generatedCrd() {
        return Path.of("target", "kubernetes", "elasticquotatrees.scheduling.sigs.k8s.io-v1.yml");
    }

    /** The QueuedKind CRD (declared job kinds, docs/kinds.md) generated at package from the model class. */
    public static Path generatedQueuedKindCrd() {
        return Path.of("target", "kubernetes", "queuedkinds.kube-queue.io-v1.yml");
    }

    /** The one object of this kind and name; fails the test naming what there is. */
    public <T extends HasMetadata> T get(Class<T> type, String name) {
        return objects.stream().filter(type::isInstance).map(type::cast)
                .filter(o -> name.equals(o.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new NoSuchElementException("no " + type.getSimpleName() + " " + name + " in "
                        + objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList()));
    }

    /** The container of Deployment {@code kube-queue-controller}. */
    public Container controller() {
        return get(Deployment.class, "kube-queue-controller").getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    /** A container's env vars that have a literal value, by name. */
    public static Map<String, String> literalEnv(Container container) {
        return container.getEnv().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    }

    /** Every object of this kind (its {@code kind} field). */
    public List<HasMetadata> ofKind(String kind) {
        return objects.stream().filter(o -> kind.equals(o.getKind())).toList();
    }
}
