package io.kubequeue.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * JobSets (jobset.x-k8s.io/v1alpha2, a kind kube-queue queues by declaration: docs/kinds.md) for tests against a
 * test API server: its upstream CRD installed, suspended JobSets of one replicated job created, read and asked.
 */
public final class JobSets {

    /** The JobSet resource, as fabric8's generic client names it. */
    public static final ResourceDefinitionContext JOBSETS = new ResourceDefinitionContext.Builder()
            .withGroup("jobset.x-k8s.io").withVersion("v1alpha2").withKind("JobSet").withPlural("jobsets")
            .withNamespaced(true).build();

    private JobSets() {
    }

    /** Installs JobSet's upstream CRD (v0.12.0, src/test/resources/crds): the kind served, its schema readable. */
    public static void installCrd(KubernetesClient client) {
        try (InputStream in = new GZIPInputStream(JobSets.class.getResourceAsStream(
                "/crds/jobset.x-k8s.io_jobsets.yaml.gz"))) {
            client.apiextensions().v1().customResourceDefinitions().resource(client.getKubernetesSerialization()
                    .unmarshal(in, CustomResourceDefinition.class)).createOr(c -> c.update());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Creates a suspended JobSet in namespace default: one replicated job of one replica, {@code pods} pods
     * (parallelism = completions) of {@code cpu} each.
     */
    public static GenericKubernetesResource create(KubernetesClient client, String name, int pods, String cpu) {
        String yaml = """
                apiVersion: jobset.x-k8s.io/v1alpha2
                kind: JobSet
                metadata:
                  name: %s
                  namespace: default
                spec:
                  suspend: true
                  replicatedJobs:
                    - name: workers
                      replicas: 1
                      template:
                        spec:
                          parallelism: %d
                          completions: %d
                          template:
                            spec:
                              restartPolicy: Never
                              containers:
                                - name: w
                                  image: busybox
                                  resources:
                                    requests:
                                      cpu: "%s"
                """.formatted(name, pods, pods, cpu);
        return client.genericKubernetesResources(JOBSETS).inNamespace("default").resource(
                client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class)).create();
    }

    /** The JobSet of that name in namespace default, or null. */
    public static GenericKubernetesResource get(KubernetesClient client, String name) {
        return client.genericKubernetesResources(JOBSETS).inNamespace("default").withName(name).get();
    }

    /** Whether the JobSet's {@code spec.suspend} is true. */
    public static boolean suspended(GenericKubernetesResource job) {
        Object spec = job.getAdditionalProperties().get("spec");
        return spec instanceof Map<?, ?> m && Boolean.TRUE.equals(m.get("suspend"));
    }
}
