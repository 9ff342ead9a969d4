package io.kubequeue.scheduler.ledger;

import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.Resources;

/** The ledger's tests' job: an observation and the two slots the ledger writes, without the queue's entry. */
final class ChargedJob implements Chargeable {
    private final JobObservation job;
    private Charge charge;
    private String admittedCountedIn;

    ChargedJob(JobObservation job) {
        this.job = job;
    }

    @Override
    public JobObservation job() {
        return job;
    }

    @Override
    public Resources effectiveRequest() {
        return job.request().with(Resources.MAX_JOBS, 1);
    }

    @Override
    public Charge charge() {
        return charge;
    }

    @Override
    public void charge(Charge next) {
        charge = next;
    }

    @Override
    public String admittedCountedIn() {
        return admittedCountedIn;
    }

    @Override
    public void admittedCountedIn(String group) {
        admittedCountedIn = group;
    }
}
