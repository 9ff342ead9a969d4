package io.kubequeue.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.kubequeue.config.ReadApiForwardingConfig;

/** {@code kube-queue.read-api.forward-wait} outside 0 to 30 s stops start-up, naming the setting and its range. */
class ReadApiForwardWaitSettingTest {

    @Test
    void aWaitOutsideItsRangeIsRefused() {
        for (Duration bad : java.util.List.of(Duration.ofMillis(-1), Duration.ofSeconds(31), Duration.ofDays(100_000))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new ReadApiForwarding(null, null, null, null, settings(bad)));
            assertEquals("kube-queue.read-api.forward-wait: must be from 0s to 30s, got " + bad, e.getMessage());
        }
    }

    private static ReadApiForwardingConfig settings(Duration wait) {
        return new ReadApiForwardingConfig() {
            @Override
            public Optional<String> advertisedUrl() {
                return Optional.empty();
            }

            @Override
            public Duration forwardWait() {
                return wait;
            }
        };
    }
}
