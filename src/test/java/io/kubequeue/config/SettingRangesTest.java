package io.kubequeue.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.TestConfig;

/**
 * Issue 25, item 3: every duration and number read at start-up has a valid range, and a value outside it is
 * refused as the settings are read, with the setting and the range in the message.
 */
class SettingRangesTest {

    /** Each setting with a value past its range's upper end, as written, and the range the message must name. */
    private static final Map<String, String> RANGES = new LinkedHashMap<>();

    static {
        RANGES.put("kube-queue.first-list-timeout", "from 0s to 1h");
        RANGES.put("kube-queue.shutdown-deadline", "from 1s to 1h");
        RANGES.put("kube-queue.backoff.initial", "from 10ms to 1h");
        RANGES.put("kube-queue.backoff.max", "from 10ms to 1h");
        RANGES.put("kube-queue.leader-election.lease-duration", "from 1s to 10m");
        RANGES.put("kube-queue.leader-election.renew-deadline", "from 1s to 10m");
        RANGES.put("kube-queue.leader-election.retry-period", "from 100ms to 1m");
        RANGES.put("kube-queue.admission.batch-window", "from 0s to 1m");
        RANGES.put("kube-queue.read-api.cache-for", "from 1s to 10m");
    }

    private static final Map<String, String> NUMBER_RANGES = Map.of(
            "kube-queue.admission.in-flight", "from 1 to 1024",
            "kube-queue.admission.workers", "from 1 to 64",
            "kube-queue.reclaim.max-per-hour", "from 1 to 60");

    @Test
    void aDurationPastTheEndOfTimeIsRefusedForEverySettingNamingItsRange() {
        for (Map.Entry<String, String> setting : RANGES.entrySet()) {
            RuntimeException e = assertThrows(RuntimeException.class,
                    () -> touchAll(TestConfig.kubeQueue(Map.of(setting.getKey(), "400000000000d"))), setting.getKey());
            assertTrue(messages(e).contains(setting.getKey() + ": must be " + setting.getValue()
                    + ", got '400000000000d'"), messages(e));
        }
    }

    @Test
    void anAdmissionTimeoutPastTheEndOfTimeIsRefusedNamingTheRange() {
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> TestConfig.fromEnv(Map.of("KUBE_QUEUE_ADMISSION_TIMEOUT", "400000000000d")).admissionTimeout());
        assertTrue(messages(e).contains("invalid duration '400000000000d': out of range; valid: 0 (off), or from 1s"
                + " to 365d"), messages(e));
    }

    @Test
    void aNumberOutsideItsRangeIsRefusedForEverySettingNamingItsRange() {
        for (Map.Entry<String, String> setting : NUMBER_RANGES.entrySet()) {
            for (String bad : new String[] {"0", "100000", "99999999999999999999", "many"}) {
                RuntimeException e = assertThrows(RuntimeException.class,
                        () -> touchAll(TestConfig.kubeQueue(Map.of(setting.getKey(), bad))), setting.getKey());
                assertTrue(messages(e).contains(setting.getKey() + ": must be "), messages(e));
                assertTrue(messages(e).contains(setting.getValue()), messages(e));
            }
        }
    }

    @Test
    void theEndsOfEachRangeAreValidAndTheDefaultsLieInside() {
        KubeQueueConfig defaults = TestConfig.defaults();
        assertDoesNotThrow(() -> touchAll(defaults));
        Map<String, String> ends = new LinkedHashMap<>();
        RANGES.forEach((setting, range) -> ends.put(setting, range.substring(range.lastIndexOf(' ') + 1)));
        ends.put("kube-queue.admission-timeout", "365d");
        ends.put("kube-queue.backoff.initial", "10ms"); // the lower end: initial must not exceed max
        ends.put("kube-queue.leader-election.lease-duration", "10m");
        ends.put("kube-queue.leader-election.renew-deadline", "5m");
        ends.put("kube-queue.leader-election.retry-period", "1m");
        ends.put("kube-queue.admission.in-flight", "1024");
        ends.put("kube-queue.admission.workers", "64");
        ends.put("kube-queue.reclaim.max-per-hour", "60");
        KubeQueueConfig upper = TestConfig.kubeQueue(ends);
        assertDoesNotThrow(() -> touchAll(upper));
        assertEquals(Duration.ofDays(365), upper.admissionTimeout().orElseThrow());
        assertEquals(Duration.ofHours(1), upper.backoff().max());
        assertEquals(1024, upper.admission().inFlight());
    }

    @Test
    void theRangeChecksAgreeWithTheConverters() {
        assertEquals("kube-queue.read-api.cache-for: must be from 1s to 10m, got PT11M",
                assertThrows(IllegalArgumentException.class,
                        () -> SettingRanges.READ_API_CACHE_FOR.check(Duration.ofMinutes(11))).getMessage());
        assertEquals(Duration.ofMinutes(10), SettingRanges.READ_API_CACHE_FOR.check(Duration.ofMinutes(10)));
        assertEquals(60, SettingRanges.RECLAIM_MAX_PER_HOUR.check(60));
    }

    /** Reads every setting (a config mapping may convert lazily), as start-up does. */
    private static void touchAll(KubeQueueConfig c) {
        SettingsCheck.readEverySetting(c);
    }

    /** The message of the exception and of its causes: SmallRye wraps the converter's. */
    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append(" / ");
        }
        return all.toString();
    }
}
