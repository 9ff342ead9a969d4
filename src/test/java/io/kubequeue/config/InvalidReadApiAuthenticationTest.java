package io.kubequeue.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;

/** A typo in the read API's access control must not open it: start-up stops, naming the valid values. */
@QuarkusMainTest
@TestProfile(InvalidReadApiAuthenticationTest.Typo.class)
class InvalidReadApiAuthenticationTest {

    public static class Typo implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.read-api.authentication", "off");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void startUpFailsNamingTheValidValues(LaunchResult result) {
        String output = result.getErrorOutput() + result.getOutput();
        assertTrue(output.contains("kube-queue.read-api.authentication"), output);
        assertTrue(output.contains("kubernetes") && output.contains("none"), output);
    }
}
