package io.kubequeue.job.declared;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.JobKinds;
import io.kubequeue.job.JobKindRegistry;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.testing.AccessReviews;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.JobSets;
import io.kubequeue.testing.StrictApiServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;

/**
 * Issue 31: a kind declared by a QueuedKind at run time is queued, admitted by quota and in order, released when it
 * finishes, with no restart; the declaration's conditions say what is wrong with it (invalid, not served, not
 * permitted); an edit re-reads its jobs, a removal forgets the pending ones. JobSet is the kind (its CRD's discovery
 * is served by the test server once the CRD exists), on the seed's tree (root.defaultQuotaGroup: max 4 cpu).
 */
@QuarkusTest
@WithStrictApiServer
class DeclaredKindsTest {

    /** The JobSet declaration, as docs/kinds.md writes it. */
    static final String DECLARATION = """
            apiVersion: kube-queue.io/v1alpha1
            kind: QueuedKind
            metadata:
              name: jobsets.jobset.x-k8s.io
            spec:
              group: jobset.x-k8s.io
              version: v1alpha2
              kind: JobSet
              plural: jobsets
              hold:
                field: spec.suspend
              podSets:
                - name: replicated-jobs
                  each: spec.replicatedJobs[*]
                  template: template.spec.template
                  counts:
                    - field: replicas
                    - field: template.spec.parallelism
                      atMost: template.spec.completions
              finished:
                conditions: [Completed, Failed]
              pods:
                labelKey: jobset.sigs.k8s.io/jobset-name
              stopsWhenSuspended: true
            """;

    @KubernetesTestServer
    KubernetesMockServer server;

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @Inject
    JobKindRegistry kinds;

    private Cluster cluster;

    @BeforeEach
    void seedTree() {
        cluster = new Cluster(client);
        if (client.resources(io.kubequeue.quota.elastic.ElasticQuotaTree.class).inAnyNamespace().list().getItems()
                .isEmpty()) {
            cluster.apply("/seed/elasticquotatree.yaml");
        }
    }

