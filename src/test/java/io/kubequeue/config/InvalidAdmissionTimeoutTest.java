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
 * A negative admission timeout cannot mean anything (zero is off): start-up stops, naming the setting and the valid
 * forms, before any job is admitted under a timeout nobody meant.
 */
@QuarkusMainTest
@TestProfile(InvalidAdmissionTimeoutTest.Negative.class)
class InvalidAdmissionTimeoutTest {

    public static class Negative implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.admission-timeout", "-10m");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void startUpFailsNamingTheValidForms(LaunchResult result) {
        assertEquals(1, result.exitCode());
        String output = result.getErrorOutput() + result.getOutput();
        assertTrue(output.contains("kube-queue.admission-timeout"), output);
        assertTrue(output.contains("invalid duration '-10m': must not be negative; valid forms: 0 (off), a whole number"
                + " of seconds (90)"), output);
    }
}
