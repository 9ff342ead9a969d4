package io.kubequeue.events;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.leader.HeldUntilLeading;
import io.kubequeue.leader.Leadership;

/**
 * Writes Kubernetes Events ({@code events.k8s.io/v1}) on jobs and quota objects, and one log line for each
 * Warning.
 *
 * <p>The same (object, reason, message) is written once: a job that stays held for the same reason does not
 * produce an event per scheduling cycle. Events are written on a thread of their own, so no decision waits for
 * the API server, and Normal events are rate-limited ({@value #NORMAL_PER_SECOND} a second, bursts of
 * {@value #NORMAL_BURST}); past that they are dropped, with a debug log line, so a queue of thousands of jobs
 * cannot flood the API server. Warnings are never dropped by the limit. A failure to write an event is logged
 * (debug) and never fails the caller; the event may be written at its next occurrence.
 */
@Singleton
public class EventRecorder {

    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(java.time.ZoneOffset.UTC);

    private static final Logger LOG = Logger.getLogger(EventRecorder.class);
    private static final String CONTROLLER = "kube-queue";
    private static final int REMEMBERED = 10_000;
    static final int NORMAL_PER_SECOND = 20;
    static final int NORMAL_BURST = 200;
    private static final int QUEUED_AT_MOST = 10_000;

    private final KubernetesClient client;
    private final Map<String, String> lastMessage = BoundedMaps.keepingRecentlyUsed(REMEMBERED);

    private final RateLimit normalEvents = new RateLimit(NORMAL_PER_SECOND, NORMAL_BURST, System::nanoTime);
    private final ThreadPoolExecutor writer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(QUEUED_AT_MOST), DaemonThreads.named("kube-queue-events"));

    private final Leadership leadership;
    /**
     * Warnings a follower could not write, latest per object and reason: written when this replica starts to
     * lead, so bad input seen before (e.g. during start-up recovery) still gets its event. Normal events are not
     * kept: Pending is said again on the next cycle.
     */
    private final HeldUntilLeading warningsWhileFollowing;

    public EventRecorder(KubernetesClient client, Leadership leadership) {
        this.client = client;
        this.leadership = leadership;
        this.warningsWhileFollowing = new HeldUntilLeading(leadership, 10_000);
    }

    private void forget(String identity, String message) {
        synchronized (lastMessage) {
            lastMessage.remove(identity, message);
        }
    }

    @PreDestroy
    void stop() {
        writer.shutdown();
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
        synchronized (lastMessage) {
            if (message.equals(lastMessage.get(identity))) {
                return;
            }
            if ("Normal".equals(type) && !normalEvents.tryAcquire()) {
                LOG.debugf("rate limit: event %s on %s dropped", reason, identity);
                return;
            }
            lastMessage.put(identity, message);
        }
        Instant now = Instant.now();
        Event event = new EventBuilder()
                .withNewMetadata()
                .withName(target.getName() + "." + UUID.randomUUID().toString().substring(0, 8))
                .withNamespace(namespace)
                .endMetadata()
                .withType(type)
                .withReason(reason)
                .withNote(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
                .withAction(reason)
                .withReportingController(CONTROLLER)
                .withReportingInstance(CONTROLLER)
                .withNewEventTime(eventTime(now))
                .withRegarding(new ObjectReferenceBuilder(target).withNamespace(namespace).build())
                .build();
        try {
            writer.execute(() -> {
                try {
                    client.resource(event).inNamespace(namespace).create();
                } catch (KubernetesClientException e) {
                    LOG.debugf(e, "could not write event %s on %s", reason, identity);
                    forget(identity, message); // not written: the next occurrence may try again
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debugf("event queue full or closed: event %s on %s dropped", reason, identity);
            forget(identity, message);
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
