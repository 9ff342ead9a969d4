package io.kubequeue.visibility;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.kubequeue.job.EstimateAnswer;
import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.scheduler.model.Resources;

/**
 * Server-side printing: the {@code meta.k8s.io} {@code Table} kubectl asks for ({@code Accept:
 * application/json;as=Table;v=v1;g=meta.k8s.io, …}), so that {@code kubectl get pendingjobs} prints kube-queue's
 * columns (Kubernetes API concepts, "Receiving resources as Tables"). Columns of priority 1 are shown by
 * {@code -o wide} only. Each row carries the object as {@code includeObject} asks: {@code Metadata} (the default, a
 * {@code PartialObjectMetadata}, from which kubectl reads the namespace for {@code -A}), {@code Object} or
 * {@code None}.
 */
final class Tables {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private Tables() {
    }

    /**
     * The {@code meta.k8s.io} version of the Table the {@code Accept} header asks for, or null when it asks for none
     * (or accepts plain JSON before any Table).
     *
     * @param accept the header: comma-separated media ranges with parameters
     * @return {@code v1}, {@code v1beta1} or null
     */
    static String version(String accept) {
        if (accept == null || accept.length() > 4096) {
            return null;
        }
        for (String range : accept.split(",")) {
            String[] params = range.split(";");
            String as = null;
            String group = null;
            String version = null;
            for (int i = 1; i < params.length; i++) {
                String[] kv = params[i].trim().split("=", 2);
                if (kv.length == 2) {
                    switch (kv[0].trim().toLowerCase(Locale.ROOT)) {
                        case "as" -> as = kv[1].trim();
                        case "g" -> group = kv[1].trim();
                        case "v" -> version = kv[1].trim();
                        default -> {
                        }
                    }
                }
            }
            String type = params.length == 0 ? "" : params[0].trim(); // ";;" splits into nothing
            if ("Table".equals(as) && "meta.k8s.io".equals(group) && ("v1".equals(version) || "v1beta1".equals(version))
                    && (type.equals("application/json") || type.equals("*/*"))) {
                return version;
            }
            if (as == null && (type.equals("application/json") || type.equals("*/*"))) {
                return null; // plain JSON is preferred to any Table named after it
            }
        }
        return null;
    }

    /** A column: its header, type ({@code string}, {@code integer}), and whether only {@code -o wide} shows it. */
    private record Column(String name, String type, boolean wide, String description) {
    }

    private static final List<Column> PENDING_JOB_COLUMNS = List.of(
            new Column("Name", "string", false, "The job's name"),
            new Column("Kind", "string", false, "The job's kind"),
            new Column("Quota Group", "string", false, "The quota group it queues in"),
            new Column("Position", "integer", false, "Its place among every job of its group, from 1"),
            new Column("State", "string", false, "Active (tried in the next cycle), BackedOff, Held"),
            new Column("ETA", "string", false, "Time until its expected start (p50), as kubectl prints ages; or why"
                    + " there is none: NEVER_FITS, NO_QUOTA_GROUP, UNKNOWN, BLOCKED, BEYOND_HORIZON"),
            new Column("Reason", "string", false, "Why it is not admitted, with the numbers"),
            new Column("ETA-Late", "string", true, "Time until its late start (p90), the band's other end"),
            new Column("Priority", "integer", true, "Its priority as resolved now"),
            new Column("Request", "string", true, "The whole job's request"),
            new Column("Retry At", "string", true, "When a backed-off job is tried again"));

    private static final List<Column> QUOTA_GROUP_COLUMNS = List.of(
            new Column("Name", "string", false, "The quota group"),
            new Column("Parent", "string", false, "Its parent group"),
            new Column("Pending", "integer", false, "Jobs waiting in this group"),
            new Column("Admitted", "integer", false, "Jobs admitted into this group itself"),
            new Column("CPU", "string", false, "cpu used / max (descendants included)"),
            new Column("Memory", "string", false, "memory used / max (descendants included)"),
            new Column("Policy", "string", true, "The queue policy in force"),
            new Column("Min", "string", true, "Declared min"),
            new Column("Max", "string", true, "Declared max"),
            new Column("Used", "string", true, "Used by the jobs kube-queue admitted"));

    /**
     * The pendingjobs Table: Name, Kind, Quota Group, Position, State, ETA, Reason; with {@code -o wide} ETA-Late,
     * Priority, Request, Retry At.
     *
     * @param forecast each job's estimate and unblock lines, rendered for the reader
     * @param now      the time the ETA columns count from
     */
    static ObjectNode pendingJobs(String version, List<PendingView> jobs, Predicate<JobKey> mayName,
                                  Function<PendingView, VisibilityApi.Forecast> forecast, Instant now, String include) {
        return table(version, PENDING_JOB_COLUMNS, jobs, v -> {
            VisibilityApi.Forecast f = forecast.apply(v);
            ArrayNode cells = JSON.arrayNode();
            cells.add(v.status().key().name()).add(v.status().key().kind())
                    .add(v.status().group() == null ? "<none>" : v.status().group()).add(v.position())
                    .add(VisibilityApi.Shapes.state(v.status().state())).add(eta(f.estimate(), false, now))
                    .add(v.reason().render(mayName)).add(eta(f.estimate(), true, now))
                    .add(v.status().priority()).add(pairs(v.status().request().asQuantities()))
                    .add(v.status().retryAt() == null ? "<none>" : v.status().retryAt().toString());
            return cells;
        }, v -> VisibilityApi.Shapes.pendingJob(v, mayName, forecast.apply(v)), include);
    }

