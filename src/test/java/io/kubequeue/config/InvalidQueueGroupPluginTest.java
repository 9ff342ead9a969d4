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

/** Start-up with {@code QueueGroupPlugin=quota} must fail, and say which values are valid. */
@QuarkusMainTest
@TestProfile(InvalidQueueGroupPluginTest.BadPlugin.class)
class InvalidQueueGroupPluginTest {

    /** The env var name of the seed, with a value that is not one of its two. */
    public static class BadPlugin implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("QueueGroupPlugin", "quota");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void startUpFailsNamingTheValidValues(LaunchResult result) {
        assertEquals(1, result.exitCode());
        String output = result.getErrorOutput() + result.getOutput();
        assertTrue(output.contains("QueueGroupPlugin: invalid value 'quota'; valid values: elasticquota, resourcequota"),
                output);
    }
}
