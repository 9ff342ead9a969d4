package io.kubequeue.testing;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpResponse;

/**
 * Hostile objects as a tenant can write them to a real API server (issue 25), sent as raw JSON so that no client-side
 * bound stands in the way: a Workflow nested {@code depth} levels (Argo's CRD keeps unknown fields; the API server
 * allows 10,000), and jobs whose quantities a real server's CRD validation lets through ({@code 1e999999999}).
 */
public final class Hostile {

    /** A quantity that fabric8's arithmetic cannot turn into a number: 10^999,999,999. */
    public static final String HUGE_QUANTITY = "1e999999999";

    private Hostile() {
    }

    /** {@code {"a":{"a":…1…}}}, {@code depth} objects deep. */
    public static String nested(int depth) {
        return "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
    }

    /**
     * A suspended Workflow (queued by kube-queue) whose spec holds {@link #nested} at {@code depth}.
     *
     * @param cpu its {@code kube-queue/min-resources} cpu, e.g. {@code 1} or {@link #HUGE_QUANTITY}
     */
    public static String workflow(String namespace, String name, int depth, String cpu) {
        return "{\"apiVersion\":\"argoproj.io/v1alpha1\",\"kind\":\"Workflow\",\"metadata\":{\"name\":\"" + name
                + "\",\"namespace\":\"" + namespace + "\",\"annotations\":{\"kube-queue/min-resources\":\"cpu: "
                + cpu + "\"}},\"spec\":{\"suspend\":true,\"entrypoint\":\"main\",\"templates\":[{\"name\":\"main\","
                + "\"deep\":" + nested(depth) + "}]}}";
    }

    /** A suspended TFJob whose one worker asks for {@code cpu}. */
    public static String tfJob(String namespace, String name, String cpu) {
        return "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"TFJob\",\"metadata\":{\"name\":\"" + name
                + "\",\"namespace\":\"" + namespace + "\"},\"spec\":{\"runPolicy\":{\"suspend\":true},"
                + "\"tfReplicaSpecs\":{\"Worker\":{\"replicas\":1,\"template\":{\"spec\":{\"containers\":[{\"name\":"
                + "\"w\",\"image\":\"busybox\",\"resources\":{\"requests\":{\"cpu\":\"" + cpu + "\"}}}]}}}}}}";
    }

    /** POSTs raw JSON to {@code path} (e.g. {@code /apis/argoproj.io/v1alpha1/namespaces/team-a/workflows}). */
    public static void post(KubernetesClient client, String path, String json) {
        String url = client.getMasterUrl().toString().replaceAll("/$", "") + path;
        try {
            HttpResponse<String> answer = client.getHttpClient().sendAsync(client.getHttpClient()
                    .newHttpRequestBuilder().uri(url).post("application/json", json).build(), String.class)
                    .get(30, TimeUnit.SECONDS);
            if (answer.code() >= 300) {
                throw new IllegalStateException("POST " + path + ": " + answer.code() + " " + answer.body());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("POST " + path + " not answered: " + e, e);
        }
    }

    /** POSTs a Workflow. */
    public static void createWorkflow(KubernetesClient client, String namespace, String json) {
        post(client, "/apis/argoproj.io/v1alpha1/namespaces/" + namespace + "/workflows", json);
    }

    /** POSTs a TFJob. */
    public static void createTfJob(KubernetesClient client, String namespace, String json) {
        post(client, "/apis/kubeflow.org/v1/namespaces/" + namespace + "/tfjobs", json);
    }
}
