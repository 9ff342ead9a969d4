package io.kubequeue.demo;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.kubequeue.job.declared.QueuedKind;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import jakarta.inject.Inject;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.kubequeue.api.QueueApi;
import io.kubequeue.operator.Manifests;
import io.kubequeue.quota.elastic.ElasticQuotaTree;
import io.quarkus.runtime.QuarkusApplication;

/**
 * Applies the example's manifests to the embedded API server, plays the training operator and the Job
 * controller ({@link JobSimulator}), and prints a {@code kubectl get tfjob}-style table each time a job's
 * state changes. Exits 0 once every job has finished, 1 on timeout.
 */
public class DemoApp implements QuarkusApplication {

    static DemoOptions options;

    @Inject
    KubernetesClient client;

    @Inject
    JobSimulator simulator;

    @Inject
    Operator operator;

    @Inject
    QueueApi api;

    @Override
    public int run(String... args) throws Exception {
        // QOSDK starts the operator by itself only in applications without their own QuarkusApplication
        operator.start();
        List<HasMetadata> objects;
        try {
            objects = load();
        } catch (IllegalArgumentException e) {
            System.err.println("demo: " + e.getMessage());
            return 2;
        }
        objects.sort(Comparator.comparingInt(DemoApp::applyOrder));
        System.out.printf("%nkube-queue demo: QueueGroupPlugin=%s, applying %d objects from %s%n%n", options.plugin(),
                objects.size(), options.dir() != null ? options.dir() : "the seed's " + options.example() + " example");
        for (HasMetadata o : objects) {
            if (clusterScoped(o)) {
                client.resource(o).create();
                if (o instanceof QueuedKind declaration) {
                    awaitInForce(declaration);
                }
                continue;
            }
            if (o.getMetadata().getNamespace() == null) {
                // as kubectl apply would, except the tree, which kube-queue reads from kube-system only
                o.getMetadata().setNamespace(o instanceof ElasticQuotaTree ? "kube-system" : "default");
            }
            client.resource(o).inNamespace(o.getMetadata().getNamespace()).create();
            if (isJob(o)) {
                // one after the other, as kubectl applies a file: kube-queue queues jobs in the order it sees them
                Thread.sleep(200);
            }
        }
        if (objects.stream().noneMatch(DemoApp::isJob)) {
            System.out.println("no job (TFJob, PyTorchJob, MPIJob, Workflow, Job, or a declared kind) among the"
                    + " manifests: nothing to queue");
            return 1;
        }
        Instant start = Instant.now();
        Instant deadline = start.plus(options.timeout());
        String lastTable = "";
        while (Instant.now().isBefore(deadline)) {
            List<JobSimulator.Row> rows = simulator.step(options.speed());
            String table = table(rows);
            if (!stateOnly(table).equals(stateOnly(lastTable))) {
                System.out.println(table);
                lastTable = table;
                explainWaiting(rows);
            }
            if (!rows.isEmpty() && rows.stream().allMatch(JobSimulator.Row::finished)) {
                System.out.printf("all %d jobs finished in %.1f s%n", rows.size(),
                        Duration.between(start, Instant.now()).toMillis() / 1000.0);
                return 0;
            }
            Thread.sleep(100);
        }
        System.out.println("timed out after " + options.timeout().toSeconds() + " s; unfinished: "
                + simulator.step(options.speed()).stream().filter(r -> !r.finished())
                        .map(r -> r.name() + " (" + r.state() + ")").toList()
                + "; kube-queue's Warning events above say why a job stays queued");
        return 1;
    }

    /**
     * For each job that waits, what the read API says about it (the same answer as
     * {@code GET /api/v1/jobs/{namespace}/{name}}, asked in-process), once per state change of the table.
     */
    private void explainWaiting(List<JobSimulator.Row> rows) {
        for (JobSimulator.Row row : rows) {
            if (row.finished()) {
                continue;
            }
            try {
                QueueApi.Job job = api.job(row.namespace(), row.name(), row.kind(), null); // no headers: the demo reads with authentication off
                if (!"ADMITTED".equals(job.state())) {
                    System.out.printf("  why %s waits (GET /api/v1/jobs/%s/%s): position %d in %s; %s%n%n", row.name(),
                            row.namespace(), row.name(), job.position(), job.group(), job.reason());
                }
            } catch (jakarta.ws.rs.NotFoundException e) {
                // not queued (yet): nothing to explain
            }
        }
    }

