package io.kubequeue.events;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.ManagementPort;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/** The events' series are served from the first scrape, for every reason kube-queue writes (issue 27). */
@QuarkusTest
@WithStrictApiServer
class EventSeriesTest {

    @Test
    void everyReasonHasItsSeriesOnTheFirstScrape() {
        List<String> lines = ManagementPort.given().when().get("/q/metrics").then().statusCode(200).extract()
                .asString().lines().toList();
        for (String reason : EventTally.REASONS) {
            for (String outcome : List.of("written", "aggregated", "dropped")) {
                assertTrue(lines.stream().anyMatch(l -> l.startsWith("kube_queue_events_total{")
                        && l.contains("reason=\"" + reason + "\"") && l.contains("outcome=\"" + outcome + "\"")),
                        reason + " " + outcome + " in " + lines.stream().filter(l -> l.contains("_events")).toList());
            }
            for (String cause : List.of("rate_limit", "waited_too_long", "queue_full", "write_failed")) {
                assertTrue(lines.stream().anyMatch(l -> l.startsWith("kube_queue_events_dropped_total{")
                        && l.contains("reason=\"" + reason + "\"") && l.contains("cause=\"" + cause + "\"")),
                        reason + " " + cause);
            }
        }
    }
}
