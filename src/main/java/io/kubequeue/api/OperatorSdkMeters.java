package io.kubequeue.api;

import java.util.Map;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * The Java Operator SDK's own meters (one set per controller, i.e. per job kind: reconciliations, their queue, the
 * objects its informer holds) under kube-queue's prefix, {@code kube_queue_operator_sdk_}, each with a help text.
 * JOSDK registers them as {@code reconciliations.started.total}, {@code custom_resources} … with no description, so
 * a scrape showed unprefixed series with empty {@code # HELP} next to kube-queue's (issue 29). They are known by the
 * {@value #CONTROLLER_TAG} tag, which JOSDK puts on every one of them and no other meter here carries; one whose name
 * is not listed below (a newer JOSDK's) gets the prefix and a generic help.
 */
public final class OperatorSdkMeters {

    /** The tag JOSDK's meters carry: the controller's name ({@code job}, {@code tfjob} …). */
    static final String CONTROLLER_TAG = "controller.name";
    /** The prefix they get, before Prometheus' naming: {@code kube_queue_operator_sdk_reconciliations_queue}. */
    static final String PREFIX = "kube_queue_operator_sdk.";

    private static final Map<String, String> HELP = Map.of(
            "reconciliations.started.total", "Java Operator SDK: reconciliations started, per controller (one per"
                    + " job kind); each feeds one observation of a job to the scheduler",
            "reconciliations.success.total", "Java Operator SDK: reconciliations that ended without an error",
            "reconciliations.failure.total", "Java Operator SDK: reconciliations that ended with an error (JOSDK"
                    + " retries them; the log has the error)",
            "reconciliations.retries.total", "Java Operator SDK: reconciliations retried after an error",
            "reconciliations.active", "Java Operator SDK: reconciliations running now",
            "reconciliations.queue", "Java Operator SDK: reconciliations waiting for a thread",
            "reconciliations.execution.duration", "Java Operator SDK: time one reconciliation takes",
            "custom_resources", "Java Operator SDK: objects of the controller's kind in its informer's cache",
            "events.received", "Java Operator SDK: watch events received by the controller");

    /** The filter, applied by Quarkus to every registry. */
    @Produces
    @Singleton
    public MeterFilter operatorSdkMeters() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return rename(id);
            }
        };
    }

    /** The id under kube-queue's prefix with its help, if it is one of JOSDK's; else the id as it is. */
    static Meter.Id rename(Meter.Id id) {
        if (id.getTag(CONTROLLER_TAG) == null || id.getName().startsWith(PREFIX)) {
            return id;
        }
        String help = HELP.getOrDefault(id.getName(), "Java Operator SDK: " + id.getName().replace('.', ' ')
                + ", per controller");
        return new Meter.Id(PREFIX + id.getName(), io.micrometer.core.instrument.Tags.of(id.getTagsAsIterable()),
                id.getBaseUnit(), id.getDescription() == null || id.getDescription().isBlank() ? help
                : id.getDescription(), id.getType());
    }
}
