package io.kubequeue.scheduler;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

import io.kubequeue.scheduler.model.CycleResult;

/**
 * The core as the admission loop sees it: it runs the cycles, wakes up for the next retry, and settles what it could
 * not send; it reads statuses for the records it writes beside admissions ({@link Scheduler} implements it). One of
 * the core's roles.
 */
public interface Cycles extends AdmissionSettling, ReadViews {

    /** See {@link Scheduler#schedule}. */
    CycleResult schedule();

    /** See {@link Scheduler#nextRetry}. */
    Optional<Instant> nextRetry();

    /** See {@link Scheduler#clock}. */
    Clock clock();
}