    @AfterEach
    void clean() {
        client.resources(QueuedKind.class).delete();
        client.genericKubernetesResources(JobSets.JOBSETS).inAnyNamespace().delete();
        await().atMost(Duration.ofSeconds(10)).until(() -> kinds.named("JobSet").isEmpty());
        // every JobSet is deleted and every declaration gone: nothing of the kind may stay charged or queued (a drain
        // that stopped its watch before a delete reached the feed left a JobSet charged for good)
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.jobs().stream()
                .noneMatch(j -> j.key().kind().equals("JobSet")));
    }

    private void servedAndPermitted() {
        served();
        for (String verb : JobKinds.VERBS) {
            StrictApiServer.access(server).grant(AccessReviews.SELF, verb, "jobset.x-k8s.io", "jobsets", "");
        }
    }

    private void served() {
        JobSets.installCrd(client);
    }

    private void declare(String yaml) {
        QueuedKind declaration = client.getKubernetesSerialization().unmarshal(yaml, QueuedKind.class);
        client.resource(declaration).createOr(existing -> existing.update());
    }

    private GenericKubernetesResource jobSet(String name, int parallelism, String cpu) {
        return JobSets.create(client, name, parallelism, cpu);
    }

    private GenericKubernetesResource get(String name) {
        return JobSets.get(client, name);
    }

    private static boolean suspended(GenericKubernetesResource job) {
        return JobSets.suspended(job);
    }

    private Optional<io.kubequeue.scheduler.model.JobStatus> job(JobKey key) {
        return scheduler.jobs().stream().filter(j -> j.key().equals(key)).findFirst();
    }

    private Optional<Condition> condition(String type) {
        QueuedKind q = client.resources(QueuedKind.class).withName("jobsets.jobset.x-k8s.io").get();
        return q == null || q.getStatus() == null ? Optional.empty()
                : q.getStatus().conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    private boolean conditionIs(String type, String status) {
        return condition(type).map(c -> status.equals(c.getStatus())).orElse(false);
    }

    @Test
    void aDeclaredKindIsQueuedByQuotaInOrderAndReleasedWhenItFinishesWithoutARestart() {
        servedAndPermitted();
        declare(DECLARATION);
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs("Ready", "True"));
        assertTrue(kinds.named("JobSet").isPresent());

        jobSet("first", 3, "1");   // 1 replicated job × 1 replica × 3 pods × 1 cpu = 3 of the group's 4 cpu
        jobSet("second", 2, "1");  // 2 cpu: does not fit beside the first
        await().atMost(Duration.ofSeconds(20)).until(() -> !suspended(get("first")));
        assertEquals("3", job(new JobKey("JobSet", "default", "first")).orElseThrow().request()
                .asQuantities().get("cpu"), "charged by its pod sets");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> suspended(get("second")));
        assertTrue(get("first").getMetadata().getAnnotations().containsKey("kube-queue/admitted-at"),
                "the same admission record as the built-in kinds");

        GenericKubernetesResource done = get("first");
        done.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Completed",
                "status", "True"))));
        client.genericKubernetesResources(JobSets.JOBSETS).inNamespace("default").resource(done).updateStatus();
        await().atMost(Duration.ofSeconds(20)).until(() -> !suspended(get("second")));
    }

    @Test
    void aDeclarationSaysWhyItIsNotInForce() {
        // not served yet: no CRD
        declare(DECLARATION);
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs("Served", "False"));
        assertTrue(condition("Served").orElseThrow().getMessage().contains("jobset.x-k8s.io/v1alpha2"),
                condition("Served").orElseThrow().getMessage());
        assertTrue(conditionIs("Ready", "False"));
        assertFalse(kinds.named("JobSet").isPresent());
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", "jobsets.jobset.x-k8s.io")
                .stream().anyMatch(e -> "NotServed".equals(e.getReason()) && "Warning".equals(e.getType())));

        // invalid: a path that is not one
        declare(DECLARATION.replace("field: spec.suspend", "field: spec..suspend"));
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs("Valid", "False"));
        assertTrue(condition("Valid").orElseThrow().getMessage().startsWith("spec.hold.field:"),
                condition("Valid").orElseThrow().getMessage());
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", "jobsets.jobset.x-k8s.io")
                .stream().anyMatch(e -> "InvalidDeclaration".equals(e.getReason())
                        && e.getNote().startsWith("spec.hold.field:")));

        // served now, with its schema: a hold field that is not a boolean there is refused by name
        servedAndPermitted();
        declare(DECLARATION.replace("field: spec.suspend", "field: spec.network"));
        await().atMost(Duration.ofSeconds(20)).until(() -> condition("Valid").map(c -> c.getMessage().equals(
                "spec.hold.field: spec.network is an object in the CRD's schema, not a boolean")).orElse(false));
        assertTrue(conditionIs("Ready", "False"));
        assertFalse(kinds.named("JobSet").isPresent());
    }

    @Test
    void aKindKubeQueueMayNotPatchIsNotQueuedAndItsConditionNamesTheRight() {
        served();
        StrictApiServer.access(server).revoke(AccessReviews.SELF, "patch", "jobset.x-k8s.io", "jobsets", "");
        for (String verb : List.of("get", "list", "watch")) {
            StrictApiServer.access(server).grant(AccessReviews.SELF, verb, "jobset.x-k8s.io", "jobsets", "");
        }
        StrictApiServer.access(server).grant(AccessReviews.SELF, "patch", "jobset.x-k8s.io", "other", "");
        declare(DECLARATION);
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs("Authorized", "False"));
        String message = condition("Authorized").orElseThrow().getMessage();
        assertTrue(message.startsWith("kube-queue may not patch jobsets.jobset.x-k8s.io"), message);
        assertFalse(kinds.named("JobSet").isPresent());
    }

    @Test
    void aSecondDeclarationOfTheSameKindIsRefusedByName() {
        servedAndPermitted();
        declare(DECLARATION);
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs("Ready", "True"));
        declare(DECLARATION.replace("name: jobsets.jobset.x-k8s.io", "name: again"));
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            QueuedKind again = client.resources(QueuedKind.class).withName("again").get();
            return again != null && again.getStatus() != null && again.getStatus().conditions.stream()
                    .anyMatch(c -> "Valid".equals(c.getType()) && c.getMessage().contains("declared already"));
        });
        QueuedKind again = client.resources(QueuedKind.class).withName("again").get();
        assertTrue(again.getStatus().conditions.stream().anyMatch(c -> "Ready".equals(c.getType())
                && "False".equals(c.getStatus())), "the refused one is not in force: " + again.getStatus().conditions);
        assertEquals("jobsets.jobset.x-k8s.io", ((DeclaredJobKind) kinds.named("JobSet").orElseThrow()).declaration(),
                "the registry holds the first one's rules");
        assertTrue(conditionIs("Ready", "True"), "the first stays in force");
    }

    @Test
    void anEditReReadsTheWaitingJobsAndARemovalForgetsThem() {
        servedAndPermitted();
        declare(DECLARATION);
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs("Ready", "True"));
        jobSet("big", 8, "1"); // 8 cpu: never fits the group's 4
        JobKey big = new JobKey("JobSet", "default", "big");
        await().atMost(Duration.ofSeconds(20)).until(() -> job(big).isPresent());
        assertEquals("8", job(big).orElseThrow().request().asQuantities().get("cpu"));

        // the declaration now counts no parallelism: 1 pod of 1 cpu, which fits
        String onePodPerReplica = DECLARATION.replace("        - field: template.spec.parallelism\n"
                + "          atMost: template.spec.completions\n", "");
        assertFalse(onePodPerReplica.equals(DECLARATION));
        declare(onePodPerReplica);
        await().atMost(Duration.ofSeconds(20)).until(() -> !suspended(get("big")));

        jobSet("waits", 8, "4"); // by the new rule 1 pod of 4 cpu: does not fit beside big's 1
        JobKey waits = new JobKey("JobSet", "default", "waits");
        await().atMost(Duration.ofSeconds(20)).until(() -> job(waits).isPresent());
        client.resources(QueuedKind.class).withName("jobsets.jobset.x-k8s.io").delete();
        await().atMost(Duration.ofSeconds(20)).until(() -> job(waits).isEmpty());
        assertTrue(job(big).isPresent(), "the running job stays charged until it ends");
        assertTrue(suspended(get("waits")), "a forgotten job stays suspended");
    }

    /**
     * "Declare the kind again" (docs/kinds.md) under another name while the deleted declaration still drains a
     * running job: the new declaration takes the kind over (it was refused as "declared already" by the draining
     * one, and never checked again, so the kind stayed unqueued for good); the running job stays charged.
     */
    @Test
    void aKindDeclaredAgainUnderAnotherNameWhileTheOldDeclarationDrainsIsPutInForce() {
        servedAndPermitted();
        declare(DECLARATION);
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs("Ready", "True"));
        jobSet("runs", 3, "1");
        await().atMost(Duration.ofSeconds(20)).until(() -> !suspended(get("runs")));

        client.resources(QueuedKind.class).withName("jobsets.jobset.x-k8s.io").delete();
        declare(DECLARATION.replace("name: jobsets.jobset.x-k8s.io", "name: jobsets-again"));
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            QueuedKind again = client.resources(QueuedKind.class).withName("jobsets-again").get();
            return again != null && again.getStatus() != null && again.getStatus().conditions.stream()
                    .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        });

        jobSet("next", 2, "1"); // 2 cpu: queued by the new declaration, and does not fit beside runs' 3
        JobKey next = new JobKey("JobSet", "default", "next");
        await().atMost(Duration.ofSeconds(20)).until(() -> job(next).isPresent());
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> suspended(get("next")));
        GenericKubernetesResource done = get("runs");
        done.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Completed",
                "status", "True"))));
        client.genericKubernetesResources(JobSets.JOBSETS).inNamespace("default").resource(done).updateStatus();
        await().atMost(Duration.ofSeconds(20)).until(() -> !suspended(get("next")));
    }

    /**
     * A declaration deleted while it is checked (its access reviews take seconds on a busy API server) is not put in
     * force when the check ends: the delete came first, and nothing would ever take the kind out of force again.
     */
    @Test
    void aDeclarationDeletedWhileItIsCheckedIsNotPutInForce() {
        servedAndPermitted();
        StrictApiServer.access(server).answerAfter(Duration.ofMillis(700)); // 4 reviews: ≈ 3 s of checking
        try {
            int before = StrictApiServer.access(server).reviews();
            declare(DECLARATION);
            await().atMost(Duration.ofSeconds(10)).until(() -> StrictApiServer.access(server).reviews() > before);
            client.resources(QueuedKind.class).withName("jobsets.jobset.x-k8s.io").delete();
            await().atMost(Duration.ofSeconds(10)).until(() -> StrictApiServer.access(server).reviews() >= before + 4);
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6))
                    .until(() -> kinds.named("JobSet").isEmpty());
        } finally {
            StrictApiServer.access(server).answerAfter(Duration.ZERO);
        }
    }

    /**
     * An edit that names another kind (kind, group or plural) is the old kind removed and a new one declared: the old
     * kind's pending jobs are forgotten, its running ones stay charged until they end, then it leaves the registry.
     * It was taken as an edit of the same kind: the new watch released the old jobs under the new kind's keys, which
     * released nothing, so the pending job stayed queued and the running one charged for good, unwatched.
     */
    @Test
    void anEditThatNamesAnotherKindDrainsTheOldKind() {
        servedAndPermitted();
        installTrainSets();
        declare(DECLARATION);
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs("Ready", "True"));
        jobSet("runs", 3, "1");
        await().atMost(Duration.ofSeconds(20)).until(() -> !suspended(get("runs")));
        jobSet("waits", 2, "1"); // 2 cpu: does not fit beside runs' 3 in the group's 4
        JobKey runs = new JobKey("JobSet", "default", "runs");
        JobKey waits = new JobKey("JobSet", "default", "waits");
        await().atMost(Duration.ofSeconds(20)).until(() -> job(waits).isPresent());

        declare(DECLARATION.replace("kind: JobSet", "kind: TrainSet").replace("plural: jobsets", "plural: trainsets"));
        await().atMost(Duration.ofSeconds(20)).until(() -> kinds.named("TrainSet").isPresent()
                && conditionIs("Ready", "True"));
        await().atMost(Duration.ofSeconds(20)).until(() -> job(waits).isEmpty());
        assertTrue(suspended(get("waits")), "a forgotten job stays suspended");
        assertEquals(io.kubequeue.scheduler.model.JobState.ADMITTED, job(runs).orElseThrow().state(),
                "the running job stays charged until it ends");
        assertTrue(kinds.named("JobSet").isPresent(), "the old kind drains");

        GenericKubernetesResource done = get("runs");
        done.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Completed",
                "status", "True"))));
        client.genericKubernetesResources(JobSets.JOBSETS).inNamespace("default").resource(done).updateStatus();
        await().atMost(Duration.ofSeconds(20)).until(() -> job(runs).isEmpty() && kinds.named("JobSet").isEmpty());
        assertTrue(kinds.named("TrainSet").isPresent(), "the new kind stays");
    }

    /** A second kind served beside JobSet: JobSet's CRD renamed TrainSet (trainsets), kube-queue allowed its verbs. */
    private void installTrainSets() {
        try (java.io.InputStream in = new java.util.zip.GZIPInputStream(JobSets.class.getResourceAsStream(
                "/crds/jobset.x-k8s.io_jobsets.yaml.gz"))) {
            var crd = client.getKubernetesSerialization().unmarshal(in,
                    io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition.class);
            crd.getMetadata().setName("trainsets.jobset.x-k8s.io");
            crd.getMetadata().setResourceVersion(null);
            crd.getSpec().getNames().setKind("TrainSet");
            crd.getSpec().getNames().setListKind("TrainSetList");
            crd.getSpec().getNames().setPlural("trainsets");
            crd.getSpec().getNames().setSingular("trainset");
            crd.getSpec().getNames().setShortNames(null);
            client.apiextensions().v1().customResourceDefinitions().resource(crd).createOr(c -> c.update());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        for (String verb : JobKinds.VERBS) {
            StrictApiServer.access(server).grant(AccessReviews.SELF, verb, "jobset.x-k8s.io", "trainsets", "");
        }
    }
}
