package io.kubequeue.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.Annotations;
import io.kubequeue.operator.Manifests;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.quota.elastic.ElasticQuotaTree;

/** Test helper: applies the YAML files of src/test/resources and plays the training operator's part. */
public final class Cluster {

    private final KubernetesClient client;

    public Cluster(KubernetesClient client) {
        this.client = client;
    }

    /** Creates every object of a classpath YAML file; namespace {@code default} where none is given. */
    public List<HasMetadata> apply(String resource) {
        try (InputStream in = Cluster.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + resource);
            }
            List<HasMetadata> objects = Manifests.read(client, in);
            for (HasMetadata o : objects) {
                create(o);
            }
            return objects;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Creates one object; a ResourceQuota is then counted, as the quota controller does in a real cluster. */
    public HasMetadata create(HasMetadata o) {
        String ns = o.getMetadata().getNamespace() == null ? "default" : o.getMetadata().getNamespace();
        o.getMetadata().setNamespace(ns);
        HasMetadata created = client.resource(o).inNamespace(ns).create();
        return created instanceof ResourceQuota quota ? countQuota(quota) : created;
    }

    /**
     * What Kubernetes' quota controller does for a new quota, which the mock API server has not: writes
     * {@code status.hard} equal to {@code spec.hard} and {@code status.used} as nothing used. Until then kube-queue
     * holds the namespace.
     */
    public ResourceQuota countQuota(ResourceQuota quota) {
        ResourceQuota current = client.resourceQuotas().inNamespace(quota.getMetadata().getNamespace())
                .withName(quota.getMetadata().getName()).get();
        java.util.Map<String, Quantity> used = new java.util.HashMap<>();
        current.getSpec().getHard().keySet().forEach(k -> used.put(k, new Quantity("0")));
        current.setStatus(new io.fabric8.kubernetes.api.model.ResourceQuotaStatusBuilder()
                .addToHard(current.getSpec().getHard()).addToUsed(used).build());
        return client.resourceQuotas().inNamespace(current.getMetadata().getNamespace()).resource(current).updateStatus();
    }

    /**
     * Submits a suspended batch Job of one pod in namespace {@code default}.
     *
     * @param cpu           the pod's cpu request, e.g. {@code "2"}
     * @param labels        the Job's labels (e.g. the quota-name or preemptible label)
     * @param priorityClass the pod template's priorityClassName, or null
     */
    public Job submitJob(String name, String cpu, Map<String, String> labels, String priorityClass) {
        Job job = new JobBuilder().withNewMetadata().withName(name).withNamespace("default").withLabels(labels).endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().withRestartPolicy("Never")
                .withPriorityClassName(priorityClass)
                .addNewContainer().withName("work").withImage("busybox:stable")
                .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer()
                .endSpec().endTemplate().endSpec().build();
        return client.batch().v1().jobs().inNamespace("default").resource(job).create();
    }

    /** Whether kube-queue has admitted the batch Job (no suspend mark, admission record present). */
    public boolean admitted(String jobName) {
        Job job = job(jobName);
        return !suspended(job) && admittedGroup(job) != null;
    }

    /**
     * Whether kube-queue has admitted this job of any kind, as the cluster holds it now: no suspend mark of any kind
     * left ({@code scheduling.x-k8s.io/suspend}, {@code spec.suspend}, {@code spec.runPolicy.suspend}) and the
     * admission record written.
     */
    public boolean admittedNow(HasMetadata job) {
        HasMetadata now = client.resource(job).get();
        if (now == null || admittedGroup(now) == null || suspended(now)) {
            return false;
        }
        JsonNode spec = client.getKubernetesSerialization().convertValue(now, JsonNode.class).path("spec");
        return !spec.path("suspend").asBoolean(false) && !spec.path("runPolicy").path("suspend").asBoolean(false);
    }

    public TFJob tfJob(String name) {
        return client.resources(TFJob.class).inNamespace("default").withName(name).get();
    }

    public Job job(String name) {
        return client.batch().v1().jobs().inNamespace("default").withName(name).get();
    }

    /**
     * Waits until one of the seed's two TFJobs is admitted and returns its name. Which one wins depends on
     * which the operator saw first (they tie in queue order but for their names when seen together), so the
     * tests say "one runs, the other waits", as the seed does.
     */
    public String awaitOneSeedJobAdmitted() {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> !suspended(tfJob("job1")) || !suspended(tfJob("job2")));
        return suspended(tfJob("job1")) ? "job2" : "job1";
    }

    public static String other(String seedJob) {
        return seedJob.equals("job1") ? "job2" : "job1";
    }

    public static boolean suspended(HasMetadata job) {
        Map<String, String> a = job.getMetadata().getAnnotations();
        boolean annotation = a != null && "true".equals(a.get(SuspendMark.ANNOTATION_KEY));
        boolean spec = job instanceof Job j && Boolean.TRUE.equals(j.getSpec().getSuspend());
        return annotation || spec;
    }

    public static String admittedGroup(HasMetadata job) {
        Map<String, String> a = job.getMetadata().getAnnotations();
        return a == null ? null : a.get(Annotations.QUOTA_GROUP);
    }

    /** What the training operator does when a TFJob ends: condition Succeeded=True. */
    public void succeed(String tfJobName) {
        TFJob job = tfJob(tfJobName);
        ObjectNode status = JsonNodeFactory.instance.objectNode();
        status.putArray("conditions").addObject().put("type", "Succeeded").put("status", "True")
                .put("reason", "TFJobSucceeded");
        job.setStatus(status);
        client.resources(TFJob.class).inNamespace("default").resource(job).updateStatus();
    }

    /** What the Job controller does when a Job ends: condition Complete=True. */
    public void complete(String jobName) {
        Job job = job(jobName);
        job.setStatus(new JobStatusBuilder().withConditions(new JobConditionBuilder()
                .withType("Complete").withStatus("True").build()).withSucceeded(1).build());
        client.batch().v1().jobs().inNamespace("default").resource(job).updateStatus();
    }

    public List<Event> events(String namespace, String name) {
        return client.resources(Event.class).inNamespace(namespace).list().getItems().stream()
                .filter(e -> name.equals(e.getRegarding().getName())).toList();
    }

    /** Removes every job and quota object, so the next test starts from an empty cluster. */
    public void clear() {
        client.resources(TFJob.class).inAnyNamespace().delete();
        client.resources(io.kubequeue.job.kubeflow.PyTorchJob.class).inAnyNamespace().delete();
        client.resources(io.kubequeue.job.kubeflow.MPIJob.class).inAnyNamespace().delete();
        client.resources(io.kubequeue.job.kubeflow.MPIJobV2beta1.class).inAnyNamespace().delete();
        client.resources(io.kubequeue.job.argo.Workflow.class).inAnyNamespace().delete();
        client.batch().v1().jobs().inAnyNamespace().delete();
        client.resources(ElasticQuotaTree.class).inAnyNamespace().delete();
        client.resources(PriorityClass.class).delete();
        client.pods().inAnyNamespace().delete();
        client.resources(ResourceQuota.class).inAnyNamespace().delete();
        client.resources(Event.class).inAnyNamespace().delete();
    }
}
