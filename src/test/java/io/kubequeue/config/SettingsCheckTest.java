package io.kubequeue.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.kubequeue.testing.TestConfig;

/**
 * Every bad setting, one row each: {@link SettingsCheck#check} (what start-up runs first) refuses it with a message
 * that names the setting and what is valid. Two full launches show that such a refusal stops start-up
 * ({@code InvalidQueueGroupPluginTest} for a converter's, {@code UnknownDisabledKindTest} for a rule's); the rows
 * here replace a launch per setting.
 */
class SettingsCheckTest {

    private static final Set<String> KINDS = Set.of("Job", "MPIJob", "PyTorchJob", "TFJob", "Workflow");

    /**
     * @param env      true: the settings are env vars (as the seed names them, mapped by the shipped
     *                 application.properties), else properties
     * @param settings what is set
     * @param expected fragments the message (with its causes) must hold
     */
    record Row(String name, boolean env, Map<String, String> settings, String... expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> badSettings() {
        return Stream.of(
                new Row("QueueGroupPlugin unknown", true, Map.of("QueueGroupPlugin", "quota"),
                        "QueueGroupPlugin: invalid value 'quota'; valid values: elasticquota, resourcequota"),
                new Row("StrictPriority not a boolean", true, Map.of("StrictPriority", "yes"),
                        "StrictPriority: invalid value 'yes'; valid values: true, false"),
                new Row("StrictConsistency not a boolean", true, Map.of("StrictConsistency", "1"),
                        "StrictConsistency: invalid value '1'; valid values: true, false"),
                new Row("admission timeout negative", false, Map.of("kube-queue.admission-timeout", "-10m"),
                        "kube-queue.admission-timeout", "invalid duration '-10m': must not be negative; valid forms: "
                                + "0 (off), a whole number of seconds (90)"),
                new Row("admission timeout past the end of time", false,
                        Map.of("kube-queue.admission-timeout", "400000000000d"), "kube-queue.admission-timeout",
                        "invalid duration '400000000000d': out of range; valid: 0 (off), or from 1s to 365d"),
                new Row("leader election switch misspelt", false, Map.of("kube-queue.leader-election.enabled", "ture"),
                        "kube-queue.leader-election.enabled", "invalid value 'ture'; valid values: true, false"),
                new Row("lease shorter than its renew deadline", false,
                        Map.of("kube-queue.leader-election.lease-duration", "5s",
                                "kube-queue.leader-election.renew-deadline", "10s"),
                        "kube-queue.leader-election: lease-duration (PT5S) must be longer than renew-deadline (PT10S)"),
                new Row("renew deadline shorter than the retry period", false,
                        Map.of("kube-queue.leader-election.renew-deadline", "2s",
                                "kube-queue.leader-election.retry-period", "3s"),
                        "renew-deadline longer than retry-period (PT3S)"),
                new Row("first list timeout negative", false, Map.of("kube-queue.first-list-timeout", "-1s"),
                        "kube-queue.first-list-timeout: must be from 0s to 1h, got '-1s'"),
                new Row("read API authentication misspelt", false, Map.of("kube-queue.read-api.authentication", "off"),
                        "kube-queue.read-api.authentication", "kubernetes", "none"),
                new Row("reclaim never allowed", false,
                        Map.of("kube-queue.reclaim.enabled", "true", "kube-queue.reclaim.max-per-hour", "0"),
                        "kube-queue.reclaim.max-per-hour: must be from 1 to 60, got 0"),
                new Row("backoff initial above max", false,
                        Map.of("kube-queue.backoff.initial", "30s", "kube-queue.backoff.max", "20s"),
                        "kube-queue.backoff: initial (PT30S) must not be longer than max (PT20S)"),
                new Row("in-flight admissions zero", false, Map.of("kube-queue.admission.in-flight", "0"),
                        "kube-queue.admission.in-flight: must be from 1 to 1024"),
                new Row("events queue not a number", false, Map.of("kube-queue.events.queue-size", "many"),
                        "kube-queue.events.queue-size"),
                new Row("the seed's env vars reach the settings", true, Map.of("StrictPriority", "true",
                        "KUBE_QUEUE_DISABLED_KINDS", "TfJob"), "unknown kind 'TfJob'"),
                new Row("disabled kind misspelt", false, Map.of("kube-queue.disabled-kinds", "TFJob,TfJob"),
                        "kube-queue.disabled-kinds: unknown kind 'TfJob'; valid kinds: Job, MPIJob, PyTorchJob, "
                                + "TFJob, Workflow"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSettings")
    void aBadSettingIsRefusedNamingTheSettingAndWhatIsValid(Row row) {
        RuntimeException e = assertThrows(RuntimeException.class, () -> SettingsCheck.check(
                row.env() ? TestConfig.fromSeedEnv(row.settings()) : TestConfig.kubeQueue(row.settings()), KINDS));
        String messages = messages(e);
        for (String fragment : row.expected()) {
            assertTrue(messages.contains(fragment), row + ": " + messages);
        }
    }

    static Stream<Map<String, String>> goodSettings() {
        return Stream.of(Map.of(),
                Map.of("kube-queue.disabled-kinds", " TFJob , Workflow ", "kube-queue.backoff.initial", "20s"),
                Map.of("kube-queue.leader-election.enabled", "false", "kube-queue.leader-election.lease-duration", "5s",
                        "kube-queue.leader-election.renew-deadline", "10s"),
                Map.of("kube-queue.reclaim.enabled", "true", "kube-queue.reclaim.max-per-hour", "60"));
    }

    /** The defaults pass, and so does each edge a bad row is next to (so no row passes by refusing everything). */
    @ParameterizedTest
    @MethodSource("goodSettings")
    void aGoodSettingPasses(Map<String, String> settings) {
        assertDoesNotThrow(() -> SettingsCheck.check(TestConfig.kubeQueue(settings), KINDS));
    }

    /** The message of the exception and of its causes: SmallRye wraps the converter's. */
    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append(" / ");
        }
        return all.toString();
    }
}
