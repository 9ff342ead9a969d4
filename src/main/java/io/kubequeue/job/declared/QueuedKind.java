package io.kubequeue.job.declared;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * {@code kube-queue.io/v1alpha1 QueuedKind} (cluster-scoped, kube-queue's own CRD): a job kind kube-queue queues from
 * a declaration, without code or a restart (docs/kinds.md). Its name is free; by convention
 * {@code <plural>.<group>} of the kind it declares. kube-queue writes only its status.
 */
@Group("kube-queue.io")
@Version("v1alpha1")
@Kind("QueuedKind")
@Plural("queuedkinds")
@ShortNames("qk")
@AdditionalPrinterColumn(name = "Kind", jsonPath = ".spec.kind", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "the kind declared")
@AdditionalPrinterColumn(name = "Group", jsonPath = ".spec.group", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "its API group")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
        type = AdditionalPrinterColumn.Type.STRING, getDescription = "whether kube-queue queues its jobs")
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.conditions[?(@.type==\"Ready\")].message",
        type = AdditionalPrinterColumn.Type.STRING, priority = 1,
        getDescription = "why not, naming the field, the missing right or the unserved resource")
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class QueuedKind extends CustomResource<QueuedKindSpec, QueuedKindStatus> {
}
