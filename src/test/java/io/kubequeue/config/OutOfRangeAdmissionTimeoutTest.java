package io.kubequeue.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;

/**
 * Issue 25, sequence 4: {@code KUBE_QUEUE_ADMISSION_TIMEOUT=400000000000d} reads as a Duration but puts every
 * deadline past the end of time; it used to pass start-up and break the first scheduling cycle that admitted a job.
 * Now start-up stops, naming the setting and the valid range.
 */
@QuarkusMainTest
@TestProfile(OutOfRangeAdmissionTimeoutTest.PastTheEndOfTime.class)
class OutOfRangeAdmissionTimeoutTest {

    public static class PastTheEndOfTime implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.admission-timeout", "400000000000d");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void startUpFailsNamingTheSettingAndItsRange(LaunchResult result) {
        assertEquals(1, result.exitCode());
        String output = result.getErrorOutput() + result.getOutput();
        assertTrue(output.contains("kube-queue.admission-timeout"), output);
        assertTrue(output.contains("invalid duration '400000000000d': out of range; valid: 0 (off), or from 1s to"
                + " 365d"), output);
    }
}
