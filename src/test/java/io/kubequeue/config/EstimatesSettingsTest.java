package io.kubequeue.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.TestConfig;

/**
 * The start-time estimates' settings (issue 30): their env var names, shipped defaults and ranges
 * (docs/configuration.md); a bad one stops start-up ({@link SettingsCheck}) naming the setting and what is valid.
 */
class EstimatesSettingsTest {

    private static final Set<String> KINDS = Set.of("Job", "MPIJob", "PyTorchJob", "TFJob", "Workflow");

    @Test
    void theShippedDefaults() {
        KubeQueueConfig.Estimates estimates = TestConfig.defaults().estimates();
        assertTrue(estimates.enabled());
        assertEquals(Duration.ofSeconds(5), estimates.interval());
        assertEquals(Duration.ofDays(30), estimates.horizon());
        assertEquals(200_000, estimates.maxCycles());
    }

    @Test
    void eachSettingIsReadFromItsEnvVar() {
        KubeQueueConfig.Estimates estimates = TestConfig.fromEnv(Map.of("KUBE_QUEUE_ESTIMATES_ENABLED", "FALSE",
                "KUBE_QUEUE_ESTIMATES_INTERVAL", "0s", "KUBE_QUEUE_ESTIMATES_HORIZON", "2d",
                "KUBE_QUEUE_ESTIMATES_MAX_CYCLES", "1000")).estimates();
        assertEquals(false, estimates.enabled());
        assertEquals(Duration.ZERO, estimates.interval());
        assertEquals(Duration.ofDays(2), estimates.horizon());
        assertEquals(1000, estimates.maxCycles());
    }

    @Test
    void aBadValueStopsStartUpNamingTheSettingAndWhatIsValid() {
        Map<String, String> bad = Map.of("kube-queue.estimates.enabled", "yes",
                "kube-queue.estimates.interval", "-1s",
                "kube-queue.estimates.horizon", "30s",
                "kube-queue.estimates.max-cycles", "0");
        Map<String, String> valid = Map.of("kube-queue.estimates.enabled", "valid values: true, false",
                "kube-queue.estimates.interval", "from 0s to 1h",
                "kube-queue.estimates.horizon", "from 1m to 365d",
                "kube-queue.estimates.max-cycles", "from 1 to 10000000");
        for (Map.Entry<String, String> setting : bad.entrySet()) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> SettingsCheck.check(
                    TestConfig.kubeQueue(Map.of(setting.getKey(), setting.getValue())), KINDS), setting.getKey());
            String messages = messages(e);
            assertTrue(messages.contains(setting.getKey()) && messages.contains(valid.get(setting.getKey())),
                    messages);
        }
    }

    @Test
    void theEdgesOfEachRangePass() {
        SettingsCheck.check(TestConfig.kubeQueue(Map.of("kube-queue.estimates.interval", "1h",
                "kube-queue.estimates.horizon", "1m", "kube-queue.estimates.max-cycles", "10000000")), KINDS);
        SettingsCheck.check(TestConfig.kubeQueue(Map.of("kube-queue.estimates.interval", "0s",
                "kube-queue.estimates.horizon", "365d", "kube-queue.estimates.max-cycles", "1")), KINDS);
    }

    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
