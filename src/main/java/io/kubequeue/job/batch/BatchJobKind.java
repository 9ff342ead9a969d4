package io.kubequeue.job.batch;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.kubequeue.collections.BoundedInterner;
import io.kubequeue.job.CountsActivePods;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.JobKind;
import io.kubequeue.resources.PodRequests;
import io.kubequeue.job.Pruning;
import io.kubequeue.job.RunTimeFields;
import io.kubequeue.job.TellsRunTime;
import io.kubequeue.job.StopsWhenSuspended;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.scheduler.model.Resources;

/**
 * batch/v1 Job (Kubernetes ≥ 1.22). Managed when {@code spec.suspend: true} or the suspend annotation is set; only
 * {@code spec.suspend} holds it (a Job with the annotation alone runs, and is charged as started outside kube-queue);
 * request = pod × min(parallelism, completions), parallelism defaulting to 1 and completions to parallelism
 * (docs/behaviour.md §1, §2). Finished when condition {@code Complete} or {@code Failed} is True. Stopped by
 * {@code spec.suspend: true} once running, so it may be evicted ({@link StopsWhenSuspended}); its status counts the
 * pods still active or terminating ({@link CountsActivePods}); it says how long it may run and when it ended
 * ({@link TellsRunTime}: {@code spec.activeDeadlineSeconds}, {@code status.completionTime}).
 */
