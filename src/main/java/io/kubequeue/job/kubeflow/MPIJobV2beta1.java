package io.kubequeue.job.kubeflow;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * kubeflow.org/v2beta1 MPIJob (mpi-operator), read loosely; excluded from CRD generation. Its CRD has the
 * same name as the training operator's v1 MPIJob and a cluster installs one of the two: the controller of
 * the version not served waits, retrying, and never sees a job.
 */
@Group("kubeflow.org")
@Version("v2beta1")
@Kind("MPIJob")
@Plural("mpijobs")
public class MPIJobV2beta1 extends CustomResource<JsonNode, JsonNode> implements Namespaced {
}
