package io.kubequeue.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What one API write is, as the embedded server counts it: read from the request's method, path and body alone
 * ({@link #of}, a pure function), so that kube-queue's writes per admission can be split into the admission
 * patch itself and everything else it sends (docs/performance.md, "Writes per admission").
 */
enum WriteKind {
    /** A PATCH of a job that removes its suspend mark ({@code spec.suspend} or {@code spec.runPolicy.suspend} set false, or the annotation {@code scheduling.x-k8s.io/suspend} removed). */
    ADMISSION("admission patches"),
    /** Any other PATCH or PUT of a job object: evictions (the mark set again), record edits. */
    JOB_PATCH("other job patches"),
    /** A POST of a job (the harness's submissions). */
    JOB_CREATE("job creates"),
    /** A POST, PUT, PATCH or DELETE of an Event, {@code core/v1} or {@code events.k8s.io/v1}. */
    EVENT("events"),
    /** A write of a status subresource ({@code …/status}): a job's, an ElasticQuotaTree's, a ResourceQuota's. */
    STATUS("status writes"),
    /** A write of a {@code coordination.k8s.io} object (leader election's Lease). */
    LEASE("leases"),
    /** Everything else: namespaces, PriorityClasses, the quota tree itself, deletes of jobs. */
    OTHER("other");

    /** The kinds as the report's columns, in this order. */
    static final List<WriteKind> ALL = List.of(values());

    /** The request methods that write. */
    static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

    /** The job kinds kube-queue queues, as {@code group/plural} (docs/behaviour.md). */
    private static final Set<String> JOBS = Set.of("batch/jobs", "kubeflow.org/tfjobs", "kubeflow.org/pytorchjobs",
            "kubeflow.org/mpijobs", "argoproj.io/workflows");
    private static final Set<String> SUSPEND_POINTERS = Set.of("/spec/suspend", "/spec/runPolicy/suspend");
    private static final String SUSPEND_ANNOTATION_POINTER = "/metadata/annotations/scheduling.x-k8s.io~1suspend";
    private static final ObjectMapper JSON = new ObjectMapper();

    final String label;

    WriteKind(String label) {
        this.label = label;
    }

    /**
     * The kind of one write.
     *
     * @param method {@code POST}, {@code PUT}, {@code PATCH} or {@code DELETE} (a read is {@link #OTHER})
     * @param path   the request's path, query string and all, e.g. {@code /apis/batch/v1/namespaces/a/jobs/j?fieldManager=x}
     * @param body   the request's body (JSON), or null; read only for a PATCH of a job
     */
    static WriteKind of(String method, String path, String body) {
        Target t = Target.of(path);
        if (t == null || !WRITES.contains(method)) {
            return OTHER;
        }
        if (t.plural.equals("events") && (t.group.isEmpty() || t.group.equals("events.k8s.io"))) {
            return EVENT;
        }
        if (t.group.equals("coordination.k8s.io")) {
            return LEASE;
        }
        if ("status".equals(t.subresource)) {
            return STATUS;
        }
        if (!JOBS.contains(t.group + "/" + t.plural)) {
            return OTHER;
        }
        if (t.name == null) {
            return method.equals("POST") ? JOB_CREATE : OTHER;
        }
        if (t.subresource != null || method.equals("DELETE") || method.equals("POST")) {
            return OTHER;
        }
        return method.equals("PATCH") && unsuspends(body) ? ADMISSION : JOB_PATCH;
    }

    /**
     * Whether a patch body removes a suspend mark: a JSON Patch (an array) with a {@code replace} or {@code add} of
     * {@code false} at a suspend pointer, or a {@code remove} of the suspend annotation; a merge patch (an object)
     * with {@code spec.suspend} or {@code spec.runPolicy.suspend} false, or the annotation set to null. A body that
     * is not JSON removes nothing.
     */
    static boolean unsuspends(String body) {
        if (body == null || body.isBlank()) {
            return false;
        }
        JsonNode patch;
        try {
            patch = JSON.readTree(body);
        } catch (java.io.IOException e) {
            return false;
        }
        if (patch.isArray()) {
            for (JsonNode op : patch) {
                String name = op.path("op").asText();
                String pointer = op.path("path").asText();
                if ((name.equals("replace") || name.equals("add")) && SUSPEND_POINTERS.contains(pointer)
                        && op.path("value").isBoolean() && !op.path("value").booleanValue()) {
                    return true;
                }
                if (name.equals("remove") && pointer.equals(SUSPEND_ANNOTATION_POINTER)) {
                    return true;
                }
            }
            return false;
        }
        JsonNode spec = patch.path("spec");
        JsonNode annotations = patch.path("metadata").path("annotations");
        return isFalse(spec.path("suspend")) || isFalse(spec.path("runPolicy").path("suspend"))
                || (annotations.has("scheduling.x-k8s.io/suspend") && annotations.get("scheduling.x-k8s.io/suspend").isNull());
    }

    private static boolean isFalse(JsonNode node) {
        return node.isBoolean() && !node.booleanValue();
    }

    /**
     * The object a REST path names: {@code /api/v1/…} (group "") or {@code /apis/<group>/<version>/…}, then
     * {@code namespaces/<ns>/<plural>[/<name>[/<subresource>]]} or {@code <plural>[/<name>[/<subresource>]]}.
     */
    private record Target(String group, String plural, String name, String subresource) {

        /** Null for a path that names no resource ({@code /version}, discovery). */
        static Target of(String path) {
            int query = path.indexOf('?');
            String[] parts = Arrays.stream((query < 0 ? path : path.substring(0, query)).split("/"))
                    .filter(s -> !s.isEmpty()).toArray(String[]::new);
            int rest;
            String group;
            if (parts.length >= 3 && parts[0].equals("api")) {
                group = "";
                rest = 2;
            } else if (parts.length >= 4 && parts[0].equals("apis")) {
                group = parts[1];
                rest = 3;
            } else {
                return null;
            }
            if (parts.length - rest >= 3 && parts[rest].equals("namespaces")) {
                rest += 2; // a namespaced resource; "namespaces/<ns>" alone is the Namespace itself
            }
            return new Target(group, parts[rest], part(parts, rest + 1), part(parts, rest + 2));
        }

        private static String part(String[] parts, int i) {
            return i < parts.length ? parts[i] : null;
        }
    }
}
