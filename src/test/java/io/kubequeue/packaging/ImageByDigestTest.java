package io.kubequeue.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Issue 29, item 6: a release's OLM bundle names its image by digest; the reference is rewritten thus. */
class ImageByDigestTest {

    private static final String DIGEST = "sha256:" + "0123456789abcdef".repeat(4);

    @Test
    void theTagGivesWayToTheDigestAndARegistryPortStays() {
        assertEquals("ghcr.io/kube-queue/kube-queue@" + DIGEST,
                ReleaseArtifacts.byDigest("ghcr.io/kube-queue/kube-queue:0.1.0", DIGEST));
        assertEquals("registry.local:5000/kube-queue@" + DIGEST,
                ReleaseArtifacts.byDigest("registry.local:5000/kube-queue", DIGEST), "a port is not a tag");
        assertEquals("registry.local:5000/kube-queue@" + DIGEST,
                ReleaseArtifacts.byDigest("registry.local:5000/kube-queue:1.2@sha256:" + "f".repeat(64), DIGEST),
                "an earlier digest is replaced");
    }

    @Test
    void anythingButASha256DigestIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ReleaseArtifacts.byDigest("a/b:1", "sha256:abc"));
        assertThrows(IllegalArgumentException.class, () -> ReleaseArtifacts.byDigest("a/b:1", "latest"));
        assertThrows(IllegalArgumentException.class,
                () -> ReleaseArtifacts.byDigest("a/b:1", "sha256:" + "0123456789ABCDEF".repeat(4)));
    }
}
