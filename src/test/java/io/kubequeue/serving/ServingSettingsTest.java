package io.kubequeue.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.testing.TestConfig;

/** The HTTPS port's settings: a bad one stops start-up with a message naming it and what it takes. */
class ServingSettingsTest {

    @Test
    void aPortThatIsNoPortStopsStartUp() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new HttpsEndpoint(null,
                TestConfig.fromEnv(Map.of("KUBE_QUEUE_SERVING_PORT", "70000")), null, null, null, null, null, null,
                null, null, null));
        assertEquals("kube-queue.serving.port (KUBE_QUEUE_SERVING_PORT): must be a TCP port, 1 to 65535 (0: any free"
                + " port, for tests); got 70000", e.getMessage());
    }

    @Test
    void aCertificateFileWithoutItsKeyStopsStartUp() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new CertificateSource(null,
                Optional.of(Path.of("/etc/tls/tls.crt")), Optional.empty(), "kube-queue", "kube-queue-tls",
                "kube-queue-controller", Clock.systemUTC()));
        assertTrue(e.getMessage().startsWith("kube-queue.serving.cert-file and kube-queue.serving.key-file go together"),
                e.getMessage());
    }

    @Test
    void theDefaultsAreThoseTheShippedObjectsName() {
        KubeQueueConfig.Serving s = TestConfig.kubeQueue(Map.of()).serving();
        assertEquals(false, s.enabled(), "off unless the manifests or the chart switch it on");
        assertEquals(8443, s.port());
        assertEquals("kube-queue-tls", s.secret());
        assertEquals("kube-queue-controller", s.service());
        assertEquals("v1alpha1.visibility.kube-queue.io", s.apiService());
        assertEquals("kube-queue-suspend-at-creation", s.webhookConfiguration());
        assertTrue(s.suspendAtCreationInNames().isEmpty());
        assertEquals(java.util.Set.of("a", "*"), TestConfig.fromEnv(Map.of("KUBE_QUEUE_SERVING_SUSPEND_AT_CREATION_IN",
                " a, *,")).serving().suspendAtCreationInNames());
    }

    @Test
    void aSwitchThatIsNeitherTrueNorFalseStopsStartUp() {
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> TestConfig.fromEnv(Map.of("KUBE_QUEUE_SERVING_ENABLED", "yes")).serving().enabled());
        assertTrue(String.valueOf(e.getMessage()).contains("true") || String.valueOf(e.getCause()).contains("true"),
                "names the valid values: " + e);
    }
}
