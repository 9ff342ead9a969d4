package io.kubequeue.job.argo;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * argoproj.io/v1alpha1 Workflow, read loosely (spec and status as JSON) since its CRD belongs to Argo;
 * excluded from CRD generation.
 */
@Group("argoproj.io")
@Version("v1alpha1")
@Kind("Workflow")
@Plural("workflows")
public class Workflow extends CustomResource<JsonNode, JsonNode> implements Namespaced {
}
