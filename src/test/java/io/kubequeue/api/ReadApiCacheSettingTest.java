package io.kubequeue.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.kubequeue.config.KubeQueueConfig.ReadApi.Authentication;

/** {@code kube-queue.read-api.cache-for} must be positive and at most 10 minutes (a revoked right reads that long). */
class ReadApiCacheSettingTest {

    private static ReadApiAccess access(Duration cacheFor) {
        return new ReadApiAccess(null, null, Authentication.KUBERNETES, cacheFor, Clock.systemUTC());
    }

    @Test
    void zeroNegativeAndOverTenMinutesAreRefusedNamingTheSetting() {
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofSeconds(-1), Duration.ofMinutes(11)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> access(bad));
            assertTrue(e.getMessage().startsWith("kube-queue.read-api.cache-for:"), e.getMessage());
        }
        assertDoesNotThrow(() -> access(Duration.ofMinutes(10)));
        assertDoesNotThrow(() -> access(Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> access(Duration.ofMillis(999)), "below a second");
    }
}
