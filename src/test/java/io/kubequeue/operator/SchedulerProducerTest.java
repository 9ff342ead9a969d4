package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.testing.TestConfig;

/** The reclaim and admission-timeout settings reach the scheduler; bad ones stop start-up naming the valid values. */
class SchedulerProducerTest {

    private static SchedulerSettings settings(Map<String, String> env) {
        return new SchedulerProducer().scheduler(TestConfig.fromEnv(env)).settings();
    }

    @Test
    void byDefaultReclaimAndTheAdmissionTimeoutAreOff() {
        SchedulerSettings defaults = settings(Map.of());
        assertEquals(SchedulerSettings.Reclaim.OFF, defaults.reclaim());
        assertNull(defaults.admissionTimeout());
    }

    @Test
    void theEnvVarsSwitchThemOn() {
        SchedulerSettings on = settings(Map.of("KUBE_QUEUE_RECLAIM_ENABLED", "true",
                "KUBE_QUEUE_RECLAIM_MAX_PER_HOUR", "5", "KUBE_QUEUE_ADMISSION_TIMEOUT", "1h30m"));
        assertEquals(new SchedulerSettings.Reclaim(true, 5), on.reclaim());
        assertEquals(Duration.ofMinutes(90), on.admissionTimeout());
        assertEquals(new SchedulerSettings.Reclaim(true, 3), settings(Map.of("KUBE_QUEUE_RECLAIM_ENABLED", "TRUE")).reclaim(),
                "three times an hour by default");
        assertNull(settings(Map.of("KUBE_QUEUE_ADMISSION_TIMEOUT", "0")).admissionTimeout(), "zero: off");
    }

    @Test
    void aBadSettingStopsStartUpNamingTheValidValues() {
        RuntimeException perHour = assertThrows(RuntimeException.class,
                () -> settings(Map.of("KUBE_QUEUE_RECLAIM_ENABLED", "true", "KUBE_QUEUE_RECLAIM_MAX_PER_HOUR", "0")));
        assertTrue(messages(perHour).contains("kube-queue.reclaim.max-per-hour: must be from 1 to 60, got 0"),
                messages(perHour));
        assertThrows(RuntimeException.class, () -> settings(Map.of("KUBE_QUEUE_RECLAIM_MAX_PER_HOUR", "-1")),
                "refused even with reclaim off: it would be wrong the day reclaim is switched on");
        for (Map.Entry<String, String> bad : Map.of("KUBE_QUEUE_RECLAIM_ENABLED", "valid values: true, false",
                "KUBE_QUEUE_ADMISSION_TIMEOUT", "valid forms: 0 (off)").entrySet()) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> settings(Map.of(bad.getKey(), "ture")));
            assertTrue(messages(e).contains(bad.getValue()), bad.getKey() + ": " + messages(e));
        }
        RuntimeException negative = assertThrows(RuntimeException.class,
                () -> settings(Map.of("KUBE_QUEUE_ADMISSION_TIMEOUT", "-5m")));
        assertTrue(messages(negative).contains("invalid duration '-5m': must not be negative"), messages(negative));
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
