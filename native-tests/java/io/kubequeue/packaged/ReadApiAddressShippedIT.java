package io.kubequeue.packaged;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.marcnuri.helm.Helm;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.openshift.api.model.operatorhub.v1alpha1.ClusterServiceVersion;

/**
 * A follower forwards read API calls to the address the leader publishes on its Lease, {@code http://$POD_IP:8080}
 * (io.kubequeue.leader.ReadApiLeaderAddress): every install path (the generated manifests, the Helm chart, the OLM
 * bundle's ClusterServiceVersion) gives the container {@code POD_IP} from the pod's {@code status.podIP}, and the
 * read API on container port 8080, named {@code http}.
 */
class ReadApiAddressShippedIT {

    private static final Path BUNDLE_MANIFESTS = Path.of("target", "bundle", "kube-queue", "manifests");

    @Test
    void everyInstallPathGivesThePodItsIpAndTheReadApiItsPort() throws IOException {
        Container generated = Rendered.generatedManifests().controller();
        Container chart = Rendered.of(new Helm(Path.of("helm", "kube-queue")).template().withName("kq")
                .withNamespace("kube-queue").withKubeVersion("1.31.0").call()).controller();
        Container bundled = bundledController();
        for (Map.Entry<String, Container> path : Map.of("generated manifests", generated, "Helm chart", chart,
                "OLM bundle", bundled).entrySet()) {
            Container c = path.getValue();
            List<EnvVar> podIp = c.getEnv().stream().filter(e -> e.getName().equals("POD_IP")).toList();
            assertEquals(1, podIp.size(), path.getKey() + ": " + c.getEnv());
            assertTrue(podIp.get(0).getValueFrom() != null && podIp.get(0).getValueFrom().getFieldRef() != null,
                    path.getKey() + ": POD_IP from the downward API");
            assertEquals("status.podIP", podIp.get(0).getValueFrom().getFieldRef().getFieldPath(), path.getKey());
            assertTrue(c.getPorts().stream().anyMatch(p -> "http".equals(p.getName()) && p.getContainerPort() == 8080),
                    path.getKey() + ": " + c.getPorts());
        }
    }

    private static Container bundledController() throws IOException {
        try (Stream<Path> files = Files.list(BUNDLE_MANIFESTS)) {
            List<HasMetadata> objects = files.sorted().flatMap(f -> Rendered.of(f).objects().stream()).toList();
            ClusterServiceVersion csv = (ClusterServiceVersion) objects.stream()
                    .filter(o -> o instanceof ClusterServiceVersion).findFirst().orElseThrow();
            return csv.getSpec().getInstall().getSpec().getDeployments().get(0).getSpec().getTemplate().getSpec()
                    .getContainers().get(0);
        }
    }
}
