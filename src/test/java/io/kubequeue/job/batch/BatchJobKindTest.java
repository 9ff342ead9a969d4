package io.kubequeue.job.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
