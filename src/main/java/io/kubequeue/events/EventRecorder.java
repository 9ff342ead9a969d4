package io.kubequeue.events;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.UUID;
import java.util.function.IntSupplier;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.leader.HeldUntilLeading;
import io.kubequeue.leader.Leadership;

/**
 * Writes Kubernetes Events ({@code events.k8s.io/v1}) on jobs and quota objects, and one log line for each
 * Warning (at once, whatever becomes of its event).
 *
 * <p>Events share the API server's write budget with the admissions, so they are written within a budget of their
 * own ({@link EventBudget}; docs/observability.md, "Events and their budget"): the same (object, reason, message) is
 * written once; per object and reason, repeats within {@code kube-queue.events.aggregate-interval} are combined into
 * one event that says how many it stands for; nothing is written while decided admissions wait for the admission
 * pipeline ({@link #sendAfter}); and all events together take tokens from one bucket
 * ({@code kube-queue.events.rate} a second, {@code kube-queue.events.burst} at once). Normal events past that are
 * dropped; Warnings may borrow one burst and otherwise wait. What is written, aggregated and dropped is counted
 * ({@link #tally()}, {@link EventMetrics}). Events are written on a thread of their own, so no decision waits for the
 * API server; a failure to write one is logged (debug), counted, and never fails the caller; the event may be written
 * at its next occurrence.
 */
@Singleton
public class EventRecorder {

    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(java.time.ZoneOffset.UTC);

    private static final Logger LOG = Logger.getLogger(EventRecorder.class);
    private static final String CONTROLLER = "kube-queue";

    private final KubernetesClient client;
    private final EventTally tally = new EventTally();
    private final EventBudget<ObjectReference> budget;
    private final Object writerLock = new Object();
    private Thread writer;
    private volatile boolean stopped;

    private final Leadership leadership;
    /**
     * Warnings a follower could not write, latest per object and reason: written when this replica starts to
     * lead, so bad input seen before (e.g. during start-up recovery) still gets its event. Normal events are not
     * kept: Pending is said again on the next cycle.
     */
    private final HeldUntilLeading warningsWhileFollowing;

    /** A recorder with the shipped budget (application.properties), for tests that build one by hand. */
    public EventRecorder(KubernetesClient client, Leadership leadership) {
        this(client, leadership, SHIPPED);
    }

    @Inject
    public EventRecorder(KubernetesClient client, Leadership leadership, KubeQueueConfig config) {
        this(client, leadership, settings(config.events()));
    }

    private EventRecorder(KubernetesClient client, Leadership leadership, EventBudget.Settings settings) {
        this.client = client;
        this.leadership = leadership;
        this.warningsWhileFollowing = new HeldUntilLeading(leadership, 10_000);
        this.budget = new EventBudget<>(settings, System::nanoTime, tally);
    }

    /** The shipped budget: the defaults of {@link KubeQueueConfig.Events}. */
    private static final EventBudget.Settings SHIPPED = new EventBudget.Settings(5, 200,
            java.time.Duration.ofSeconds(10), java.time.Duration.ofSeconds(30), 1000);

    private static EventBudget.Settings settings(KubeQueueConfig.Events events) {
        return new EventBudget.Settings(events.rate(), events.burst(), events.aggregateInterval(), events.maxWait(),
                events.queueSize());
    }

    /**
     * Events wait while {@code admissionsWaiting} is above 0: the admission loop's decided admissions waiting for a
     * place in its pipeline, so an event never takes an admission's place in the API server's write budget.
     */
    public void sendAfter(IntSupplier admissionsWaiting) {
        budget.sendAfter(admissionsWaiting);
    }

    /** What became of the events asked for so far (the metrics read it). */
    public EventTally tally() {
        return tally;
    }

    @PreDestroy
    void stop() {
        stopped = true;
        synchronized (writerLock) {
            if (writer != null) {
                writer.interrupt();
            }
        }
    }

