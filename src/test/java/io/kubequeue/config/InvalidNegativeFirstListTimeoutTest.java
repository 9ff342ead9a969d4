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

/** A setting that cannot work stops start-up at once with a message that names it, before any recovery. */
@QuarkusMainTest
@TestProfile(InvalidNegativeFirstListTimeoutTest.Bad.class)
class InvalidNegativeFirstListTimeoutTest {

    public static class Bad implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.first-list-timeout", "-1s");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void startUpFailsNamingTheSetting(LaunchResult result) {
        assertEquals(1, result.exitCode());
        String output = result.getErrorOutput() + result.getOutput();
        assertTrue(output.contains("kube-queue.first-list-timeout: must be from 0s to 1h, got '-1s'"), output);
    }
}
