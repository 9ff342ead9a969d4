package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.LimitRangeItemBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.testing.Cluster;

/**
 * Issue 26, sequence 4: jobs are priced as the API server will make their pods. Namespace {@code default} may use 2
 * cpu (its quota group, set up by the subclass for its quota plugin); its LimitRange gives a container without
 * requests 1 cpu; a RuntimeClass adds 1 cpu of overhead per pod. Before kube-queue read them, a job whose containers
 * set no requests cost 0 and every one was admitted at once; a RuntimeClass's overhead cost nothing.
 */
abstract class PricingScenario {

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    Cluster cluster;

    /** Namespace {@code default} may use 2 cpu: its quota group, in force when this returns. */
    abstract void twoCpuForNamespaceDefault();

    @BeforeEach
    void setUp() {
        cluster = new Cluster(client);
        twoCpuForNamespaceDefault();
    }

    @AfterEach
    void tearDown() {
        cluster.clear();
        client.limitRanges().inAnyNamespace().delete();
        client.resources(RuntimeClass.class).delete();
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.jobs().isEmpty());
    }

    /** Four jobs whose one container sets no requests, 1 cpu each by the LimitRange: two fit in 2 cpu, not four. */
    @Test
    void jobsWithoutRequestsCostTheLimitRangesDefaultRequestSoOnlyTwoOfFourAreAdmitted() {
        limitRange("1", "1");
        awaitLimitRangeSeen();
        List<String> jobs = IntStream.rangeClosed(1, 4).mapToObj(i -> "no-requests-" + i).toList();
        jobs.forEach(name -> submit(name, Map.of(), null));
        awaitEachTried(jobs);
        assertEquals(2, jobs.stream().filter(this::admittedByScheduler).count(),
                "1 cpu each by the LimitRange: two fit in the 2-cpu group");
        await().atMost(Duration.ofSeconds(10)).until(() -> jobs.stream().filter(cluster::admitted).count() == 2);
        jobs.stream().filter(name -> !admittedByScheduler(name))
                .forEach(name -> assertEquals(1000, request(name).get("cpu"), name + " is priced at 1 cpu"));
    }

    /**
     * A big job (its own 2 cpu) fills the group; three jobs without requests queue at 1 cpu each. The LimitRange is
     * edited to 2 cpu: the queued jobs are priced again, and when the big job ends only one of them fits, not two.
     */
    @Test
    void aLimitRangeEditPricesTheQueuedJobsOfItsNamespaceAgain() {
        limitRange("1", "1");
        awaitLimitRangeSeen();
        submit("big", Map.of("cpu", "2"), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("big"));
        List<String> queued = List.of("queued-1", "queued-2", "queued-3");
        queued.forEach(name -> submit(name, Map.of(), null));
        awaitEachTried(queued);
        queued.forEach(name -> assertEquals(1000, request(name).get("cpu")));

        LimitRange edited = client.limitRanges().inNamespace("default").withName("defaults").get();
        edited.getSpec().getLimits().get(0).setDefault(Map.of("cpu", new Quantity("2"), "memory", new Quantity("1Gi")));
        edited.getSpec().getLimits().get(0).setDefaultRequest(Map.of("cpu", new Quantity("2"),
                "memory", new Quantity("1Gi")));
        client.limitRanges().inNamespace("default").resource(edited).update();
        await().atMost(Duration.ofSeconds(10)).until(() -> queued.stream()
                .allMatch(name -> request(name).get("cpu") == 2000));

        cluster.complete("big");
        await().atMost(Duration.ofSeconds(10)).until(() -> queued.stream().anyMatch(this::admittedByScheduler));
        awaitEachTried(queued);
        assertEquals(1, queued.stream().filter(this::admittedByScheduler).count(),
                "2 cpu each after the edit: one fits where the big job was, not two");
    }

    /** A RuntimeClass adds 1 cpu per pod: two jobs of 1 cpu naming it cost 2 each, so one fits, not both. */
    @Test
    void aRuntimeClassOverheadIsAddedToEachPodOfAJobThatNamesIt() {
        client.resource(new RuntimeClassBuilder().withNewMetadata().withName("kata").endMetadata().withHandler("kata")
                .withNewOverhead().addToPodFixed("cpu", new Quantity("1")).endOverhead().build()).create();
        submit("probe", Map.of("cpu", "100"), "kata"); // never fits: seen priced with the overhead, the class is known
        await().atMost(Duration.ofSeconds(10)).until(() -> request("probe").get("cpu") == 101_000);
        client.batch().v1().jobs().inNamespace("default").withName("probe").delete();
        await().atMost(Duration.ofSeconds(10)).until(() -> status("probe").isEmpty());

        List<String> jobs = List.of("kata-1", "kata-2");
        jobs.forEach(name -> submit(name, Map.of("cpu", "1"), "kata"));
        awaitEachTried(jobs);
        assertEquals(1, jobs.stream().filter(this::admittedByScheduler).count(),
                "1 cpu + 1 cpu overhead each: one fits in 2 cpu");
        jobs.forEach(name -> assertEquals(2000, request(name).get("cpu")));
    }

    /**
     * A tenant's LimitRange that cannot be read (a quantity out of the parsing bounds) gets one Warning event and is
     * left out; the watch goes on, and namespace default is priced by its own LimitRange, created after it.
     */
    @Test
    void anUnreadableLimitRangeGetsAWarningAndStopsNeitherTheWatchNorOtherNamespaces() {
        client.limitRanges().inNamespace("hostile").resource(new LimitRangeBuilder().withNewMetadata()
                .withName("bad").endMetadata().withNewSpec().withLimits(new LimitRangeItemBuilder()
                        .withType("Container").withDefaultRequest(Map.of("cpu", new Quantity("1e999999")))
                        .build())
                .endSpec().build()).create();
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("hostile", "bad").stream()
                .anyMatch(e -> "InvalidLimitRange".equals(e.getReason()) && "Warning".equals(e.getType())));
        limitRange("1", "1");
        awaitLimitRangeSeen(); // namespace default is priced with its LimitRange
        assertEquals(1, cluster.events("hostile", "bad").stream()
                .filter(e -> "InvalidLimitRange".equals(e.getReason())).count(), "one Warning, not one per event");
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private void limitRange(String defaultCpu, String defaultRequestCpu) {
        client.limitRanges().inNamespace("default").resource(new LimitRangeBuilder().withNewMetadata()
                .withName("defaults").endMetadata().withNewSpec().withLimits(new LimitRangeItemBuilder()
                        .withType("Container")
                        .withDefault(Map.of("cpu", new Quantity(defaultCpu), "memory", new Quantity("1Gi")))
                        .withDefaultRequest(Map.of("cpu", new Quantity(defaultRequestCpu), "memory",
                                new Quantity("1Gi")))
                        .build())
                .endSpec().build()).create();
    }

    /**
     * Waits until kube-queue prices with the LimitRange: a probe job that never fits (its own 100 cpu) shows the
     * LimitRange's memory default in its request; then it is deleted.
     */
    private void awaitLimitRangeSeen() {
        submit("probe", Map.of("cpu", "100"), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> request("probe").get("memory") == 1L << 30);
        client.batch().v1().jobs().inNamespace("default").withName("probe").delete();
        await().atMost(Duration.ofSeconds(10)).until(() -> status("probe").isEmpty());
    }

    /** A suspended one-pod batch Job in namespace default whose container requests {@code requests} only. */
    private Job submit(String name, Map<String, String> requests, String runtimeClass) {
        var resources = new ResourceRequirementsBuilder();
        requests.forEach((k, v) -> resources.addToRequests(k, new Quantity(v)));
        Job job = new JobBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().withRestartPolicy("Never")
                .withRuntimeClassName(runtimeClass)
                .addNewContainer().withName("work").withImage("busybox:stable").withResources(resources.build())
                .endContainer().endSpec().endTemplate().endSpec().build();
        return client.batch().v1().jobs().inNamespace("default").resource(job).create();
    }

    private Optional<JobStatus> status(String name) {
        return scheduler.status(new JobKey("Job", "default", name));
    }

    private io.kubequeue.scheduler.model.Resources request(String name) {
        return status(name).map(JobStatus::request).orElse(io.kubequeue.scheduler.model.Resources.NONE);
    }

    private boolean admittedByScheduler(String name) {
        return status(name).map(s -> s.state() == JobState.ADMITTED).orElse(false);
    }

    /** Waits until each job is admitted or has been tried at least once (count, not time). */
    private void awaitEachTried(List<String> names) {
        await().atMost(Duration.ofSeconds(15)).until(() -> names.stream().allMatch(name -> status(name)
                .map(s -> s.state() == JobState.ADMITTED || s.attempts() > 0).orElse(false)));
    }
}
