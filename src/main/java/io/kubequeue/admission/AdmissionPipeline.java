package io.kubequeue.admission;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.jboss.logging.Logger;

import io.kubequeue.scheduler.model.Admission;

/**
 * Carries decided admissions (or evictions: {@link EvictionSender} keeps a pipeline of its own) to the API server with
 * at most {@code inFlight} patches on the wire, never holding a thread while one waits. Decisions beyond that wait in
 * a backlog kept per quota group and served in turn (round robin, one decision per group per turn), so that a burst
 * decided in one group cannot starve another group's when the API server is the bottleneck; within a group, the
 * scheduler's order holds.
 *
 * <p>Thread-safe. {@code send} is called without the pipeline's lock held; the stage it returns must complete
 * (normally or not) once the decision is settled, which frees its slot.
 *
 * @param <T> the decision: {@link Admission} or {@link io.kubequeue.scheduler.model.Eviction}
 */
final class AdmissionPipeline<T> {

    private static final Logger LOG = Logger.getLogger(AdmissionPipeline.class);

    private final int inFlightLimit;
    private final Function<T, String> group;
    private final Function<T, CompletionStage<?>> send;
    /** Decisions not yet sent, per quota group; groups in the order they are served next. */
    private final LinkedHashMap<String, ArrayDeque<T>> backlog = new LinkedHashMap<>();
    private int backlogSize;
    private int inFlight;

    /**
     * @param inFlightLimit the most decisions sent and not yet settled at once; at least 1
     * @param group         the quota group a decision is served in turn with
     * @param send          sends one decision; the stage completes when it is settled
     * @throws IllegalArgumentException if {@code inFlightLimit} is below 1
     */
    AdmissionPipeline(int inFlightLimit, Function<T, String> group, Function<T, CompletionStage<?>> send) {
        if (inFlightLimit < 1) {
            throw new IllegalArgumentException("the in-flight limit must be at least 1, got " + inFlightLimit);
        }
        this.inFlightLimit = inFlightLimit;
        this.group = group;
        this.send = send;
    }

    /** Queues decisions (in the scheduler's order) and sends as many as the in-flight limit allows. */
    void submit(List<T> decisions) {
        if (decisions.isEmpty()) {
            return;
        }
        synchronized (this) {
            for (T decision : decisions) {
                backlog.computeIfAbsent(group.apply(decision), g -> new ArrayDeque<>()).addLast(decision);
                backlogSize++;
            }
        }
        pump();
    }

    /** Takes every decision not yet sent out of the backlog (to be handed back); those in flight go on. */
    synchronized List<T> withdrawBacklog() {
        List<T> withdrawn = new ArrayList<>(backlogSize);
        backlog.values().forEach(withdrawn::addAll);
        backlog.clear();
        backlogSize = 0;
        return withdrawn;
    }

    /** Decisions sent and not yet settled. */
    synchronized int inFlight() {
        return inFlight;
    }

    /** Decisions waiting for a free slot. */
    synchronized int backlog() {
        return backlogSize;
    }

    /**
     * Waits until nothing is in flight, at most {@code wait}.
     *
     * @return whether nothing is in flight
     */
    synchronized boolean awaitIdle(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (inFlight > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /**
     * Sends while there is room and a backlog. One thread pumps at a time; a call made meanwhile (a send that
     * settled at once, another thread's release) makes that thread loop again instead of nesting, so the stack
     * stays flat however many decisions settle without a round trip.
     */
    private void pump() {
        if (pumpRequests.getAndIncrement() != 0) {
            return;
        }
        int asked = 1;
        do {
            sendWhileRoom();
            asked = pumpRequests.addAndGet(-asked);
        } while (asked != 0);
    }

    private final AtomicInteger pumpRequests = new AtomicInteger();

    private void sendWhileRoom() {
        while (true) {
            T next;
            synchronized (this) {
                if (inFlight >= inFlightLimit || backlogSize == 0) {
                    return;
                }
                next = takeInTurn();
                inFlight++;
            }
            CompletionStage<?> settled;
            try {
                settled = send.apply(next);
            } catch (RuntimeException e) {
                LOG.errorf(e, "sending %s failed", next);
                settled = null;
            }
            if (settled == null) {
                released();
            } else {
                settled.whenComplete((ignored, failure) -> released());
            }
        }
    }

    private void released() {
        synchronized (this) {
            inFlight--;
            notifyAll();
        }
        pump();
    }

    /** The head of the group whose turn it is; that group then goes to the back of the line. */
    private T takeInTurn() {
        Iterator<Map.Entry<String, ArrayDeque<T>>> groups = backlog.entrySet().iterator();
        Map.Entry<String, ArrayDeque<T>> first = groups.next();
        T next = first.getValue().pollFirst();
        groups.remove();
        if (!first.getValue().isEmpty()) {
            backlog.put(first.getKey(), first.getValue());
        }
        backlogSize--;
        return next;
    }
}