@Singleton
public class BatchJobKind implements JobKind<Job>, StopsWhenSuspended<Job>, CountsActivePods<Job>,
        TellsRunTime<Job> {

    /** The kept conditions of every copy, shared: types and statuses of two conditions make few distinct lists. */
    private static final BoundedInterner<List<JobCondition>> CONDITIONS = new BoundedInterner<>(256);
    /**
     * The kept specs, shared: jobs of one template and size have the same one (issue 27: an 80-byte JobSpec per
     * pending job). Bounded as the shared templates are.
     */
    private static final BoundedInterner<JobSpec> SPECS = new BoundedInterner<>(4096);

    /**
     * {@code status.active} or {@code status.terminating} above 0. The Job controller stops counting a pod active once
     * it is being deleted; {@code terminating} (Kubernetes 1.28+, feature JobPodReplacementPolicy, on by default
     * from 1.29) counts it until it is gone. Where the API server does not have it, the pod watch tells.
     */
    @Override
    public boolean podsActive(Job job) {
        JobStatus status = job.getStatus();
        return status != null && (positive(status.getActive()) || positive(status.getTerminating()));
    }

    /**
     * {@code spec.activeDeadlineSeconds}: the Job controller fails the Job that many seconds after its
     * {@code status.startTime} (batch/v1 JobSpec; it restarts the count when a suspended Job resumes). Read by
     * {@link RunTimeFields#seconds(Long)}: from 1 second to {@link RunTimeFields#LONGEST}, else absent.
     */
    @Override
    public Optional<Duration> activeDeadline(Job job) {
        return job.getSpec() == null ? Optional.empty() : RunTimeFields.seconds(job.getSpec().getActiveDeadlineSeconds());
    }

    /**
     * {@code status.completionTime}, which the Job controller sets when the Job completes; a failed Job has none
     * (batch/v1 JobStatus: "only set when the job finishes successfully"), so its condition {@code Failed=True}'s
     * {@code lastTransitionTime} tells instead. Either read by {@link RunTimeFields#time(String)}: absent if it does
     * not parse.
     */
    @Override
    public Optional<Instant> completionTime(Job job) {
        JobStatus status = job.getStatus();
        if (status == null) {
            return Optional.empty();
        }
        Optional<Instant> completed = RunTimeFields.time(status.getCompletionTime());
        if (completed.isPresent() || status.getConditions() == null) {
            return completed;
        }
        for (JobCondition c : status.getConditions()) {
            if (c != null && "Failed".equals(c.getType()) && "True".equals(c.getStatus())) {
                return RunTimeFields.time(c.getLastTransitionTime());
            }
        }
        return Optional.empty();
    }

    private static boolean positive(Integer count) {
        return count != null && count > 0;
    }

    @Override
    public String kind() {
        return "Job";
    }

    @Override
    public Class<Job> type() {
        return Job.class;
    }

    @Override
    public List<SuspendMark> suspendMarks(Job job) {
        List<SuspendMark> marks = new ArrayList<>(2);
        if (SuspendMark.annotated(job)) {
            marks.add(SuspendMark.ANNOTATION);
        }
        if (job.getSpec() != null && Boolean.TRUE.equals(job.getSpec().getSuspend())) {
            marks.add(SuspendMark.SPEC_SUSPEND);
        }
        return marks;
    }

    /** The Job controller reads {@code spec.suspend} only; the annotation alone does not stop a Job. */
    @Override
    public boolean held(Job job) {
        return job.getSpec() != null && Boolean.TRUE.equals(job.getSpec().getSuspend());
    }

    /**
     * {@link SuspendMark#SPEC_SUSPEND} for every Job (with a spec): when {@code spec.suspend} becomes true the Job
     * controller deletes the Job's active pods and keeps it from creating more (Kubernetes docs, "Suspending a
     * Job"; batch/v1, Kubernetes ≥ 1.22).
     */
    @Override
    public Optional<SuspendMark> stopMark(Job job) {
        return job.getSpec() == null ? Optional.empty() : Optional.of(SuspendMark.SPEC_SUSPEND);
    }

    /** {@code status.startTime} is set. */
    @Override
    public boolean started(Job job) {
        return job.getStatus() != null && job.getStatus().getStartTime() != null;
    }

    @Override
    public boolean finished(Job job) {
        if (job.getStatus() == null || job.getStatus().getConditions() == null) {
            return false;
        }
        for (JobCondition c : job.getStatus().getConditions()) {
            if (("Complete".equals(c.getType()) || "Failed".equals(c.getType())) && "True".equals(c.getStatus())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Resources request(Job job) {
        return request(job, PodDefaults.NONE);
    }

    /** The template's pods, priced with {@code defaults}, times the pods that run at once. */
    @Override
    public Resources request(Job job, PodDefaults defaults) {
        if (job.getSpec() == null || job.getSpec().getTemplate() == null) {
            throw new InvalidJobException("spec.template", null, "a Job needs a pod template");
        }
        int parallelism = job.getSpec().getParallelism() == null ? 1 : job.getSpec().getParallelism();
        if (parallelism < 0) {
            throw new InvalidJobException("spec.parallelism", parallelism, "must not be negative");
        }
        Integer completions = job.getSpec().getCompletions();
        if (completions != null && completions < 0) {
            throw new InvalidJobException("spec.completions", completions, "must not be negative");
        }
        int pods = completions == null ? parallelism : Math.min(parallelism, completions);
        return PodRequests.of(job.getSpec().getTemplate().getSpec(), "spec.template.spec", defaults).times(pods);
    }

    /**
     * The Job controller's label {@code controller-uid}: set on every Kubernetes version kube-queue supports
     * (≥ 1.22); 1.27 added {@code batch.kubernetes.io/controller-uid} beside it.
     */
    @Override
    public String podLabelKey() {
        return "controller-uid";
    }

    /** The Job's uid: the value of {@code controller-uid}. */
    @Override
    public String podLabelValue(String name, String uid) {
        return uid;
    }

    /**
     * The name of the pod's controlling owner of kind {@code Job} (API group {@code batch}): the Job controller sets
     * it on every pod it makes, and the label only carries the uid.
     */
    @Override
    public String jobNameOfPod(ObjectMeta pod) {
        if (pod.getOwnerReferences() == null) {
            return null;
        }
        for (OwnerReference owner : pod.getOwnerReferences()) {
            if (Boolean.TRUE.equals(owner.getController()) && "Job".equals(owner.getKind())
                    && owner.getApiVersion() != null && owner.getApiVersion().startsWith("batch/")) {
                return owner.getName();
            }
        }
        return null;
    }

    /** From {@code spec.template.spec}: {@code priorityClassName} and {@code priority}. */
    @Override
    public JobPriority priority(Job job) {
        if (job.getSpec() == null || job.getSpec().getTemplate() == null || job.getSpec().getTemplate().getSpec() == null) {
            return JobPriority.NONE;
        }
        var pod = job.getSpec().getTemplate().getSpec();
        return new JobPriority(pod.getPriorityClassName(), pod.getPriority());
    }

    /**
     * Keeps {@code spec.suspend}, {@code parallelism}, {@code completions}, {@code activeDeadlineSeconds}, the pod
     * template's requests and priority ({@link Pruning#podSpec}), {@code status.startTime}, {@code status.active},
     * {@code status.terminating} and {@code status.completionTime}, and the type and status of conditions
     * {@code Complete} and {@code Failed} (and a {@code Failed=True}'s {@code lastTransitionTime}, a failed Job's end):
     * one shared list of them per distinct list (a finished job's copy stays cached as long as the job exists: issue
     * 27, some 100 bytes per finished job).
     */
    @Override
    public Job pruned(Job job) {
        Job copy = new Job();
        copy.setAdditionalProperties(null);
        copy.setApiVersion(job.getApiVersion() == null ? null : job.getApiVersion().intern());
        copy.setKind(job.getKind() == null ? null : job.getKind().intern());
        copy.setMetadata(Pruning.jobMetadata(job.getMetadata()));
        JobSpec spec = job.getSpec();
        if (spec != null) {
            JobSpec kept = new JobSpec();
            kept.setAdditionalProperties(null);
            kept.setSuspend(spec.getSuspend());
            kept.setParallelism(spec.getParallelism());
            kept.setCompletions(spec.getCompletions());
            kept.setActiveDeadlineSeconds(spec.getActiveDeadlineSeconds());
            kept.setTemplate(Pruning.podTemplate(spec.getTemplate())); // shared by jobs of the same template
            // and so is the spec, the template shared (else its hash may throw on a bad quantity)
            copy.setSpec(kept.getTemplate() == null || Pruning.isShared(kept.getTemplate()) ? SPECS.intern(kept)
                    : kept);
        }
        JobStatus status = job.getStatus();
        if (status != null) {
            List<JobCondition> conditions = new ArrayList<>(0);
            if (status.getConditions() != null) {
                for (JobCondition c : status.getConditions()) {
                    if (c != null && ("Complete".equals(c.getType()) || "Failed".equals(c.getType()))) {
                        JobCondition keptCondition = new JobCondition();
                        keptCondition.setAdditionalProperties(null);
                        keptCondition.setType(c.getType().intern());
                        keptCondition.setStatus(c.getStatus() == null ? null : c.getStatus().intern());
                        if ("Failed".equals(c.getType()) && "True".equals(c.getStatus())) {
                            // a failed Job's end (completionTime), bounded: a longer one reads as absent anyway
                            keptCondition.setLastTransitionTime(bounded(c.getLastTransitionTime()));
                        }
                        conditions.add(keptCondition);
                    }
                }
            }
            if (status.getStartTime() != null || !conditions.isEmpty() || status.getActive() != null
                    || status.getTerminating() != null || status.getCompletionTime() != null) {
                JobStatus kept = new JobStatus();
                kept.setAdditionalProperties(null);
                // jobs started in the same second share it (interned as the creation time is: Pruning)
                kept.setStartTime(status.getStartTime() == null ? null : status.getStartTime().intern());
                kept.setCompletionTime(bounded(status.getCompletionTime()));
                kept.setActive(status.getActive());
                kept.setTerminating(status.getTerminating());
                // a failed Job's list holds its own end time: not shared (the interner keeps what it shares)
                kept.setConditions(conditions.isEmpty() ? null
                        : conditions.stream().anyMatch(c -> c.getLastTransitionTime() != null)
                                ? List.copyOf(conditions) : CONDITIONS.intern(List.copyOf(conditions)));
                copy.setStatus(kept);
            }
        }
        return copy;
    }

    /** A time as cached: interned as the start time is; past {@link RunTimeFields#TIME_MAX_LENGTH} it reads as absent. */
    private static String bounded(String time) {
        return time == null ? null : time.length() > RunTimeFields.TIME_MAX_LENGTH
                ? time.substring(0, RunTimeFields.TIME_MAX_LENGTH + 1) : time.intern();
    }
}
