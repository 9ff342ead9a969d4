package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ApiServerTargetTest {

    @Test
    void saysWhereTheApiServerCameFrom() {
        assertEquals("API server https://10.0.0.1:6443/ (kubeconfig context dev)",
                ApiServerTarget.describe("https://10.0.0.1:6443/", "dev", false));
        assertEquals("API server https://kubernetes.default.svc/ (this pod's ServiceAccount)",
                ApiServerTarget.describe("https://kubernetes.default.svc/", null, true));
        assertEquals("API server http://127.0.0.1:8001/ (KUBERNETES_MASTER or kubernetes.master)",
                ApiServerTarget.describe("http://127.0.0.1:8001/", null, false));
    }

    @Test
    void outsideAPodWithoutKubeconfigItSaysHowToPointAtACluster() {
        assertEquals("API server https://kubernetes.default.svc/: no kubeconfig was found and this is not a pod, so"
                + " this in-cluster address cannot be reached. Fix: set KUBECONFIG (or ~/.kube/config), or"
                + " KUBERNETES_MASTER", ApiServerTarget.describe("https://kubernetes.default.svc/", null, false));
    }
}
