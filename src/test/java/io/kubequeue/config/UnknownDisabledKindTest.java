package io.kubequeue.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;
import io.kubequeue.testing.WithStrictApiServer;

/** A misspelt kind in {@code kube-queue.disabled-kinds} stops start-up and lists the valid kinds. */
@QuarkusMainTest
@TestProfile(UnknownDisabledKindTest.Misspelt.class)
@WithStrictApiServer
class UnknownDisabledKindTest {

    public static class Misspelt implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.disabled-kinds", "TfJob");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void startUpFailsNamingTheValidKinds(LaunchResult result) {
        String output = result.getErrorOutput() + result.getOutput();
        assertTrue(output.contains("kube-queue.disabled-kinds: unknown kind 'TfJob'; valid kinds: Job, MPIJob, "
                + "PyTorchJob, TFJob, Workflow"), output);
    }
}
