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
 * A typo in the leader-election switch must stop start-up: read leniently, {@code ture} is false, and two
 * replicas would both admit (the same reason the seed's Strict switches are read strictly).
 */
@QuarkusMainTest
@TestProfile(InvalidLeaderElectionSwitchTest.Typo.class)
class InvalidLeaderElectionSwitchTest {

    public static class Typo implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.leader-election.enabled", "ture");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void startUpFailsNamingTheValidValues(LaunchResult result) {
        assertEquals(1, result.exitCode());
        String output = result.getErrorOutput() + result.getOutput();
        assertTrue(output.contains("kube-queue.leader-election.enabled") && output.contains("invalid value 'ture'; valid values: true, false"),
                output);
    }
}
