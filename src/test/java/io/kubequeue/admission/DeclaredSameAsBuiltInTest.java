package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.job.declared.DeclaredJobKind;
import io.kubequeue.job.declared.QueuedKind;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.job.kubeflow.TFJobKind;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.TrustedRecords;

/**
 * Issue 31: a rule a declaration can express is the same code for a declared kind and a built-in one. The same TFJob
 * (held by {@code spec.runPolicy.suspend}), read by the built-in TFJob kind and by a QueuedKind that declares TFJob
 * as docs/kinds.md does, gives the same marks, request, priority, finished state, run time (deadline, end), stop mark
 * and admission patch.
 */
class DeclaredSameAsBuiltInTest {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final RecordSignatures SIGNATURES = TrustedRecords.signatures();

    /** The TFJob declaration: the Kubeflow rule ({@code KubeflowJobKind.podSets("tfReplicaSpecs")}) written out. */
    private static final String DECLARED_TFJOB = """
            apiVersion: kube-queue.io/v1alpha1
            kind: QueuedKind
            metadata:
              name: tfjobs.kubeflow.org
            spec:
              group: kubeflow.org
              version: v1
              kind: TFJob
              plural: tfjobs
              hold:
                field: spec.runPolicy.suspend
              podSets:
                - name: replicas
                  each: spec.tfReplicaSpecs.*
                  template: template
                  counts:
                    - field: replicas
              finished:
                conditions: [Succeeded, Failed]
              pods:
                labelKey: training.kubeflow.org/job-name
                ownedByJob: true
              stopsWhenSuspended: true
              activeDeadlineSeconds: spec.runPolicy.activeDeadlineSeconds
            """;

    private static final String JOB = """
            apiVersion: kubeflow.org/v1
            kind: TFJob
            metadata:
              name: mnist
              namespace: team-a
              uid: u1
              resourceVersion: "7"
              annotations:
                owner: team-a
            spec:
              runPolicy:
                suspend: true
                activeDeadlineSeconds: 3600
              tfReplicaSpecs:
                Chief:
                  template:
                    spec:
                      priorityClassName: high
                      containers:
                        - name: tensorflow
                          image: kubeflow/tf-dist-mnist-test:latest
                          resources:
                            requests: {cpu: 500m, memory: 1Gi}
                Worker:
                  replicas: 3
                  template:
                    spec:
                      containers:
                        - name: tensorflow
                          image: kubeflow/tf-dist-mnist-test:latest
                          resources:
                            requests: {cpu: "2", nvidia.com/gpu: "1"}
                            limits: {nvidia.com/gpu: "1"}
            %s
            """;

    private final TFJobKind builtIn = new TFJobKind(new io.fabric8.kubernetes.client.KubernetesClientBuilder()
            .withKubernetesSerialization(SERIALIZATION).build());
    private final DeclaredJobKind declared = DeclaredJobKind.of("tfjobs.kubeflow.org",
            SERIALIZATION.unmarshal(DECLARED_TFJOB, QueuedKind.class).getSpec(), SERIALIZATION);

    private TFJob asBuiltIn(String status) {
        return SERIALIZATION.unmarshal(JOB.formatted(status), TFJob.class);
    }

    private GenericKubernetesResource asDeclared(String status) {
        return SERIALIZATION.unmarshal(JOB.formatted(status), GenericKubernetesResource.class);
    }

