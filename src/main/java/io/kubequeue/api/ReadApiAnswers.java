package io.kubequeue.api;

import java.util.List;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.ext.web.RoutingContext;

/**
 * Counts the read API's answers, {@code kube_queue_read_api_answers_total{route, code}}: by route (the path with
 * its names taken out, so the series do not grow with the jobs: {@code queues}, {@code group_jobs}, {@code job},
 * {@code dry_run}, {@code other}) and HTTP status code, whoever answered (this replica, the leader it forwarded
 * to, or the token check), once: on the replica the caller reached. A rise of {@code 401}/{@code 403} is a caller without rights; of {@code 503}, no
 * leader reachable (docs/metrics.md). The common codes are registered at 0 at start.
 */
@Singleton
public class ReadApiAnswers {

    /** Status codes registered at start, per route. */
    static final List<Integer> COMMON_CODES = List.of(200, 400, 401, 403, 404, 503);
    static final List<String> ROUTES = List.of("queues", "group_jobs", "job", "dry_run", "other");

    private final MeterRegistry registry;

    public ReadApiAnswers(MeterRegistry registry) {
        this.registry = registry;
    }

    void onStart(@Observes StartupEvent event) {
        for (String route : ROUTES) {
            for (int code : COMMON_CODES) {
                answers(route, code);
            }
        }
    }

    /** Runs before the forwarding filter, so that a forwarded call is counted with the leader's answer. */
    void register(@Observes Filters filters) {
        filters.register(this::count, 20);
    }

    private void count(RoutingContext rc) {
        String path = rc.normalizedPath();
        // a call a follower forwarded here is counted there, with this replica's code: not twice
        if (ReadApiForwarding.readApi(path) && rc.request().getHeader(ReadApiForwarding.FORWARDED_BY) == null) {
            String route = route(path);
            rc.addHeadersEndHandler(v -> answers(route, rc.response().getStatusCode()).increment());
        }
        rc.next();
    }

    /**
     * The route of a read API path: {@code /api/v1/queues}, {@code /api/v1/queues/{group}/jobs},
     * {@code /api/v1/jobs/{namespace}/{name}}, {@code /api/v1/dry-run}; anything else is {@code other}.
     */
    static String route(String path) {
        String[] parts = path.substring(Math.min(path.length(), "/api/v1/".length())).split("/", -1);
        if (parts.length == 1 && parts[0].equals("queues")) {
            return "queues";
        }
        if (parts.length == 3 && parts[0].equals("queues") && parts[2].equals("jobs")) {
            return "group_jobs";
        }
        if (parts.length == 3 && parts[0].equals("jobs")) {
            return "job";
        }
        if (parts.length == 1 && parts[0].equals("dry-run")) {
            return "dry_run";
        }
        return "other";
    }

    private Counter answers(String route, int code) {
        return Counter.builder("kube_queue_read_api_answers")
                .description("Read API answers, by route (queues, group_jobs, job, dry_run, other) and HTTP status"
                        + " code, whichever replica answered")
                .tag("route", route).tag("code", Integer.toString(code)).register(registry);
    }
}
