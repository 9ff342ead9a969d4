package io.kubequeue.job.declared;

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
public class QueuedKind extends CustomResource<QueuedKindSpec, QueuedKindStatus> {
}
