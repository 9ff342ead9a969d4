package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The embedded server's classification of a write (method, path, body → kind), on real requests' shapes. */
class WriteKindTest {

    /** kube-queue's admission patch of a batch Job (AdmissionPatch: tests, then the mark set false, then the record). */
    private static final String ADMISSION = """
            [{"op":"test","path":"/metadata/uid","value":"0b1c"},
             {"op":"test","path":"/metadata/resourceVersion","value":"41"},
             {"op":"test","path":"/spec/suspend","value":true},
             {"op":"replace","path":"/spec/suspend","value":false},
             {"op":"add","path":"/metadata/annotations","value":{"kube-queue.io/quota-group":"leaf-00"}}]""";
    /** The reference's and the probe's (JobWriter.unsuspend). */
    private static final String UNSUSPEND = """
            [{"op":"test","path":"/spec/suspend","value":true},{"op":"replace","path":"/spec/suspend","value":false}]""";
    /** An eviction (EvictionPatch): the mark set again, the record's annotations added. */
    private static final String EVICTION = """
            [{"op":"test","path":"/metadata/uid","value":"0b1c"},
             {"op":"test","path":"/metadata/annotations/kube-queue.io~1admitted-at","value":"2026-12-02T03:00:00Z"},
             {"op":"add","path":"/spec/suspend","value":true},
             {"op":"add","path":"/metadata/annotations/kube-queue.io~1evicted","value":"reclaim"}]""";

    static Stream<Arguments> writes() {
        return Stream.of(
                // admissions: the mark removed, on each job kind and in each patch form
                Arguments.of("PATCH", "/apis/batch/v1/namespaces/kq-bench-00/jobs/small-00-0001", ADMISSION, WriteKind.ADMISSION),
                Arguments.of("PATCH", "/apis/batch/v1/namespaces/kq-bench-07/jobs/small-07-0042?fieldManager=kube-queue",
                        UNSUSPEND, WriteKind.ADMISSION),
                Arguments.of("PATCH", "/apis/argoproj.io/v1alpha1/namespaces/team-a/workflows/wf",
                        "[{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":false}]", WriteKind.ADMISSION),
                Arguments.of("PATCH", "/apis/kubeflow.org/v2beta1/namespaces/team-a/mpijobs/pi",
                        "[{\"op\":\"replace\",\"path\":\"/spec/runPolicy/suspend\",\"value\":false}]", WriteKind.ADMISSION),
                Arguments.of("PATCH", "/apis/kubeflow.org/v1/namespaces/team-a/tfjobs/mnist",
                        "[{\"op\":\"test\",\"path\":\"/metadata/annotations/scheduling.x-k8s.io~1suspend\",\"value\":\"true\"},"
                                + "{\"op\":\"remove\",\"path\":\"/metadata/annotations/scheduling.x-k8s.io~1suspend\"}]",
                        WriteKind.ADMISSION),
                Arguments.of("PATCH", "/apis/batch/v1/namespaces/a/jobs/j", "{\"spec\":{\"suspend\":false}}", WriteKind.ADMISSION),
                Arguments.of("PATCH", "/apis/kubeflow.org/v1/namespaces/a/pytorchjobs/p",
                        "{\"metadata\":{\"annotations\":{\"scheduling.x-k8s.io/suspend\":null}}}", WriteKind.ADMISSION),
                // other writes of a job object
                Arguments.of("PATCH", "/apis/batch/v1/namespaces/kq-bench-00/jobs/large-00-0003", EVICTION, WriteKind.JOB_PATCH),
                Arguments.of("PATCH", "/apis/batch/v1/namespaces/a/jobs/j",
                        "{\"metadata\":{\"annotations\":{\"kube-queue.io/quota-group\":\"leaf-00\"}}}", WriteKind.JOB_PATCH),
                Arguments.of("PATCH", "/apis/batch/v1/namespaces/a/jobs/j", "{\"spec\":{\"suspend\":true}}", WriteKind.JOB_PATCH),
                Arguments.of("PATCH", "/apis/batch/v1/namespaces/a/jobs/j", "not json", WriteKind.JOB_PATCH),
                Arguments.of("PUT", "/apis/batch/v1/namespaces/a/jobs/j", null, WriteKind.JOB_PATCH),
                Arguments.of("POST", "/apis/batch/v1/namespaces/kq-bench-00/jobs", null, WriteKind.JOB_CREATE),
                Arguments.of("DELETE", "/apis/batch/v1/namespaces/kq-bench-00/jobs/j", null, WriteKind.OTHER),
                // events, either API
                Arguments.of("POST", "/apis/events.k8s.io/v1/namespaces/kq-bench-00/events", null, WriteKind.EVENT),
                Arguments.of("PATCH", "/apis/events.k8s.io/v1/namespaces/kq-bench-00/events/small-00-0001.1a2b3c4d",
                        "{\"series\":{\"count\":2}}", WriteKind.EVENT),
                Arguments.of("POST", "/api/v1/namespaces/default/events", null, WriteKind.EVENT),
                Arguments.of("PUT", "/api/v1/namespaces/default/events/x.17a", null, WriteKind.EVENT),
                // status subresources: the Job controller's, the quota tree's, a ResourceQuota's
                Arguments.of("PATCH", "/apis/batch/v1/namespaces/kq-bench-00/jobs/small-00-0001/status",
                        "{\"status\":{\"active\":1}}", WriteKind.STATUS),
                Arguments.of("PATCH", "/apis/scheduling.sigs.k8s.io/v1beta1/namespaces/kube-system/elasticquotatrees/elasticquotatree/status",
                        "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{}}]", WriteKind.STATUS),
                Arguments.of("PUT", "/api/v1/namespaces/team-a/resourcequotas/compute/status", null, WriteKind.STATUS),
                // leader election
                Arguments.of("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-queue/leases/kube-queue-leader", null, WriteKind.LEASE),
                Arguments.of("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-queue/leases", null, WriteKind.LEASE),
                // the harness's set-up and anything else
                Arguments.of("POST", "/api/v1/namespaces", null, WriteKind.OTHER),
                Arguments.of("DELETE", "/api/v1/namespaces/kq-bench-00", null, WriteKind.OTHER),
                Arguments.of("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", null, WriteKind.OTHER),
                Arguments.of("POST", "/apis/scheduling.sigs.k8s.io/v1beta1/namespaces/kube-system/elasticquotatrees", null, WriteKind.OTHER),
                Arguments.of("PATCH", "/api/v1/namespaces/kq-bench-00/pods/p", "{\"spec\":{\"suspend\":false}}", WriteKind.OTHER),
                Arguments.of("POST", "/version", null, WriteKind.OTHER),
                Arguments.of("GET", "/apis/batch/v1/namespaces/a/jobs/j", null, WriteKind.OTHER));
    }

    @ParameterizedTest(name = "{0} {1} → {3}")
    @MethodSource("writes")
    void aWriteIsClassifiedByItsMethodPathAndBody(String method, String path, String body, WriteKind kind) {
        assertEquals(kind, WriteKind.of(method, path, body));
    }
}
