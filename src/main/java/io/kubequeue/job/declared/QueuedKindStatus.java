package io.kubequeue.job.declared;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.fabric8.kubernetes.api.model.Condition;

/**
 * What kube-queue found of a {@link QueuedKind}: condition {@code Ready} (True: its jobs are queued), with
 * {@code Valid}, {@code Served} and {@code Authorized} saying which check failed when it is not, each with a reason
 * and a message that names the field, the missing right or the unserved resource (docs/kinds.md, "Checking a
 * declaration").
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QueuedKindStatus {

    /** The {@code metadata.generation} the conditions describe. */
    public Long observedGeneration;

    /** {@code Valid}, {@code Served}, {@code Authorized}, {@code Ready}. */
    public List<Condition> conditions = new ArrayList<>();

    /** How many jobs of the kind kube-queue manages now. */
    public Integer jobs;
}
