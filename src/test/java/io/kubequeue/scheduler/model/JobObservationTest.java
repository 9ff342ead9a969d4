package io.kubequeue.scheduler.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link JobObservation#newerThan}: which copy of a job is the later one, from resourceVersions alone. */
class JobObservationTest {

    private static JobObservation at(String resourceVersion) {
        return new JobObservation(new JobKey("Job", "a", "j"), "uid", JobObservation.Phase.QUEUED,
                Resources.of("cpu", 1000L), JobPriority.of(0), Instant.EPOCH, null, true, null, resourceVersion);
    }

    @ParameterizedTest(name = "{0} newer than {1}: {2}")
    @CsvSource(nullValues = "null", value = {
            "12, 11, true",
            "11, 12, false",
            "12, 12, false",
            "100, 99, true", // compared as numbers, not as strings
            "99, 100, false",
            "null, 11, false", // a copy without a version is never the newer
            "12, null, false",
            "abc, 11, false", // opaque, not etcd's: never counts as newer
            "12, abc, false",
            "99999999999999999999999, 1, false", // longer than a long: not compared
            "-1, -2, true"})
    void comparesDecimalVersionsOnly(String version, String than, boolean newer) {
        assertEquals(newer, at(version).newerThan(than));
    }
}
