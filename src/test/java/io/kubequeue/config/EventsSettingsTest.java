package io.kubequeue.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.TestConfig;

/** The events' budget settings (issue 27): their env var names, shipped defaults and ranges (docs/configuration.md). */
class EventsSettingsTest {

    @Test
    void theShippedBudget() {
        KubeQueueConfig.Events events = TestConfig.defaults().events();
        assertEquals(5, events.rate());
        assertEquals(200, events.burst());
        assertEquals(Duration.ofSeconds(10), events.aggregateInterval());
        assertEquals(Duration.ofSeconds(30), events.maxWait());
        assertEquals(1000, events.queueSize());
    }

    @Test
    void eachSettingIsReadFromItsEnvVar() {
        KubeQueueConfig.Events events = TestConfig.fromEnv(Map.of("KUBE_QUEUE_EVENTS_RATE", "20",
                "KUBE_QUEUE_EVENTS_BURST", "50", "KUBE_QUEUE_EVENTS_AGGREGATE_INTERVAL", "0s",
                "KUBE_QUEUE_EVENTS_MAX_WAIT", "5m", "KUBE_QUEUE_EVENTS_QUEUE_SIZE", "10")).events();
        assertEquals(20, events.rate());
        assertEquals(50, events.burst());
        assertEquals(Duration.ZERO, events.aggregateInterval());
        assertEquals(Duration.ofMinutes(5), events.maxWait());
        assertEquals(10, events.queueSize());
    }

    @Test
    void aValueOutsideItsRangeIsRefusedNamingIt() {
        Map<String, String> bad = Map.of("kube-queue.events.rate", "0", "kube-queue.events.burst", "100001",
                "kube-queue.events.aggregate-interval", "2h", "kube-queue.events.max-wait", "0s",
                "kube-queue.events.queue-size", "0");
        Map<String, String> ranges = Map.of("kube-queue.events.rate", "from 1 to 1000",
                "kube-queue.events.burst", "from 1 to 100000", "kube-queue.events.aggregate-interval", "from 0s to 1h",
                "kube-queue.events.max-wait", "from 1s to 1h", "kube-queue.events.queue-size", "from 1 to 100000");
        for (Map.Entry<String, String> setting : bad.entrySet()) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> touch(TestConfig.kubeQueue(
                    Map.of(setting.getKey(), setting.getValue()))), setting.getKey());
            String messages = messages(e);
            assertTrue(messages.contains(setting.getKey() + ": must be")
                    && messages.contains(ranges.get(setting.getKey())), messages);
        }
    }

    private static void touch(KubeQueueConfig config) {
        KubeQueueConfig.Events events = config.events();
        events.rate();
        events.burst();
        events.aggregateInterval();
        events.maxWait();
        events.queueSize();
    }

    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
