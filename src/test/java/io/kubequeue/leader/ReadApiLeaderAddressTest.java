package io.kubequeue.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;

/**
 * The address a follower forwards callers' tokens to: only an http(s) host and port the Lease's current holder
 * published, never a path, query, user or another scheme, and never an address published by an earlier holder.
 */
class ReadApiLeaderAddressTest {

    @Test
    void onlyAPlainHttpHostAndPortIsAnAddress() {
        assertEquals(Optional.of(URI.create("http://10.1.2.3:8080")), ReadApiLeaderAddress.parse("http://10.1.2.3:8080"));
        assertEquals(Optional.of(URI.create("http://10.1.2.3:8080")), ReadApiLeaderAddress.parse("HTTP://10.1.2.3:8080/"));
        assertEquals(Optional.of(URI.create("https://kq.example:8443")), ReadApiLeaderAddress.parse("https://kq.example:8443"));
        assertEquals(Optional.of(URI.create("http://[fd00::1]:8080")), ReadApiLeaderAddress.parse("http://[fd00::1]:8080"));
        for (String bad : List.of("", "10.1.2.3:8080", "http://", "http:///x", "http://user:pw@10.1.2.3:8080",
                "http://10.1.2.3:8080/api", "http://10.1.2.3:8080?x=1", "http://10.1.2.3:8080#x", "file:///etc/passwd",
                "ftp://10.1.2.3", "javascript:alert(1)", "http://under_score:80", "http://10.1.2.3:8080 ",
                "http://" + "a".repeat(300) + ":80")) {
            assertEquals(Optional.empty(), ReadApiLeaderAddress.parse(bad), bad);
        }
        assertEquals(Optional.empty(), ReadApiLeaderAddress.parse(null));
    }

    @Test
    void ownAddressIsTheSettingElseThePodIpAndHttpPort() {
        assertEquals(Optional.of(URI.create("http://127.0.0.1:1234")),
                ReadApiLeaderAddress.ownAddress(Optional.of(" http://127.0.0.1:1234 "), Optional.of("10.0.0.9"), 8080));
        assertEquals(Optional.of(URI.create("http://10.0.0.9:8080")),
                ReadApiLeaderAddress.ownAddress(Optional.empty(), Optional.of("10.0.0.9"), 8080));
        assertEquals(Optional.of(URI.create("http://[fd00::9]:8080")),
                ReadApiLeaderAddress.ownAddress(Optional.of(""), Optional.of("fd00::9"), 8080));
        assertEquals(Optional.empty(), ReadApiLeaderAddress.ownAddress(Optional.empty(), Optional.of(" "), 8080));
        assertEquals(Optional.empty(), ReadApiLeaderAddress.ownAddress(Optional.empty(), Optional.empty(), 8080));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReadApiLeaderAddress.ownAddress(Optional.of("http://10.0.0.9:8080/api/v1"), Optional.empty(), 8080));
        assertTrue(e.getMessage().startsWith("kube-queue.read-api.advertised-url: must be http:// or https://"),
                e.getMessage());
        assertTrue(e.getMessage().contains("got 'http://10.0.0.9:8080/api/v1'"), e.getMessage());
    }

    @Test
    void theLeaseGivesAnAddressOnlyForItsCurrentHolder() {
        String name = "kube-queue/kube-queue-leader";
        ReadApiLeaderAddress.Lookup found = ReadApiLeaderAddress.lookup(lease("a", Map.of(
                ReadApiLeaderAddress.HOLDER, "a", ReadApiLeaderAddress.URL, "http://10.0.0.1:8080")), name);
        assertEquals(Optional.of(new ReadApiLeaderAddress.Leader("a", URI.create("http://10.0.0.1:8080"))), found.leader());

        assertUnknown(ReadApiLeaderAddress.lookup(null, name), "no Lease kube-queue/kube-queue-leader yet");
        assertUnknown(ReadApiLeaderAddress.lookup(lease(null, Map.of()), name), "names no holder");
        assertUnknown(ReadApiLeaderAddress.lookup(lease("", Map.of()), name), "names no holder");
        // b took the Lease over and has not written its own address yet: a's is not b's
        assertUnknown(ReadApiLeaderAddress.lookup(lease("b", Map.of(ReadApiLeaderAddress.HOLDER, "a",
                ReadApiLeaderAddress.URL, "http://10.0.0.1:8080")), name), "b holds Lease " + name
                + " but has not published");
        assertUnknown(ReadApiLeaderAddress.lookup(lease("a", Map.of()), name), "has not published");
        assertUnknown(ReadApiLeaderAddress.lookup(lease("a", Map.of(ReadApiLeaderAddress.HOLDER, "a")), name),
                "holds no valid read API address for a");
        assertUnknown(ReadApiLeaderAddress.lookup(lease("a", Map.of(ReadApiLeaderAddress.HOLDER, "a",
                ReadApiLeaderAddress.URL, "http://10.0.0.1:8080/steal")), name), "holds no valid read API address");
    }

    /** The leader's HTTPS port (the visibility API's forward) comes with its address, if it is a port at all. */
    @Test
    void theLeaseGivesTheLeadersHttpsPortWhenItPublishedOne() {
        String name = "kube-queue/kube-queue-leader";
        assertEquals(Optional.of(new ReadApiLeaderAddress.Leader("a", URI.create("http://10.0.0.1:8080"), 8443)),
                ReadApiLeaderAddress.lookup(lease("a", Map.of(ReadApiLeaderAddress.HOLDER, "a", ReadApiLeaderAddress.URL,
                        "http://10.0.0.1:8080", ReadApiLeaderAddress.SERVING_PORT, "8443")), name).leader());
        for (String bad : new String[]{"0", "65536", "-1", "84 43", "999999999999", "0x20fb", ""}) {
            assertEquals(0, ReadApiLeaderAddress.port(bad), bad);
        }
        assertEquals(1, ReadApiLeaderAddress.port("1"));
        assertEquals(65_535, ReadApiLeaderAddress.port("65535"));
    }

    private static void assertUnknown(ReadApiLeaderAddress.Lookup lookup, String why) {
        assertEquals(Optional.empty(), lookup.leader());
        assertTrue(lookup.why().contains(why), lookup.why());
    }

    private static Lease lease(String holder, Map<String, String> annotations) {
        return new LeaseBuilder().withNewMetadata().withName("kube-queue-leader").withNamespace("kube-queue")
                .withAnnotations(annotations.isEmpty() ? null : annotations).endMetadata().withNewSpec()
                .withHolderIdentity(holder).withLeaseDurationSeconds(15).withRenewTime(ZonedDateTime.now()).endSpec()
                .build();
    }
}
