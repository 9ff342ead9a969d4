package io.kubequeue.leader;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;

/**
 * Followers send callers' tokens to the address a leader publishes: one that is not a plain http(s) host and port
 * stops start-up, naming the setting and the valid form, instead of being published.
 */
@QuarkusMainTest
@TestProfile(InvalidAdvertisedUrlTest.WithAPath.class)
class InvalidAdvertisedUrlTest {

    public static class WithAPath implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.read-api.advertised-url", "http://10.1.2.3:8080/somewhere-else");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void startUpFailsNamingTheSettingAndTheValidForm(LaunchResult result) {
        String output = result.getErrorOutput() + result.getOutput();
        assertTrue(output.contains("kube-queue.read-api.advertised-url: must be http:// or https:// with a host and"
                + " an optional port"), output);
        assertTrue(output.contains("got 'http://10.1.2.3:8080/somewhere-else'"), output);
    }
}
