package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.argo.WorkflowKind;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.RunTimeHints;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.testing.RecordingEvents;
import io.kubequeue.testing.TestConfig;
import io.kubequeue.testing.TrustedRecords;

/**
 * The run-time hints (issue 30) against generated tenant values, through the feed with a real scheduler: a queued
 * Workflow (whose CRD keeps any JSON in {@code spec}) with any {@value Annotations#EXPECTED_DURATION} (any string,
 * Go-style durations good and bad, signs, dots, spaces, huge counts, 10,000 characters) and any
 * {@code activeDeadlineSeconds} (any JSON type, huge and negative numbers, floats such as 1e999999999, long strings),
 * seen whole and as its cached copy. Never an exception; each hint is either a duration from above zero to 366 days
 * or absent; an annotation that does not read gives exactly one {@code InvalidExpectedDuration} Warning, one that
 * reads none; and a duration written in h, m and s reads as its sum.
 */
class HostileRunTimeFieldsPropertiesTest {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final WorkflowKind KIND = new WorkflowKind();

    /** A value and, if it is a duration written as meant, what it reads as (else null). */
    record Value(String text, Duration meant) {
    }

    @Property(tries = 1500)
    void anyValueIsABoundedDurationOrAbsentWithOneWarning(@ForAll("expectedDurations") Value expected,
                                                          @ForAll("deadlines") JsonNode deadline) {
        Scheduler scheduler = new Scheduler(SchedulerSettings.defaults(), Clock.systemUTC());
        scheduler.replaceTree(new QuotaTree(List.of(new QuotaNode("g", null, List.of("feed"), null,
                Resources.of("cpu", 4000L)))));
        RecordingEvents events = new RecordingEvents();
        JobFeed feed = new JobFeed(scheduler, new JobDirectory(), events, TestConfig.defaults(),
                TrustedRecords.signatures());
        List<JobObservation> observed = new ArrayList<>();
        feed.onObservation(observed::add);

        Workflow workflow = workflow(expected.text(), deadline);
        feed.observe(KIND, workflow);
        feed.observe(KIND, KIND.pruned(workflow)); // as the informer hands it
        feed.observe(KIND, workflow);

        assertEquals(3, observed.size(), "the workflow is queued as usual, whatever its hints");
        RunTimeHints hints = observed.get(0).runTime();
        for (JobObservation o : observed) {
            assertEquals(hints, o.runTime(), "the cached copy reads the same");
        }
        assertBounded(hints.expected());
        assertBounded(hints.deadline());
        int warnings = events.withReason("InvalidExpectedDuration").size();
        if (expected.text() == null || hints.expected() != null) {
            assertEquals(0, warnings, "read, or absent: no Warning");
        } else {
            assertEquals(1, warnings, "one Warning for a value that does not read: " + events.events());
        }
        if (expected.meant() != null) {
            Duration meant = expected.meant();
            boolean inRange = !meant.isZero() && meant.compareTo(RunTimeFields.LONGEST) <= 0;
            assertEquals(inRange ? meant : null, hints.expected(), expected.text());
        }
        if (deadline.isIntegralNumber() && deadline.canConvertToLong()) {
            long s = deadline.longValue();
            assertEquals(s > 0 && s <= RunTimeFields.LONGEST.toSeconds() ? Duration.ofSeconds(s) : null,
                    hints.deadline(), deadline.toString());
        } else {
            assertEquals(null, hints.deadline(), "anything but a whole number reads as absent");
        }
    }

    private static void assertBounded(Duration d) {
        if (d != null) {
            assertTrue(d.compareTo(Duration.ZERO) > 0 && d.compareTo(RunTimeFields.LONGEST) <= 0, d.toString());
        }
    }

