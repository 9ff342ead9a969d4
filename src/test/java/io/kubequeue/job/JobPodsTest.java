package io.kubequeue.job;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.testing.StrictApiServer;

/**
 * The shared watch on the pods of managed jobs, against the strict mock API server: which pods count as having run
 * (Running, Succeeded or Failed, not being deleted), that runs are reported only once every job is known and the
 * first list is in, then on every change, and what {@link JobPods#runs} answers from the cache.
 */
class JobPodsTest {

    private static final String NS = "team";
    private final BatchJobKind kind = new BatchJobKind();
    private final JobDirectory directory = new JobDirectory();
    private final List<String> reported = new CopyOnWriteArrayList<>();
    private final JobPods.RunReport report = new JobPods.RunReport() {
        @Override
        public void podRan(JobKey job) {
            reported.add("ran " + job.name());
        }

        @Override
        public void podsListed() {
            reported.add("listed");
        }
    };
    private KubernetesMockServer server;
    private KubernetesClient client;
    private JobPods pods;

    @BeforeEach
    void setUp() {
        server = StrictApiServer.started();
        client = server.createClient();
        pods = new JobPods(client, directory, new JobKindRegistry(List.of(kind)), k -> true);
    }

    @AfterEach
    void tearDown() {
        pods.stop();
        client.close();
        server.destroy();
    }

    /** A managed Job as the feed records it: its entry and its pods' label. */
    private JobKey known(String name, String uid) {
        Job job = new JobBuilder().withNewMetadata().withName(name).withNamespace(NS).withUid(uid).endMetadata().build();
        JobKey key = new JobKey("Job", NS, name);
        directory.put(key, JobDirectory.Entry.of(kind, job, List.of()));
        return key;
    }

    /** A pod {@code JOB-N} of the Job with that uid (label and controlling owner), in that phase. */
    private Pod pod(String name, String jobUid, String phase) {
        Pod created = client.pods().inNamespace(NS).resource(podOf(NS, name.substring(0, name.lastIndexOf('-')),
                jobUid, name, jobUid)).create();
        return phase(created, phase);
    }

