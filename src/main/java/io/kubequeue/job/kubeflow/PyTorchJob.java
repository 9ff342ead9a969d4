package io.kubequeue.job.kubeflow;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * kubeflow.org/v1 PyTorchJob, read loosely (spec and status as JSON) since its CRD belongs to the training
 * operator; excluded from CRD generation.
 */
@Group("kubeflow.org")
@Version("v1")
@Kind("PyTorchJob")
@Plural("pytorchjobs")
public class PyTorchJob extends CustomResource<JsonNode, JsonNode> implements Namespaced {
}