    /** A reference to an object, enough to hang an event on; kept instead of whole objects to save memory. */
    public static ObjectReference refOf(HasMetadata object) {
        return new ObjectReferenceBuilder()
                .withApiVersion(object.getApiVersion())
                .withKind(object.getKind())
                .withNamespace(object.getMetadata().getNamespace())
                .withName(object.getMetadata().getName())
                .withUid(object.getMetadata().getUid())
                .build();
    }

    /** A Normal event, e.g. {@code Admitted}. */
    public void normal(HasMetadata target, String reason, String message) {
        record(refOf(target), "Normal", reason, message);
    }

    /** A Normal event on a referenced object. */
    public void normal(ObjectReference target, String reason, String message) {
        record(target, "Normal", reason, message);
    }

    /** A Warning event plus one log line, e.g. {@code NoQuotaGroup}, {@code InvalidJob}. */
    public void warning(HasMetadata target, String reason, String message) {
        warning(refOf(target), reason, message);
    }

    /** A Warning event plus one log line, on a referenced object. */
    public void warning(ObjectReference target, String reason, String message) {
        LOG.warnf("%s %s/%s: %s: %s", target.getKind(), target.getNamespace(), target.getName(), reason, message);
        record(target, "Warning", reason, message);
    }

    /** Writes the Warnings asked for while this replica followed; called when it starts to lead. */
    public void writeDeferred() {
        warningsWhileFollowing.runAll();
    }

    private void record(ObjectReference target, String type, String reason, String message) {
        String namespace = target.getNamespace() == null ? "default" : target.getNamespace();
        String identity = target.getKind() + "/" + namespace + "/" + target.getName() + "/"
                + target.getUid() + "/" + reason;
        if (!leadership.isLeader()) {
            // only the leader writes events (a follower still logs its Warnings)
            if ("Warning".equals(type)) {
                warningsWhileFollowing.hold(identity, () -> record(target, type, reason, message));
            }
            return;
        }
        budget.offer(identity, new ObjectReferenceBuilder(target).withNamespace(namespace).build(),
                "Warning".equals(type), reason, message);
        startWriter();
    }

    private void startWriter() {
        synchronized (writerLock) {
            if (writer == null && !stopped) {
                writer = DaemonThreads.named("kube-queue-events").newThread(this::writeWhileRunning);
                writer.start();
            }
        }
    }

    /** The writer thread: writes each event the budget hands out, one at a time. */
    private void writeWhileRunning() {
        while (!stopped) {
            Optional<EventBudget.Ready<ObjectReference>> next;
            try {
                next = budget.awaitNext(1_000_000_000L);
            } catch (InterruptedException e) {
                return;
            }
            next.ifPresent(this::write);
        }
    }

    private void write(EventBudget.Ready<ObjectReference> ready) {
        ObjectReference target = ready.target();
        String message = ready.message();
        Event event = new EventBuilder()
                .withNewMetadata()
                .withName(target.getName() + "." + UUID.randomUUID().toString().substring(0, 8))
                .withNamespace(target.getNamespace())
                .endMetadata()
                .withType(ready.warning() ? "Warning" : "Normal")
                .withReason(ready.reason())
                .withNote(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
                .withAction(ready.reason())
                .withReportingController(CONTROLLER)
                .withReportingInstance(CONTROLLER)
                .withNewEventTime(eventTime(Instant.now()))
                .withRegarding(target)
                .build();
        try {
            client.resource(event).inNamespace(target.getNamespace()).create();
            budget.written(ready);
        } catch (RuntimeException e) { // KubernetesClientException, or a client closed at shutdown
            LOG.debugf(e, "could not write event %s on %s", ready.reason(), ready.key());
            budget.failed(ready); // not written: the next occurrence may try again
        }
    }

    /**
     * An Event's {@code eventTime}, as the API server parses a MicroTime: RFC 3339 in UTC with exactly six
     * fractional digits (Go layout {@code 2006-01-02T15:04:05.000000Z07:00}).
     */
    static String eventTime(Instant instant) {
        return MICRO_TIME.format(instant);
    }
}