    @Test
    void theSameJobReadsTheSameAndIsAdmittedWithTheSamePatch() {
        TFJob tf = asBuiltIn("");
        GenericKubernetesResource generic = asDeclared("");
        assertEquals(List.of(SuspendMark.RUN_POLICY_SUSPEND), builtIn.suspendMarks(tf));
        assertEquals(builtIn.suspendMarks(tf), declared.suspendMarks(generic));
        // Chief 1 × (500m, 1Gi) + Worker 3 × (2 cpu, 1 GPU) = 6500m cpu, 1Gi, 3 GPUs
        Resources request = builtIn.request(tf, PodDefaults.NONE);
        assertEquals(6500, request.get("cpu"));
        assertEquals(3, request.get("nvidia.com/gpu"));
        assertEquals(request, declared.request(generic, PodDefaults.NONE));
        assertEquals(builtIn.priority(tf), declared.priority(generic));
        assertEquals(builtIn.stopMark(tf), declared.stopMark(generic));
        assertEquals(builtIn.podLabelValue("mnist", "u1"), declared.podLabelValue("mnist", "u1"));

        Admission admission = new Admission(new JobKey("TFJob", "team-a", "mnist"), "u1",
                new AdmissionRecord("root.a", "2026-01-01T00:00:00.123Z"), request, 0);
        String patchBuiltIn = AdmissionPatch.of(JobDirectory.Entry.of(builtIn, tf, builtIn.suspendMarks(tf)),
                admission, SIGNATURES).toString();
        String patchDeclared = AdmissionPatch.of(JobDirectory.Entry.of(declared, generic,
                declared.suspendMarks(generic)), admission, SIGNATURES).toString();
        assertEquals(patchBuiltIn, patchDeclared);
        assertTrue(patchDeclared.contains("{\"op\":\"replace\",\"path\":\"/spec/runPolicy/suspend\",\"value\":false}"),
                patchDeclared);
    }

    @Test
    void aManifestIsTheDeclaredKindsOnlyByItsApiVersionAndKind() {
        assertTrue(declared.isKindOf(asDeclared("")));
        GenericKubernetesResource other = asDeclared("");
        other.setKind("PyTorchJob");
        assertFalse(declared.isKindOf(other), "another kind of the same group");
        GenericKubernetesResource otherVersion = asDeclared("");
        otherVersion.setApiVersion("kubeflow.org/v2");
        assertFalse(declared.isKindOf(otherVersion), "another version");
        assertFalse(declared.isKindOf(asBuiltIn("")), "a typed object is a built-in kind's");
    }

    @Test
    void bothReadTheCachedCopyAsTheJobAndFinishAlike() {
        String succeeded = "status: {conditions: [{type: Succeeded, status: \"True\"}]}";
        String running = "status: {conditions: [{type: Running, status: \"True\"}]}";
        assertTrue(builtIn.finished(asBuiltIn(succeeded)));
        assertTrue(declared.finished(asDeclared(succeeded)));
        assertFalse(builtIn.finished(asBuiltIn(running)));
        assertFalse(declared.finished(asDeclared(running)));
        // the run time the estimates learn: the deadline, and the end at the finishing condition's time
        String ended = "status: {conditions: [{type: Running, status: \"False\"}, {type: Succeeded, status: \"True\","
                + " lastTransitionTime: \"2026-01-01T01:02:03Z\"}]}";
        assertEquals(java.util.Optional.of(java.time.Duration.ofHours(1)), builtIn.activeDeadline(asBuiltIn("")));
        assertEquals(builtIn.activeDeadline(asBuiltIn("")), declared.activeDeadline(declared.pruned(asDeclared(""))));
        assertEquals(java.util.Optional.of(java.time.Instant.parse("2026-01-01T01:02:03Z")),
                builtIn.completionTime(asBuiltIn(ended)));
        assertEquals(builtIn.completionTime(asBuiltIn(ended)), declared.completionTime(declared.pruned(asDeclared(ended))));
        assertEquals(java.util.Optional.empty(), declared.completionTime(asDeclared(running)));
        GenericKubernetesResource pruned = declared.pruned(asDeclared(""));
        assertEquals(declared.request(asDeclared(""), PodDefaults.NONE), declared.request(pruned, PodDefaults.NONE));
        assertEquals(declared.suspendMarks(asDeclared("")), declared.suspendMarks(pruned));
        assertEquals(declared.priority(asDeclared("")), declared.priority(pruned));
        assertEquals("kubeflow.org/v1", pruned.getApiVersion());
    }
}
