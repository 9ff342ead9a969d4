package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.StrictApiServer;

/**
 * The admission patch as a real API server applies it (issue 12): it never wipes annotations written after the
 * job was seen without any, and it never admits another object of the same name.
 */
class AdmissionPatchOnStrictServerTest {

    private static final AdmissionRecord RECORD = new AdmissionRecord("root.a", "2026-01-01T00:00:00.000Z");

    private KubernetesMockServer server;
    private KubernetesClient client;
    private Job seen;

    @BeforeEach
    void start() {
        server = StrictApiServer.started();
        client = server.createClient();
        seen = jobs().resource(new JobBuilder().withNewMetadata().withName("j").withUid("uid-1").endMetadata()
                .withNewSpec().withSuspend(true).endSpec().build()).create();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    private io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<Job, io.fabric8.kubernetes.api.model.batch.v1.JobList,
            io.fabric8.kubernetes.client.dsl.ScalableResource<Job>> jobs() {
        return client.batch().v1().jobs().inNamespace("default");
    }

    /** The directory's view of the job as {@code seen}, and an admission decided on it. */
    private Job admit(Job view, String uid) {
        boolean annotated = view.getMetadata().getAnnotations() != null && !view.getMetadata().getAnnotations().isEmpty();
        JobDirectory.Entry entry = new JobDirectory.Entry(null, new ObjectReferenceBuilder().withUid(uid).build(),
                List.of(SuspendMark.SPEC_SUSPEND), annotated, view.getMetadata().getResourceVersion());
        Admission admission = new Admission(new JobKey("Job", "default", "j"), uid, RECORD, Resources.NONE, 0);
        return jobs().withName("j").patch(PatchContext.of(PatchType.JSON), AdmissionPatch.of(entry, admission,
                io.kubequeue.testing.TrustedRecords.signatures()).toString());
    }

    @Test
    void anAnnotationAddedSinceTheJobWasSeenWithoutAnyIsNeverWiped() {
        jobs().withName("j").edit(j -> new JobBuilder(j).editMetadata().addToAnnotations("team", "blue").endMetadata()
                .build());

        KubernetesClientException refused = assertThrows(KubernetesClientException.class,
                () -> admit(seen, seen.getMetadata().getUid()));
        assertEquals(422, refused.getCode(), "the whole-map patch is bound to the version seen");
        Job now = jobs().withName("j").get();
        assertEquals(Map.of("team", "blue"), now.getMetadata().getAnnotations());
        assertTrue(now.getSpec().getSuspend());

        Job admitted = admit(now, now.getMetadata().getUid()); // retried on the newer view: one key at a time
        assertEquals("blue", admitted.getMetadata().getAnnotations().get("team"));
        assertEquals("root.a", admitted.getMetadata().getAnnotations().get(Annotations.QUOTA_GROUP));
        assertEquals(false, admitted.getSpec().getSuspend());
    }

    @Test
    void aDecisionForADeletedJobCannotAdmitItsNamesake() {
        String oldUid = seen.getMetadata().getUid();
        jobs().withName("j").delete();
        Job again = jobs().resource(new JobBuilder().withNewMetadata().withName("j").withUid("uid-2").endMetadata()
                .withNewSpec().withSuspend(true).endSpec().build()).create();
        assertTrue(!oldUid.equals(again.getMetadata().getUid()), "a new object: " + again.getMetadata().getUid());

        KubernetesClientException refused = assertThrows(KubernetesClientException.class, () -> admit(again, oldUid));
        assertEquals(422, refused.getCode());
        assertTrue(jobs().withName("j").get().getSpec().getSuspend(), "the namesake stays suspended");
    }

    /**
     * Issue 26: a Workflow's request is its {@code kube-queue/min-resources} annotation, which moves neither its
     * generation nor anything the uid and marks test. Raised after the decision, it refuses the patch bound to the
     * version decided on; the patch decided on the new version applies.
     */
    @Test
    void aWorkflowWhoseMinResourcesAreRaisedAfterItsDecisionRefusesThePatch() {
        var workflows = client.resources(io.kubequeue.job.argo.Workflow.class).inNamespace("default");
        io.kubequeue.job.argo.Workflow created = workflows.resource((io.kubequeue.job.argo.Workflow)
                io.kubequeue.testing.Parse.yaml("""
                        apiVersion: argoproj.io/v1alpha1
                        kind: Workflow
                        metadata:
                          name: w
                          namespace: default
                          annotations:
                            kube-queue/min-resources: "cpu: 1"
                        spec:
                          suspend: true
                        """).get(0)).create();
        Admission decided = new Admission(new JobKey("Workflow", "default", "w"), created.getMetadata().getUid(),
                RECORD, Resources.NONE, 0, created.getMetadata().getResourceVersion());
        workflows.withName("w").edit(w -> {
            w.getMetadata().getAnnotations().put(io.kubequeue.job.argo.WorkflowKind.MIN_RESOURCES, "cpu: 20");
            return w;
        });
        JobDirectory.Entry entry = new JobDirectory.Entry(null, new ObjectReferenceBuilder()
                .withUid(created.getMetadata().getUid()).build(), List.of(SuspendMark.SPEC_SUSPEND), true,
                created.getMetadata().getResourceVersion());

        KubernetesClientException refused = assertThrows(KubernetesClientException.class, () -> workflows.withName("w")
                .patch(PatchContext.of(PatchType.JSON), AdmissionPatch.of(entry, decided,
                        io.kubequeue.testing.TrustedRecords.signatures()).toString()));
        assertEquals(422, refused.getCode(), "bound to the version decided on");
        io.kubequeue.job.argo.Workflow now = workflows.withName("w").get();
        assertEquals("cpu: 20", now.getMetadata().getAnnotations().get(io.kubequeue.job.argo.WorkflowKind.MIN_RESOURCES));
        assertEquals(created.getMetadata().getGeneration(), now.getMetadata().getGeneration(),
                "an annotation edit does not move the generation: a generation test would have let it through");

        io.kubequeue.job.argo.Workflow admitted = workflows.withName("w").patch(PatchContext.of(PatchType.JSON),
                AdmissionPatch.of(entry, decided.boundTo(now.getMetadata().getResourceVersion()),
                        io.kubequeue.testing.TrustedRecords.signatures()).toString());
        assertEquals("root.a", admitted.getMetadata().getAnnotations().get(Annotations.QUOTA_GROUP));
    }

    @Test
    void aJobWhoseParallelismIsRaisedAfterItsDecisionRefusesThePatchThoughItCarriesAnnotations() {
        Job annotated = jobs().withName("j").edit(j -> new JobBuilder(j).editMetadata().addToAnnotations("team", "blue")
                .endMetadata().build());
        JobDirectory.Entry entry = new JobDirectory.Entry(null, new ObjectReferenceBuilder()
                .withUid(annotated.getMetadata().getUid()).build(), List.of(SuspendMark.SPEC_SUSPEND), true,
                annotated.getMetadata().getResourceVersion());
        Admission decided = new Admission(new JobKey("Job", "default", "j"), annotated.getMetadata().getUid(), RECORD,
                Resources.NONE, 0, annotated.getMetadata().getResourceVersion());
        jobs().withName("j").edit(j -> new JobBuilder(j).editSpec().withParallelism(20).endSpec().build());

        KubernetesClientException refused = assertThrows(KubernetesClientException.class, () -> jobs().withName("j")
                .patch(PatchContext.of(PatchType.JSON), AdmissionPatch.of(entry, decided,
                        io.kubequeue.testing.TrustedRecords.signatures()).toString()));
        assertEquals(422, refused.getCode());
        assertTrue(jobs().withName("j").get().getSpec().getSuspend(), "the edited job does not start");
    }
}