    /**
     * An ETA cell: the time from {@code now} to the estimate's eta (or etaLate), as kubectl prints an age
     * ({@link #humanDuration}); the state word when it is not estimated ({@code NEVER_FITS}, {@code UNKNOWN}, …);
     * {@code BEYOND_HORIZON} for an etaLate the late replay did not reach; {@code <none>} without an estimate.
     */
    static String eta(EstimateAnswer e, boolean late, Instant now) {
        if (e == null) {
            return "<none>";
        }
        if (!Estimate.State.ESTIMATED.name().equals(e.state())) {
            return e.state();
        }
        String at = late ? e.etaLate() : e.eta();
        if (at == null) {
            return late ? Estimate.State.BEYOND_HORIZON.name() : e.state();
        }
        return humanDuration(Duration.between(now, Instant.parse(at)));
    }

    /**
     * A duration as kubectl prints ages (k8s.io/apimachinery's {@code duration.HumanDuration}): {@code 45s},
     * {@code 4m30s}, {@code 25m}, {@code 3h20m}, {@code 30h}, {@code 3d4h}, {@code 20d}, {@code 2y10d}, {@code 9y};
     * a negative one (an eta already passed) is {@code 0s}.
     */
    static String humanDuration(Duration d) {
        long seconds = d.getSeconds();
        if (seconds < 0) {
            return "0s";
        }
        if (seconds < 120) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            long s = seconds % 60;
            return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
        }
        if (minutes < 180) {
            return minutes + "m";
        }
        long hours = minutes / 60;
        if (hours < 8) {
            long m = minutes % 60;
            return m == 0 ? hours + "h" : hours + "h" + m + "m";
        }
        if (hours < 48) {
            return hours + "h";
        }
        if (hours < 24 * 8) {
            long h = hours % 24;
            return h == 0 ? hours / 24 + "d" : hours / 24 + "d" + h + "h";
        }
        if (hours < 24 * 365 * 2) {
            return hours / 24 + "d";
        }
        if (hours < 24 * 365 * 8) {
            long dy = (hours / 24) % 365;
            return dy == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + dy + "d";
        }
        return hours / 24 / 365 + "y";
    }

    static ObjectNode quotaGroups(String version, List<GroupView> groups, String policy, String include) {
        return table(version, QUOTA_GROUP_COLUMNS, groups, g -> {
            ArrayNode cells = JSON.arrayNode();
            cells.add(g.name()).add(g.parent() == null ? "<none>" : g.parent()).add(g.pending()).add(g.admitted())
                    .add(usedOfMax(g, Resources.CPU)).add(usedOfMax(g, Resources.MEMORY)).add(policy)
                    .add(pairs(g.min().asQuantities())).add(pairs(g.max().asQuantities()))
                    .add(pairs(g.used().asQuantities()));
            return cells;
        }, g -> VisibilityApi.Shapes.quotaGroup(g, policy), include);
    }

    private static <T> ObjectNode table(String version, List<Column> columns, List<T> rows,
                                        Function<T, ArrayNode> cells, Function<T, ObjectNode> object, String include) {
        ObjectNode table = JSON.objectNode().put("kind", "Table").put("apiVersion", "meta.k8s.io/" + version);
        table.putObject("metadata").put("resourceVersion", "");
        ArrayNode definitions = table.putArray("columnDefinitions");
        for (Column c : columns) {
            ObjectNode d = definitions.addObject().put("name", c.name()).put("type", c.type());
            d.put("format", c.name().equals("Name") ? "name" : "").put("description", c.description())
                    .put("priority", c.wide() ? 1 : 0);
        }
        ArrayNode out = table.putArray("rows");
        for (T row : rows) {
            ObjectNode r = out.addObject();
            r.set("cells", cells.apply(row));
            if (!"None".equals(include)) {
                ObjectNode full = object.apply(row);
                if ("Object".equals(include)) {
                    r.set("object", full);
                } else {
                    ObjectNode partial = r.putObject("object").put("kind", "PartialObjectMetadata")
                            .put("apiVersion", "meta.k8s.io/" + version);
                    partial.set("metadata", full.get("metadata"));
                }
            }
        }
        return table;
    }

    /** {@code cpu=3,memory=1Gi}, or {@code <none>}. */
    private static String pairs(Map<String, String> quantities) {
        if (quantities.isEmpty()) {
            return "<none>";
        }
        StringBuilder out = new StringBuilder();
        new TreeMap<>(quantities).forEach((k, v) -> out.append(out.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return out.toString();
    }

    /** {@code 3/4}; {@code 3/-} where the group sets no max for it. */
    private static String usedOfMax(GroupView g, String resource) {
        String used = g.used().has(resource) ? Resources.format(resource, g.used().get(resource)) : "0";
        String max = g.max().has(resource) ? Resources.format(resource, g.max().get(resource)) : "-";
        return used + "/" + max;
    }
}