    private static Workflow workflow(String expectedDuration, JsonNode deadline) {
        Map<String, String> annotations = new HashMap<>(Map.of(WorkflowKind.MIN_RESOURCES, "cpu: 1",
                SuspendMark.ANNOTATION_KEY, "true"));
        if (expectedDuration != null) {
            annotations.put(Annotations.EXPECTED_DURATION, expectedDuration);
        }
        Workflow w = new Workflow();
        w.setMetadata(new ObjectMetaBuilder().withName("w").withNamespace("feed").withUid("u").withResourceVersion("1")
                .withCreationTimestamp("2026-01-01T00:00:00Z").withAnnotations(annotations).build());
        ObjectNode spec = JSON.objectNode().put("suspend", true);
        if (deadline != null && !deadline.isMissingNode()) {
            spec.set("activeDeadlineSeconds", deadline);
        }
        w.setSpec(spec);
        return w;
    }

    @Provide
    Arbitrary<Value> expectedDurations() {
        Arbitrary<Value> written = Arbitraries.longs().between(0, 10_000).tuple3().map(t -> {
            StringBuilder text = new StringBuilder();
            if (t.get1() > 0) {
                text.append(t.get1()).append('h');
            }
            if (t.get2() > 0) {
                text.append(t.get2()).append('m');
            }
            text.append(t.get3()).append('s');
            return new Value(text.toString(),
                    Duration.ofHours(t.get1()).plusMinutes(t.get2()).plusSeconds(t.get3()));
        });
        Arbitrary<Value> odd = Arbitraries.of("90m", "1h30m", "45s", "-1h", "+1h", "1.5h", "1h 30m", " 1h", "1h,2m",
                "0s", "0", "1", "h", "1hh", "366d", "367d", "52w", "53w", "1µs", "1ns", "2562047788015215h",
                "9223372036854775807s", "99999999999999999999h", "１h", "1e9s", "PT1H", "null", "")
                .map(s -> new Value(s, null));
        Arbitrary<Value> any = Arbitraries.strings().ofMaxLength(80).map(s -> new Value(s, null));
        Arbitrary<Value> huge = Arbitraries.strings().ofMinLength(10_000).ofMaxLength(10_100).map(s -> new Value(s, null));
        Arbitrary<Value> longDuration = Arbitraries.integers().between(60, 5_000).map(n -> new Value("1s".repeat(n), null));
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, written), net.jqwik.api.Tuple.of(3, odd), net.jqwik.api.Tuple.of(2, any),
                net.jqwik.api.Tuple.of(1, huge), net.jqwik.api.Tuple.of(1, longDuration),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Value(null, null))));
    }

    @Provide
    Arbitrary<JsonNode> deadlines() {
        Arbitrary<JsonNode> numbers = Arbitraries.oneOf(
                Arbitraries.longs().map(JSON::numberNode),
                Arbitraries.longs().between(-10, RunTimeFields.LONGEST.toSeconds() + 10).map(JSON::numberNode),
                Arbitraries.integers().map(JSON::numberNode),
                Arbitraries.doubles().map(JSON::numberNode),
                Arbitraries.bigIntegers().between(java.math.BigInteger.TEN.pow(19), java.math.BigInteger.TEN.pow(400))
                        .map(JSON::numberNode),
                Arbitraries.just(JSON.numberNode(Double.POSITIVE_INFINITY)),
                Arbitraries.just(JSON.numberNode(new java.math.BigDecimal("1e999999999"))));
        Arbitrary<JsonNode> others = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(20).map(JSON::textNode),
                Arbitraries.strings().ofMinLength(10_000).ofMaxLength(10_100).map(JSON::textNode),
                Arbitraries.longs().map(l -> JSON.textNode(Long.toString(l))),
                Arbitraries.of(true, false).map(JSON::booleanNode),
                Arbitraries.just(JSON.nullNode()),
                Arbitraries.just(JSON.missingNode()),
                Arbitraries.longs().map(l -> JSON.arrayNode().add(l)),
                Arbitraries.longs().map(l -> JSON.objectNode().put("seconds", l)));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, numbers), net.jqwik.api.Tuple.of(2, others));
    }
}
