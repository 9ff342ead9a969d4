package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/**
 * Settings from the ConfigMap {@code kube-queue-config}, mounted as {@code config/application.properties} in the
 * working directory ({@code /deployments} in the image): read above the built-in settings, below env vars
 * (docs/configuration.md, "Precedence"). Shown on the packaged artifact through a setting whose bad value stops
 * start-up with a message.
 */
class ConfigMapSettingsIT {

    @TempDir
    Path workingDirectory;

    private KubernetesMockServer server;
    private PackagedOperator replica;

    @BeforeEach
    void startApiServer() throws Exception {
        server = PackagedOperator.mockApiServer();
        Files.createDirectories(workingDirectory.resolve("config"));
        Files.writeString(workingDirectory.resolve("config").resolve("application.properties"),
                "kube-queue.queue-group-plugin=quota\n");
    }

    @AfterEach
    void stop() {
        if (replica != null) {
            replica.close();
        }
        server.destroy();
    }

    private PackagedOperator start(String name, Map<String, String> env) {
        replica = PackagedOperator.startIn(workingDirectory, name, server.createClient().getConfiguration()
                .getMasterUrl(), env);
        return replica;
    }

    @Test
    void theMountedFileIsReadAboveTheBuiltInSettings() {
        PackagedOperator r = start("configmap-read", Map.of("KUBE_QUEUE_LEADER_ELECTION_ENABLED", "false"));
        OptionalInt exit = r.exitWithin(Duration.ofSeconds(60));
        assertTrue(exit.isPresent() && exit.getAsInt() != 0, "a bad value in the file must stop start-up; log: "
                + r.logFile());
        assertTrue(r.log().contains("invalid value 'quota'"), r.log());
    }

    @Test
    void envVarsWinOverTheMountedFile() {
        PackagedOperator r = start("configmap-env-wins", Map.of("KUBE_QUEUE_LEADER_ELECTION_ENABLED", "false",
                "KUBE_QUEUE_QUEUE_GROUP_PLUGIN", "elasticquota"));
        await().atMost(Duration.ofSeconds(60)).until(() -> r.ready() || !r.alive());
        assertTrue(r.alive() && r.ready(), "the env var's valid value must win over the file's; log: " + r.logFile());
    }
}
