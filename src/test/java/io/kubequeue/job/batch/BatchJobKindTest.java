package io.kubequeue.job.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.Parse;

/** batch/v1 Job's own rules (docs/behaviour.md §1, §2): its pod count, its marks, its priority and pod labels. */
class BatchJobKindTest {

    private static final long MI = 1L << 20;

    private static Job job(String spec) {
        return Parse.batchJob(spec);
    }

    @Test
    void countsMinOfParallelismAndCompletions() {
        String pod = """
                template:
                  spec:
                    containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 200Mi}}}]
                """;
        BatchJobKind kind = new BatchJobKind();
        assertEquals(Resources.of("cpu", 1000L, "memory", 200 * MI), kind.request(job(pod)), "parallelism defaults to 1");
        assertEquals(Resources.of("cpu", 3000L, "memory", 600 * MI), kind.request(job("parallelism: 3\n" + pod)),
                "no completions: parallelism");
        assertEquals(Resources.of("cpu", 2000L, "memory", 400 * MI),
                kind.request(job("parallelism: 5\ncompletions: 2\n" + pod)));
        assertEquals(Resources.of("cpu", 3000L, "memory", 600 * MI),
                kind.request(job("parallelism: 3\ncompletions: 10\n" + pod)));
    }

    @Test
    void marksAreSpecSuspendAndTheAnnotation() {
        Job both = job("suspend: true\ntemplate: {spec: {containers: [{name: c, image: x}]}}");
        both.getMetadata().setAnnotations(new HashMap<>(Map.of(SuspendMark.ANNOTATION_KEY, "true")));
        assertEquals(List.of(SuspendMark.ANNOTATION, SuspendMark.SPEC_SUSPEND), new BatchJobKind().suspendMarks(both));
        Job running = job("template: {spec: {containers: [{name: c, image: x}]}}");
        assertEquals(List.of(), new BatchJobKind().suspendMarks(running));
    }

    /** Kubernetes docs, "Suspending a Job": spec.suspend true deletes a running Job's active pods. */
    @Test
    void everyJobIsStoppedBySpecSuspend_runningOrNot() {
        Job running = job("suspend: false\ntemplate: {spec: {containers: [{name: c, image: x}]}}");
        Job neverSuspended = job("template: {spec: {containers: [{name: c, image: x}]}}");
        assertEquals(Optional.of(SuspendMark.SPEC_SUSPEND), new BatchJobKind().stopMark(running));
        assertEquals(Optional.of(SuspendMark.SPEC_SUSPEND), new BatchJobKind().stopMark(neverSuspended));
    }

    @Test
    void readsPriorityClassNameAndPriorityFromThePodTemplate() {
        Job batch = job("""
                template:
                  spec:
                    priorityClassName: urgent
                    priority: 7
                    containers: [{name: c, image: x}]
                """);
        assertEquals(new JobPriority("urgent", 7), new BatchJobKind().priority(batch));
        assertEquals(JobPriority.NONE, new BatchJobKind().priority(job("""
                template: {spec: {containers: [{name: c, image: x}]}}
                """)));
    }

    @Test
    void namesItsPodsByControllerUid() {
        Job job = job("template: {spec: {containers: [{name: c, image: x}]}}");
        job.getMetadata().setUid("1234");
        assertEquals(Map.of("controller-uid", "1234"), new BatchJobKind().podLabels(job));
    }

    /**
     * Issue 30: spec.activeDeadlineSeconds (batch/v1 JobSpec, int64, positive) as a Duration, and the end of a Job:
     * status.completionTime, else (a failed Job has none) its Failed=True condition's lastTransitionTime. What is not
     * positive, absurd or unparsable reads as absent.
     */
    @Test
    void runTimeIsActiveDeadlineSecondsAndCompletionTime() {
        BatchJobKind kind = new BatchJobKind();
        String pod = "template: {spec: {containers: [{name: c, image: x}]}}";
        assertEquals(Optional.of(Duration.ofHours(1)), kind.activeDeadline(job("activeDeadlineSeconds: 3600\n" + pod)));
        assertEquals(Optional.empty(), kind.activeDeadline(job(pod)), "none");
        assertEquals(Optional.empty(), kind.activeDeadline(job("activeDeadlineSeconds: 0\n" + pod)), "not positive");
        assertEquals(Optional.empty(), kind.activeDeadline(job("activeDeadlineSeconds: -60\n" + pod)), "negative");
        assertEquals(Optional.empty(), kind.activeDeadline(job("activeDeadlineSeconds: 9223372036854775807\n" + pod)),
                "absurd: beyond 366 days");
        assertEquals(Optional.of(Duration.ofDays(366)),
                kind.activeDeadline(job("activeDeadlineSeconds: " + Duration.ofDays(366).toSeconds() + "\n" + pod)));

        Job completed = job(pod);
        completed.setStatus(Parse.client().getKubernetesSerialization().unmarshal("""
                completionTime: "2024-06-14T10:13:01Z"
                conditions: [{type: Complete, status: "True", lastTransitionTime: "2024-06-14T10:13:02Z"}]
                """, io.fabric8.kubernetes.api.model.batch.v1.JobStatus.class));
        assertEquals(Optional.of(Instant.parse("2024-06-14T10:13:01Z")), kind.completionTime(completed));
        Job failed = job(pod);
        failed.setStatus(Parse.client().getKubernetesSerialization().unmarshal("""
                conditions:
                  - {type: FailureTarget, status: "True", lastTransitionTime: "2024-06-14T09:39:00Z"}
                  - {type: Failed, status: "True", lastTransitionTime: "2024-06-14T09:40:00Z"}
                """, io.fabric8.kubernetes.api.model.batch.v1.JobStatus.class));
        assertEquals(Optional.of(Instant.parse("2024-06-14T09:40:00Z")), kind.completionTime(failed),
                "a failed Job ends when it is marked Failed");
        failed.getStatus().getConditions().get(1).setStatus("False");
        assertEquals(Optional.empty(), kind.completionTime(failed), "Failed=False says nothing");
        completed.getStatus().setCompletionTime("x".repeat(10_000));
        assertEquals(Optional.empty(), kind.completionTime(completed), "a 10,000-character time reads as absent");
        completed.getStatus().setCompletionTime("yesterday");
        assertEquals(Optional.empty(), kind.completionTime(completed), "a time that does not parse reads as absent");
        assertEquals(Optional.empty(), kind.completionTime(job(pod)), "no status");
    }
}
