package io.kubequeue.job;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.job.batch.BatchJobKind;

/**
 * Measures what an informer cache of batch Jobs retains on the heap, whole (fabric8's default store) and pruned
 * ({@link PruningItemStore}), for the realistic Job of src/test/resources/jobs/realistic-suspended-job.yaml
 * (managedFields, kubectl's last-applied annotation, an init container and a container with image, command, env,
 * volumes and probes, a Suspended condition). Each copy is parsed from its own JSON, with its own name and uid, as an
 * informer parses what the API server sends, and kept in a map keyed {@code namespace/name} as the stores do; the
 * heap in use after a full GC is compared before and after. A plain program, not a test:
 *
 * <pre>
 * ./mvnw -q -o test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -XX:+UseSerialGC -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     io.kubequeue.job.JobCacheFootprint [jobs, default 15000] [both|whole|pruned]
 * </pre>
 *
 * With {@code -Xmx128m} and {@code whole}, 15,000 Jobs do not fit; with {@code pruned} they do.
 */
public final class JobCacheFootprint {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private JobCacheFootprint() {
    }

    /**
     * Prints, per mode, the bytes retained per cached Job, the MiB for all of them, and the JSON size of one.
     *
     * @param args the number of Jobs (default 15,000) and the mode: {@code both} (default), {@code whole},
     *             {@code pruned}
     */
    public static void main(String[] args) throws IOException {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 15_000;
        String mode = args.length > 1 ? args[1] : "both";
        Job sample;
        try (InputStream in = JobCacheFootprint.class.getResourceAsStream("/jobs/realistic-suspended-job.yaml")) {
            sample = JSON.unmarshal(new String(in.readAllBytes(), StandardCharsets.UTF_8), Job.class);
        }
        String json = JSON.asJson(sample);
        BatchJobKind kind = new BatchJobKind();
        System.out.printf("one Job: %,d B of JSON whole, %,d B pruned%n", json.length(),
                JSON.asJson(kind.pruned(sample)).length());
        if (!mode.equals("pruned")) {
            measure("whole ", jobs, json, sample, UnaryOperator.identity());
        }
        if (!mode.equals("whole")) {
            measure("pruned", jobs, json, sample, kind::pruned);
        }
    }

    private static void measure(String label, int jobs, String json, Job sample, UnaryOperator<Job> keep) {
        String name = sample.getMetadata().getName();
        String uid = sample.getMetadata().getUid();
        long before = usedAfterGc();
        Map<String, Job> store = new ConcurrentHashMap<>();
        for (int i = 0; i < jobs; i++) {
            String copy = json.replace(uid, UUID.randomUUID().toString()).replace(name, name + "-" + i);
            Job job = keep.apply(JSON.unmarshal(copy, Job.class));
            store.put(Cache.metaNamespaceKeyFunc(job), job);
        }
        long after = usedAfterGc();
        Reference.reachabilityFence(store);
        long perJob = (after - before) / jobs;
        System.out.printf("%s: %,d B per cached Job; %,d Jobs: %.1f MiB%n", label, perJob, jobs,
                (after - before) / (1024.0 * 1024.0));
    }

    private static long usedAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) { // until a collection frees nothing more
            System.gc();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long now = runtime.totalMemory() - runtime.freeMemory();
            if (now >= used) {
                return used;
            }
            used = now;
        }
        return used;
    }
}