    private List<HasMetadata> load() throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        if (options.dir() != null) {
            List<Path> files;
            try (Stream<Path> listing = Files.list(options.dir())) {
                files = listing.filter(p -> p.toString().matches(".*\\.(ya?ml|json)$")).sorted().toList();
            }
            for (Path file : files) {
                try (InputStream in = Files.newInputStream(file)) {
                    objects.addAll(Manifests.read(client, in));
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(file + " is not a Kubernetes manifest kube-queue can read: "
                            + firstLine(e.getMessage()), e);
                }
            }
        } else {
            for (String file : List.of(options.example().equals("elasticquota") ? "elasticquotatree.yaml" : "resourcequota.yaml",
                    "tfjobs.yaml")) {
                try (InputStream in = DemoApp.class.getResourceAsStream("/examples/" + options.example() + "/" + file)) {
                    if (in == null) {
                        throw new UncheckedIOException(new IOException("example file missing: " + file));
                    }
                    objects.addAll(Manifests.read(client, in));
                }
            }
        }
        return objects;
    }

    /**
     * CRDs first, then the kinds declared on them (docs/kinds.md), then quota objects, then jobs, as a user following
     * the seed and docs/kinds.md would apply them.
     */
    private static int applyOrder(HasMetadata o) {
        if (o instanceof CustomResourceDefinition) {
            return -2;
        }
        if (o instanceof QueuedKind) {
            return -1;
        }
        if (o instanceof ElasticQuotaTree || o instanceof ResourceQuota) {
            return 0;
        }
        return isJob(o) ? 2 : 1;
    }

    private static boolean clusterScoped(HasMetadata o) {
        return o instanceof CustomResourceDefinition || o instanceof QueuedKind;
    }

    /** A job: a built-in kind's, or an object of a CRD (a declared kind's, once its QueuedKind is in force). */
    private static boolean isJob(HasMetadata o) {
        return o instanceof CustomResource<?, ?> && !(o instanceof ElasticQuotaTree) && !(o instanceof QueuedKind)
                || o instanceof Job || o instanceof GenericKubernetesResource;
    }

    /** Waits (up to 20 s) until kube-queue puts the declaration in force, and prints its Ready condition. */
    private void awaitInForce(QueuedKind declaration) throws InterruptedException {
        String name = declaration.getMetadata().getName();
        Instant until = Instant.now().plusSeconds(20);
        String ready = "not read yet";
        while (Instant.now().isBefore(until)) {
            QueuedKind now = client.resources(QueuedKind.class).withName(name).get();
            if (now != null && now.getStatus() != null) {
                var condition = now.getStatus().conditions.stream().filter(c -> "Ready".equals(c.getType()))
                        .findFirst();
                if (condition.isPresent()) {
                    ready = condition.get().getStatus() + ": " + condition.get().getMessage();
                    if ("True".equals(condition.get().getStatus())) {
                        break;
                    }
                }
            }
            Thread.sleep(100);
        }
        System.out.printf("QueuedKind %s: Ready %s%n", name, ready);
    }

    private static String table(List<JobSimulator.Row> rows) {
        boolean mixed = rows.stream().map(JobSimulator.Row::kind).distinct().count() > 1;
        boolean namespaced = rows.stream().map(JobSimulator.Row::namespace).distinct().count() > 1;
        Map<String, String[]> lines = new LinkedHashMap<>();
        int nameWidth = 4;
        int stateWidth = 5;
        for (JobSimulator.Row row : rows) {
            String name = (namespaced ? row.namespace() + "/" : "")
                    + (mixed ? row.kind().toLowerCase() + "/" : "") + row.name();
            nameWidth = Math.max(nameWidth, name.length());
            stateWidth = Math.max(stateWidth, row.state().length());
            lines.put(name, new String[] {row.state(), age(row.age())});
        }
        String format = "%-" + (nameWidth + 3) + "s%-" + (stateWidth + 3) + "s%s%n";
        StringBuilder sb = new StringBuilder(String.format(format, "NAME", "STATE", "AGE"));
        lines.forEach((name, cols) -> sb.append(String.format(format, name, cols[0], cols[1])));
        return sb.toString();
    }

    /** The table without its AGE column, to print only when a state changes. */
    private static String stateOnly(String table) {
        return table.replaceAll("\\S+\\n", "\n");
    }

    private static String firstLine(String message) {
        return message == null ? "unreadable" : message.lines().findFirst().orElse(message);
    }

    private static String age(Duration d) {
        long s = d.toSeconds();
        return s < 120 ? s + "s" : (s / 60) + "m" + (s % 60) + "s";
    }
}
