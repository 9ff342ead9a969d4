package io.kubequeue.testing;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubequeue.operator.Manifests;

/** Reads manifests in plain unit tests, with a client that only parses and never connects. */
public final class Parse {

    private static final KubernetesClient CLIENT = new KubernetesClientBuilder().build();

    private Parse() {
    }

    /** The client, for adapters that need its serialization. */
    public static KubernetesClient client() {
        return CLIENT;
    }

    public static List<HasMetadata> yaml(String yaml) {
        return Manifests.read(CLIENT, new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
    }

    /** A batch/v1 Job {@code j} in namespace {@code default} with the given {@code spec} (YAML, unindented). */
    public static Job batchJob(String spec) {
        return (Job) yaml("""
                apiVersion: batch/v1
                kind: Job
                metadata: {name: j, namespace: default}
                spec:
                """ + spec.indent(2)).get(0);
    }

    /** Every object of a classpath resource, e.g. {@code /seed/tfjobs.yaml}. */
    public static List<HasMetadata> resource(String path) {
        InputStream in = Parse.class.getResourceAsStream(path);
        if (in == null) {
            throw new IllegalArgumentException("no test resource " + path);
        }
        return Manifests.read(CLIENT, in);
    }
}
