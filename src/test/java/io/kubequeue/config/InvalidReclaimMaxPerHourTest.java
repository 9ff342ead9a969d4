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

/** A job must be allowed to be a reclaim's victim at least once an hour: 0 stops start-up, naming the range. */
@QuarkusMainTest
@TestProfile(InvalidReclaimMaxPerHourTest.Zero.class)
class InvalidReclaimMaxPerHourTest {

    public static class Zero implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.reclaim.enabled", "true", "kube-queue.reclaim.max-per-hour", "0");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void startUpFailsNamingTheSetting(LaunchResult result) {
        assertEquals(1, result.exitCode());
        String output = result.getErrorOutput() + result.getOutput();
        assertTrue(output.contains("kube-queue.reclaim.max-per-hour: must be from 1 to 60, got 0"), output);
    }
}