    /** A pod named {@code name}, labelled {@code controller-uid=label}, controlled by Job {@code job} of uid owner. */
    private static Pod podOf(String namespace, String job, String label, String name, String owner) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(namespace)
                .withLabels(Map.of("controller-uid", label)).addNewOwnerReference().withApiVersion("batch/v1")
                .withKind("Job").withName(job).withUid(owner).withController(true).endOwnerReference()
                .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("busybox:stable").endContainer()
                .endSpec().build();
    }

    /**
     * Issue 31: a kind declared after the pod watch started (a QueuedKind put in force at run time) gets its pods
     * watched by their label from then on, and traced to its jobs by that label alone (a JobSet's pods are its Jobs').
     */
    @Test
    void aKindDeclaredAfterTheStartHasItsPodsWatchedAndTraced() {
        JobKindRegistry registry = new JobKindRegistry(List.of(kind));
        JobPods watching = new JobPods(client, directory, registry, k -> true);
        try {
            watching.start();
            assertTrue(watching.awaitFirstList(java.time.Duration.ofSeconds(10)));
            io.kubequeue.job.declared.DeclaredJobKind jobSets = io.kubequeue.job.declared.DeclaredJobKind.of("jobsets",
                    client.getKubernetesSerialization().unmarshal("""
                            group: jobset.x-k8s.io
                            version: v1alpha2
                            kind: JobSet
                            plural: jobsets
                            hold: {field: spec.suspend}
                            podSets: [{each: "spec.replicatedJobs[*]", template: template.spec.template}]
                            pods: {labelKey: jobset.sigs.k8s.io/jobset-name}
                            """, io.kubequeue.job.declared.QueuedKindSpec.class),
                    client.getKubernetesSerialization());
            registry.declare(jobSets);
            JobKey key = new JobKey("JobSet", NS, "train");
            directory.put(key, new JobDirectory.Entry(jobSets, new io.fabric8.kubernetes.api.model.ObjectReferenceBuilder()
                    .withApiVersion("jobset.x-k8s.io/v1alpha2").withKind("JobSet").withNamespace(NS).withName("train")
                    .withUid("uid-js").build(), List.of(), false, "1"));
            Pod pod = client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("train-w-0-0")
                    .withNamespace(NS).withLabels(Map.of("jobset.sigs.k8s.io/jobset-name", "train"))
                    .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName("train-w-0")
                    .withUid("uid-child-job").withController(true).endOwnerReference().endMetadata().withNewSpec()
                    .addNewContainer().withName("c").withImage("busybox:stable").endContainer().endSpec().build())
                    .create();
            await().atMost(java.time.Duration.ofSeconds(10)).until(() -> watching.inNamespace(NS).stream()
                    .anyMatch(p -> p.getMetadata().getName().equals("train-w-0-0")));
            assertEquals(Optional.of(key), watching.jobOf(pod), "owned by the JobSet's Job, traced by its label");
        } finally {
            watching.stop();
        }
    }

    /**
     * A declared kind whose pods carry their job's uid ({@code labelValue: Uid}, which needs {@code ownedByJob}) is
     * traced through the pod's controlling owner, the job: the label alone names no job (it was looked up as a name,
     * so no pod of such a kind was ever traced).
     */
    @Test
    void aDeclaredKindLabellingItsPodsWithTheJobsUidIsTracedThroughItsOwner() {
        io.kubequeue.job.declared.DeclaredJobKind batches = io.kubequeue.job.declared.DeclaredJobKind.of("batches",
                client.getKubernetesSerialization().unmarshal("""
                        group: example.com
                        version: v1
                        kind: Batch
                        plural: batches
                        hold: {field: spec.suspend}
                        podSets: [{template: spec.template}]
                        pods: {labelKey: example.com/batch-uid, labelValue: Uid, ownedByJob: true}
                        """, io.kubequeue.job.declared.QueuedKindSpec.class),
                client.getKubernetesSerialization());
        JobPods traced = new JobPods(client, directory, new JobKindRegistry(List.of(kind, batches)), k -> true);
        JobKey key = new JobKey("Batch", NS, "b");
        directory.put(key, new JobDirectory.Entry(batches, new io.fabric8.kubernetes.api.model.ObjectReferenceBuilder()
                .withApiVersion("example.com/v1").withKind("Batch").withNamespace(NS).withName("b").withUid("uid-b")
                .build(), List.of(), false, "1"));
        java.util.function.BiFunction<String, String, Pod> pod = (label, ownerUid) -> new PodBuilder().withNewMetadata()
                .withName("b-0").withNamespace(NS).withLabels(Map.of("example.com/batch-uid", label))
                .addNewOwnerReference().withApiVersion("example.com/v1").withKind("Batch").withName("b")
                .withUid(ownerUid).withController(true).endOwnerReference().endMetadata().build();
        assertEquals(Optional.of(key), traced.jobOf(pod.apply("uid-b", "uid-b")));
        assertEquals(Optional.empty(), traced.jobOf(pod.apply("uid-old", "uid-old")), "a namesake's pod");
        assertEquals(Optional.empty(), traced.jobOf(pod.apply("uid-b", "uid-old")), "labelled with another's uid");
        Pod ownedByAnother = pod.apply("uid-b", "uid-b");
        ownedByAnother.getMetadata().getOwnerReferences().get(0).setKind("Job");
        assertEquals(Optional.empty(), traced.jobOf(ownedByAnother), "its owner is not a Batch");
    }

    /**
     * One kind's pod watch that cannot start (its label key refused by the API server) leaves that kind's jobs
     * unknowable, not every kind's: a batch Job with no pod has not run and has no pods left, whatever the other watch.
     */
    @Test
    void aPodWatchThatCannotStartLeavesOnlyItsOwnKindUnknowable() {
        BatchJobKind broken = new BatchJobKind() {
            @Override
            public String kind() {
                return "Broken";
            }

            @Override
            public String podLabelKey() {
                return "example.com/" + "b".repeat(64); // a name part over 63: refused as a label selector
            }
        };
        JobPods watching = new JobPods(client, directory, new JobKindRegistry(List.of(kind, broken)), k -> true);
        try {
            watching.start();
            JobKey batch = known("alone", "u-alone");
            JobKey brokenJob = new JobKey("Broken", NS, "x");
            await().atMost(java.time.Duration.ofSeconds(10)).until(() -> !watching.runs(batch));
            assertFalse(watching.podsLeft(batch));
            assertTrue(watching.runs(brokenJob), "its kind's pods cannot be seen: it may run");
            assertTrue(watching.podsLeft(brokenJob));
        } finally {
            watching.stop();
        }
    }

    /**
     * A pod is traced to its job from the pod alone (issue 27: no map of pod labels kept per job): a batch Job's pod
     * by its controlling owner's name, checked against the job's uid in the label and the owner; a Kubeflow job's by
     * the name its label carries. A namesake of another namespace, another uid, or a job re-created under the same
     * name are not the job's.
     */
    @Test
    void aPodIsTracedToItsJobByItsKindsLabelAndOwner() {
        var tf = new io.kubequeue.job.kubeflow.TFJobKind(client);
        JobPods traced = new JobPods(client, directory, new JobKindRegistry(List.of(kind, tf)), k -> true);
        JobKey key = known("a", "uid-a");
        assertEquals(Optional.of(key), traced.jobOf(podOf(NS, "a", "uid-a", "a-0", "uid-a")));
        assertEquals(Optional.empty(), traced.jobOf(podOf("other", "a", "uid-a", "a-0", "uid-a")), "another namespace");
        assertEquals(Optional.empty(), traced.jobOf(podOf(NS, "a", "uid-b", "a-0", "uid-b")), "another uid");
        assertEquals(Optional.empty(), traced.jobOf(podOf(NS, "a", "uid-b", "a-0", "uid-a")),
                "owned by the job, but labelled with another uid");
        assertEquals(Optional.empty(), traced.jobOf(podOf(NS, "b", "uid-a", "b-0", "uid-a")), "an unknown job");
        Pod unowned = podOf(NS, "a", "uid-a", "a-0", "uid-a");
        unowned.getMetadata().setOwnerReferences(null);
        assertEquals(Optional.empty(), traced.jobOf(unowned), "a batch pod names its Job only by its owner");
        known("a", "uid-a2"); // deleted and created again under the same name
        assertEquals(Optional.empty(), traced.jobOf(podOf(NS, "a", "uid-a", "a-0", "uid-a")), "the old job's pod");
        assertEquals(Optional.of(key), traced.jobOf(podOf(NS, "a", "uid-a2", "a-1", "uid-a2")));
        directory.remove(key);
        assertEquals(Optional.empty(), traced.jobOf(podOf(NS, "a", "uid-a2", "a-1", "uid-a2")), "a forgotten job");

        JobKey tfKey = new JobKey("TFJob", NS, "t");
        directory.put(tfKey, new JobDirectory.Entry(tf, new io.fabric8.kubernetes.api.model.ObjectReferenceBuilder()
                .withApiVersion("kubeflow.org/v1").withKind("TFJob").withNamespace(NS).withName("t").withUid("uid-t")
                .build(), List.of(), false, "1"));
        Pod worker = new PodBuilder().withNewMetadata().withName("t-worker-0").withNamespace(NS)
                .withLabels(Map.of("training.kubeflow.org/job-name", "t")).addNewOwnerReference()
                .withApiVersion("kubeflow.org/v1").withKind("TFJob").withName("t").withUid("uid-t").withController(true)
                .endOwnerReference().endMetadata().build();
        assertEquals(Optional.of(tfKey), traced.jobOf(worker));
        worker.getMetadata().getOwnerReferences().get(0).setUid("uid-old");
        assertEquals(Optional.empty(), traced.jobOf(worker), "a namesake's pod");
        worker.getMetadata().setOwnerReferences(null);
        assertEquals(Optional.of(tfKey), traced.jobOf(worker), "a pod with no controlling owner is taken at its label");
    }

    private Pod phase(Pod pod, String phase) {
        Pod current = client.pods().inNamespace(NS).withName(pod.getMetadata().getName()).get();
        current.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase(phase).build());
        return client.pods().inNamespace(NS).resource(current).updateStatus();
    }

    @Test
    void listedRunsAreReportedOnceEveryJobIsKnownThenEachChange() {
        JobKey running = known("running", "u-running");
        JobKey pending = known("pending", "u-pending");
        JobKey finished = known("finished", "u-finished");
        pod("running-0", "u-running", "Running");
        pod("pending-0", "u-pending", "Pending");
        pod("finished-0", "u-finished", "Failed");
        pod("stranger-0", "u-unknown", "Running"); // a pod of no managed job

        pods.start();
        assertTrue(pods.awaitFirstList(Duration.ofSeconds(10)));
        assertEquals(List.of(), reported, "nothing before start-up recovery says every job is known");

        pods.reportRunsTo(report);
        // the informer fills its store before it hands out each add, so an add of the first list still queued may
        // say a run again after the listing said it: a repeat the report allows ("said again"), never a new run
        List<String> seen = List.copyOf(reported);
        int listed = seen.indexOf("listed");
        assertTrue(listed >= 0, "the first list is reported at once: " + seen);
        assertEquals(java.util.Set.of("ran finished", "ran running"), java.util.Set.copyOf(seen.subList(0, listed)),
                "every listed run before podsListed, and only the runs: " + seen);
        assertEquals(1, java.util.Collections.frequency(seen, "listed"), seen.toString());
        assertTrue(java.util.Set.of("ran finished", "ran running").containsAll(seen.subList(listed + 1, seen.size())),
                "after it, repeats only: " + seen);
        assertTrue(pods.runs(running));
        assertTrue(pods.runs(finished), "a pod that ran and ended still ran");
        assertFalse(pods.runs(pending));

        reported.clear();
        phase(client.pods().inNamespace(NS).withName("pending-0").get(), "Running");
        await().atMost(Duration.ofSeconds(10)).until(() -> reported.contains("ran pending"));
        assertTrue(pods.runs(pending));
        assertFalse(reported.contains("listed"), "the first list is reported once");

        JobKey neverRan = known("never", "u-never");
        assertFalse(pods.runs(neverRan));
        pods.stop(); // as a lost watch: a pod may start unseen
        assertTrue(pods.runs(neverRan), "not watching: it cannot be known not to run");
    }

    @Test
    void aPodBeingDeletedOrOfANamesakeHasNotRun() {
        JobKey deleting = known("deleting", "u-deleting");
        JobKey renewed = known("renewed", "u-new"); // deleted and created again under the same name
        Pod doomed = pod("deleting-0", "u-deleting", "Running");
        client.pods().inNamespace(NS).withName("deleting-0").edit(p -> new PodBuilder(p).editMetadata()
                .addToFinalizers("example.com/hold").endMetadata().build());
        client.pods().inNamespace(NS).resource(doomed).delete(); // a finalizer keeps it, with a deletionTimestamp
        pod("renewed-0", "u-new", "Running");
        client.pods().inNamespace(NS).withName("renewed-0").edit(p -> new PodBuilder(p).editMetadata()
                .editFirstOwnerReference().withUid("u-old").endOwnerReference().endMetadata().build());

        pods.reportRunsTo(report); // before the start, as when a quota group sets a timeout after start-up
        assertTrue(pods.runs(deleting), "before the first list nothing is known not to have run");
        pods.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> reported.contains("listed"));
        assertTrue(client.pods().inNamespace(NS).withName("deleting-0").get().getMetadata().getDeletionTimestamp() != null);
        assertEquals(List.of("listed"), reported, "renewed-0 is the old job's; deleting-0 is being deleted");
        assertFalse(pods.runs(deleting));
        assertFalse(pods.runs(renewed));
    }

    @Test
    void onlyTheEnabledKindsPodsAreWatched() {
        JobKey running = known("running", "u-running");
        pod("running-0", "u-running", "Running");
        JobPods noJobs = new JobPods(client, directory, new JobKindRegistry(List.of(kind)), k -> !k.equals("Job"));
        try {
            noJobs.start();
            assertTrue(noJobs.awaitFirstList(Duration.ofSeconds(5)), "no informer: listed at once");
            noJobs.reportRunsTo(report);
            assertEquals(List.of("listed"), reported);
            assertFalse(noJobs.runs(running));
        } finally {
            noJobs.stop();
        }
    }
}
