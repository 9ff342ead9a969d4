package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.testing.TrustedRecords;

/**
 * The signature scheme as docs/security.md states it ("How admission records are trusted"): an HMAC-SHA256 over a
 * fixed message, bound to the uid; any change to a value, the uid or the key makes it fail; the key before a rotation
 * is still accepted.
 */
class RecordSignaturesTest {

    private static final RecordFields EVICTED = new RecordFields("root.a", "2026-01-01T00:00:00.123Z", "reclaim",
            "TFJob/team-a/train-1", "2026-01-01T00:10:00Z", "");

    private final RecordSignatures signatures = TrustedRecords.signatures();

    /** The message as the docs define it, built here with plain JDK streams and Mac, not with the code under test. */
    private static String documented(byte[] key, String uid, RecordFields fields) throws Exception {
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(message);
        out.write("kube-queue/record v1".getBytes(StandardCharsets.UTF_8));
        for (String value : List.of(uid, fields.group(), fields.admittedAt(), fields.evicted(), fields.evictedFor(),
                fields.reclaimedAt(), fields.timedOutAt())) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            out.writeInt(bytes.length);
            out.write(bytes);
        }
        if (!fields.admittedRequest().isEmpty()) { // an optional field: key and value, only when present
            for (String part : List.of(Annotations.ADMITTED_REQUEST, fields.admittedRequest())) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                out.writeInt(bytes.length);
                out.write(bytes);
            }
        }
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return "v1." + Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(message.toByteArray()));
    }

    private Map<String, String> annotated(RecordFields fields, String signature) {
        Map<String, String> annotations = new HashMap<>(fields.asAnnotations());
        annotations.put("owner", "alice");
        annotations.put(Annotations.RECORD_SIGNATURE, signature);
        return annotations;
    }

    @Test
    void theSignatureIsTheDocumentedHmac() throws Exception {
        assertEquals(documented(TrustedRecords.KEY, "u1", EVICTED), signatures.sign("u1", EVICTED));
        assertEquals(documented(TrustedRecords.KEY, "", EVICTED), signatures.sign(null, EVICTED), "null signs as empty");
    }

    /** The admitted request (issue 26): signed when present, and a record signed before it existed still verifies. */
    @Test
    void theAdmittedRequestIsSignedWhenPresentAndARecordWithoutItVerifiesAsBefore() throws Exception {
        RecordFields admitted = RecordFields.admission("root.a", "2026-01-01T00:00:00.123Z",
                RecordFields.History.NONE, AdmittedRequests.write(io.kubequeue.scheduler.model.Resources.of("cpu", 4000L)));
        assertEquals("{\"cpu\":\"4\"}", admitted.admittedRequest());
        assertEquals(documented(TrustedRecords.KEY, "u1", admitted), signatures.sign("u1", admitted));
        RecordSignatures.Reading read = signatures.read("u1", annotated(admitted, signatures.sign("u1", admitted)));
        assertEquals(RecordSignatures.Trust.TRUSTED, read.trust());
        assertEquals(io.kubequeue.scheduler.model.Resources.of("cpu", 4000L),
                AdmittedRequests.read(read.trusted().admittedRequest()));

        // a record of the six alone, signed as every record was before the field existed (upgrade)
        String sixOnly = documented(TrustedRecords.KEY, "u1", EVICTED);
        assertEquals(RecordSignatures.Trust.TRUSTED, signatures.read("u1", annotated(EVICTED, sixOnly)).trust());

        // added to such a record, removed from one that has it, or lowered: no longer kube-queue's
        Map<String, String> added = annotated(EVICTED, sixOnly);
        added.put(Annotations.ADMITTED_REQUEST, "{\"cpu\":\"100m\"}");
        assertEquals(RecordSignatures.Trust.MISMATCHED, signatures.read("u1", added).trust());
        Map<String, String> removed = annotated(admitted, signatures.sign("u1", admitted));
        removed.remove(Annotations.ADMITTED_REQUEST);
        assertEquals(RecordSignatures.Trust.MISMATCHED, signatures.read("u1", removed).trust());
        Map<String, String> lowered = annotated(admitted, signatures.sign("u1", admitted));
        lowered.put(Annotations.ADMITTED_REQUEST, "{\"cpu\":\"100m\"}");
        assertEquals(RecordSignatures.Trust.MISMATCHED, signatures.read("u1", lowered).trust());
    }

    @Test
    void anAdmittedRequestReadsBackExactlyAndAValueThatDoesNotReadIsNone() {
        io.kubequeue.scheduler.model.Resources seedLike = io.kubequeue.scheduler.model.Resources.of("cpu", 1500L, "memory",
                16L << 30, "nvidia.com/gpu", 2L, "aliyun.com/gpu-mem", 16L, "ephemeral-storage", 1000L, "limits.cpu", 2500L, "limits.memory", 17L << 30);
        assertEquals(seedLike, AdmittedRequests.read(AdmittedRequests.write(seedLike)));
        assertEquals(seedLike, AdmittedRequests.read(AdmittedRequests.write(
                seedLike.with(io.kubequeue.scheduler.model.Resources.MAX_JOBS, 1))), "the job count is not written");
        assertEquals("", AdmittedRequests.write(io.kubequeue.scheduler.model.Resources.NONE));
        for (String bad : List.of("", "[]", "{\"cpu\":\"lots\"}", "{\"cpu\":\"1e999999999\"}", "{\"cpu\":4}x",
                "{\"cpu\":null}", "{\"cpu\":\"-1\"}", "x".repeat(AdmittedRequests.MAX_CHARS + 1))) {
            assertNull(AdmittedRequests.read(bad), bad.length() > 40 ? "too long" : bad);
        }
    }

    @Test
    void kubeQueuesOwnSetIsTrustedAndReadsBackAsWritten() {
        RecordSignatures.Reading read = signatures.read("u1", annotated(EVICTED, signatures.sign("u1", EVICTED)));
        assertEquals(RecordSignatures.Trust.TRUSTED, read.trust());
        assertEquals(new AdmissionRecord("root.a", "2026-01-01T00:00:00.123Z"), read.record());
        assertEquals(EVICTED, read.trusted());
        assertEquals(new RecordFields.History("2026-01-01T00:10:00Z", ""), read.trusted().history());
    }

    @Test
    void anAbsentAnnotationSignsAsAnEmptyOne() {
        Map<String, String> recordOnly = Map.of(Annotations.QUOTA_GROUP, "root.a", Annotations.ADMITTED_AT, "t");
        String signature = signatures.sign("u1", RecordFields.of(recordOnly));
        Map<String, String> annotations = new HashMap<>(recordOnly);
        annotations.put(Annotations.RECORD_SIGNATURE, signature);
        assertEquals(RecordSignatures.Trust.TRUSTED, signatures.read("u1", annotations).trust());
        annotations.put(Annotations.EVICTED, "");
        assertEquals(RecordSignatures.Trust.TRUSTED, signatures.read("u1", annotations).trust());
    }

    @Test
    void everyChangeToTheSetTheUidOrTheKeyIsCaught() {
        String signature = signatures.sign("u1", EVICTED);
        List<String> values = EVICTED.values();
        for (int i = 0; i < RecordFields.KEYS.size(); i++) {
            Map<String, String> changed = annotated(EVICTED, signature);
            changed.put(RecordFields.KEYS.get(i), values.get(i) + "x");
            RecordSignatures.Reading read = signatures.read("u1", changed);
            assertEquals(RecordSignatures.Trust.MISMATCHED, read.trust(), RecordFields.KEYS.get(i));
            assertNull(read.record());
            assertEquals(RecordFields.NONE, read.trusted());
        }
        assertEquals(RecordSignatures.Trust.MISMATCHED, signatures.read("u2", annotated(EVICTED, signature)).trust(),
                "copied to another job");
        assertEquals(RecordSignatures.Trust.MISMATCHED, TrustedRecords.signatures(new byte[32])
                .read("u1", annotated(EVICTED, signature)).trust(), "another key");
        // a value moved from one annotation to the next makes another message
        RecordFields shifted = new RecordFields("root.a", "", "2026-01-01T00:00:00.123Z", "", "", "");
        assertTrue(!signatures.sign("u1", shifted).equals(signatures.sign("u1",
                new RecordFields("root.a", "2026-01-01T00:00:00.123Z", "", "", "", ""))));
        for (String garbage : List.of("v1.!!!", "v2." + signature.substring(3), "x", signature + "A")) {
            assertEquals(RecordSignatures.Trust.MISMATCHED, signatures.read("u1", annotated(EVICTED, garbage)).trust(),
                    garbage);
        }
    }

    @Test
    void aSetWithoutSignatureIsUnsigned_noSetIsNone() {
        Map<String, String> handWritten = new HashMap<>(EVICTED.asAnnotations());
        RecordSignatures.Reading read = signatures.read("u1", handWritten);
        assertEquals(RecordSignatures.Trust.UNSIGNED, read.trust());
        assertTrue(read.untrustedRecord());
        assertEquals(RecordSignatures.Trust.NONE, signatures.read("u1", Map.of("owner", "alice")).trust());
        assertEquals(RecordSignatures.Trust.NONE, signatures.read("u1", null).trust());
        assertEquals(RecordSignatures.Trust.NONE, signatures.read("u1", Map.of(Annotations.EVICTED, "")).trust(),
                "empty values are no set");
    }

    @Test
    void afterARotationTheKeyBeforeIsStillAcceptedButNeverSigns() {
        byte[] next = "the next record key, 32 bytes!!!".getBytes(StandardCharsets.UTF_8);
        RecordSignatures rotated = new RecordSignatures();
        rotated.useKeys(next, List.of(TrustedRecords.KEY));
        String old = signatures.sign("u1", EVICTED);
        assertEquals(RecordSignatures.Trust.TRUSTED, rotated.read("u1", annotated(EVICTED, old)).trust());
        assertEquals(TrustedRecords.signatures(next).sign("u1", EVICTED), rotated.sign("u1", EVICTED));
    }

    @Test
    void aShortKeyIsRefused_noKeyYetIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> new RecordSignatures().useKeys(new byte[31], List.of()));
        RecordSignatures none = new RecordSignatures();
        assertThrows(IllegalStateException.class, () -> none.read("u1", EVICTED.asAnnotations()));
        assertThrows(IllegalStateException.class, () -> none.sign("u1", EVICTED));
        assertEquals(RecordSignatures.Trust.NONE, none.read("u1", Map.of()).trust(), "nothing to check: no key needed");
    }

    /**
     * A reclaim's preemptor is sealed on its victim (issue 25, found in review: the victim's team read another team's
     * job name in {@code kube-queue/evicted-for}): opaque to them, opened by kube-queue's key only, for that job only.
     */
    @Test
    void aSealedPreemptorOpensWithTheKeyForThatJobOnly() {
        String sealed = signatures.seal("u1", "TFJob/team-a/secret-project");
        assertTrue(sealed.startsWith("v1.") && !sealed.contains("team-a") && !sealed.contains("secret"), sealed);
        assertEquals("TFJob/team-a/secret-project", signatures.open("u1", sealed));
        assertNotEquals(sealed, signatures.seal("u1", "TFJob/team-a/secret-project"), "a fresh nonce each time");
        assertNull(signatures.open("u2", sealed), "bound to the victim's uid: not copied to another job");
        assertNull(TrustedRecords.signatures("another key of 32 bytes, not ours".getBytes(StandardCharsets.UTF_8))
                .open("u1", sealed), "another key");
        String tampered = sealed.substring(0, sealed.length() - 2) + (sealed.endsWith("A") ? "BB" : "AA");
        assertNull(signatures.open("u1", tampered));
        assertNull(signatures.open("u1", "TFJob/team-a/train-1"), "a plain name is no sealed value");
        assertNull(signatures.open("u1", "v1.%%%"));
        assertEquals("", signatures.seal("u1", ""));
        assertEquals("", signatures.open("u1", ""));
        RecordSignatures rotated = new RecordSignatures();
        rotated.useKeys("the next record key, 32 bytes!!!".getBytes(StandardCharsets.UTF_8), List.of(TrustedRecords.KEY));
        assertEquals("TFJob/team-a/secret-project", rotated.open("u1", sealed), "the key before a rotation opens it");
    }
}
