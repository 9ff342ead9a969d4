package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/**
 * Issue 29, item 5: {@code KUBE_QUEUE_LOG_JSON=true} makes every log line one JSON object (Quarkus' JSON logging);
 * a value that is neither true nor false stops start-up naming the valid ones.
 */
class LogFormatIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyLineIsAJsonObjectWithLevelLoggerAndMessage() throws Exception {
        KubernetesMockServer api = PackagedOperator.mockApiServer();
        try (KubernetesClient client = api.createClient();
             PackagedOperator replica = PackagedOperator.start("kube-queue-json-logs",
                     client.getConfiguration().getMasterUrl(), Map.of("KUBE_QUEUE_LOG_JSON", "true"))) {
            await("ready").atMost(Duration.ofSeconds(60)).until(() -> {
                if (!replica.alive()) {
                    throw new AssertionError("the replica exited: " + replica.log());
                }
                return replica.ready() && replica.leads();
            });
            List<String> lines = replica.log().lines().filter(l -> !l.isBlank()).toList();
            assertTrue(lines.size() > 5, "it logged: " + lines);
            for (String line : lines) {
                JsonNode object = JSON.readTree(line);
                assertTrue(object.isObject() && object.hasNonNull("level") && object.hasNonNull("loggerName")
                        && object.hasNonNull("message"), "not a JSON log record: " + line);
            }
            assertTrue(lines.stream().anyMatch(l -> l.contains("\"loggerName\":\"io.kubequeue.leader.Leadership\"")
                    && l.contains("leads: admitting")), "kube-queue's own lines too: " + lines);
        } finally {
            api.destroy();
        }
    }

    @Test
    void aValueNeitherTrueNorFalseStopsStartUpNamingTheValidOnes() {
        KubernetesMockServer api = PackagedOperator.mockApiServer();
        try (KubernetesClient client = api.createClient();
             PackagedOperator replica = PackagedOperator.start("kube-queue-json-typo",
                     client.getConfiguration().getMasterUrl(), Map.of("KUBE_QUEUE_LOG_JSON", "yes please"))) {
            OptionalInt exit = replica.exitWithin(Duration.ofSeconds(60));
            assertTrue(exit.isPresent(), "start-up went on: " + replica.log());
            assertEquals(1, exit.getAsInt(), replica.log());
            assertTrue(replica.log().contains("invalid value 'yes please'; valid values: true, false"), replica.log());
        } finally {
            api.destroy();
        }
    }
}
