package io.kubequeue.job;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import jakarta.inject.Singleton;

import io.kubequeue.scheduler.model.AdmissionRecord;

/**
 * Signs and checks what kube-queue writes on a job: the six annotations of {@link RecordFields}, bound to the job's
 * {@code metadata.uid}, with an HMAC-SHA256 (the JDK's {@code javax.crypto}) keyed by a Secret kube-queue owns (loaded
 * at start-up, {@link io.kubequeue.operator.RecordKeySecret}). A set that does not carry a signature made with that
 * key over exactly these values and this uid was not written by kube-queue, and is read as absent (docs/security.md,
 * "How admission records are trusted").
 *
 * <p>The signature, annotation {@link Annotations#RECORD_SIGNATURE}, is {@code v1.} and the unpadded base64url of
 * HMAC-SHA256(key, message), where the message is {@code kube-queue/record v1} followed by the uid and the six values
 * in {@link RecordFields#KEYS} order, each as its UTF-8 length (4 bytes, big-endian) and its UTF-8 bytes, then each
 * optional field that holds a value (after {@link RecordFields#ALWAYS_SIGNED}; e.g. the admitted request) as its key
 * and its value, encoded alike: no two sets share a message, and a record signed before an optional field existed
 * verifies unchanged. A null uid signs as {@code ""}. Checking costs one HMAC per accepted key over the six values
 * (the API server bounds a job's annotations to 256 KiB), compared in constant time.
 *
 * <p>Thread-safe: the keys are set once, before any job is read; each thread keeps its own {@link Mac}s.
 */
@Singleton
public class RecordSignatures {

    /** How the signed set a job carries reads. */
    public enum Trust {
        /** The job carries none of the six, or only empty ones: nothing to trust. */
        NONE,
        /** Signed by kube-queue, with a key it holds, over these values and this uid. */
        TRUSTED,
        /** It carries some of the six but no signature (written by hand, or by a kube-queue before signing). */
        UNSIGNED,
        /** Its signature is not kube-queue's for these values and this uid (forged, copied, edited, another key). */
        MISMATCHED
    }

    /**
     * What a job's signed set reads as.
     *
     * @param trust  how it reads
     * @param fields the values as found (trusted or not)
     */
    public record Reading(Trust trust, RecordFields fields) {

        /** Whether it carries values that kube-queue did not write, read as absent. */
        public boolean untrusted() {
            return trust == Trust.UNSIGNED || trust == Trust.MISMATCHED;
        }

        /** The values kube-queue stands by: all six if trusted, else none. */
        public RecordFields trusted() {
            return trust == Trust.TRUSTED ? fields : RecordFields.NONE;
        }

        /** The admission record kube-queue wrote, or null (none, or one it did not write). */
        public AdmissionRecord record() {
            RecordFields t = trusted();
            return t.group().isEmpty() ? null : new AdmissionRecord(t.group(), t.admittedAt());
        }

        /** Whether it carries an admission record that kube-queue did not write. */
        public boolean untrustedRecord() {
            return untrusted() && !fields.group().isEmpty();
        }
    }

    static final String ALGORITHM = "HmacSHA256";
    private static final String VERSION = "v1.";
    private static final byte[] DOMAIN = "kube-queue/record v1".getBytes(StandardCharsets.UTF_8);
    /** The shortest key accepted, in bytes: the HMAC-SHA256 output size (RFC 2104 §3). */
    public static final int MIN_KEY_BYTES = 32;

    private static final String SEAL = "AES/GCM/NoPadding";
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    /** A sealed value longer than this is not opened (a preemptor's reference is under 700 characters sealed). */
    private static final int MAX_SEALED_CHARS = 1024;
    private static final byte[] SEALING_LABEL = "kube-queue/evicted-for v1".getBytes(StandardCharsets.UTF_8);
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();
    private final Map<SecretKeySpec, SecretKeySpec> sealingKeys = new java.util.concurrent.ConcurrentHashMap<>();

    private volatile List<SecretKeySpec> keys = List.of();
    private final ThreadLocal<Map<SecretKeySpec, Mac>> macs = ThreadLocal.withInitial(HashMap::new);

    /** A bean without a key yet: {@link #useKeys} sets it at start-up. */
    public RecordSignatures() {
    }

    /**
     * Signs with {@code signing} from now on, and accepts signatures of it and of each of {@code alsoAccepted} (the
     * key before a rotation).
     *
     * @throws IllegalArgumentException if a key is shorter than {@value #MIN_KEY_BYTES} bytes
     */
    public void useKeys(byte[] signing, List<byte[]> alsoAccepted) {
        List<SecretKeySpec> all = new ArrayList<>();
        all.add(spec(signing));
        alsoAccepted.forEach(k -> all.add(spec(k)));
        keys = List.copyOf(all);
    }

    private static SecretKeySpec spec(byte[] key) {
        if (key == null || key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("a record key must hold at least " + MIN_KEY_BYTES + " bytes, not "
                    + (key == null ? 0 : key.length));
        }
        return new SecretKeySpec(key.clone(), ALGORITHM);
    }

    /** Whether a key is set (start-up step "record key" has run). */
    public boolean hasKey() {
        return !keys.isEmpty();
    }

    /**
     * The signature of these values on the job of this uid, with the signing key.
     *
     * @throws IllegalStateException before a key is set
     */
    public String sign(String uid, RecordFields fields) {
        return VERSION + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(signingKey(), uid, fields));
    }

    /**
     * How the signed set of a job reads.
     *
     * @param uid         the job's {@code metadata.uid} (null signs as {@code ""})
     * @param annotations its annotations; null reads as none
     * @throws IllegalStateException before a key is set
     */
    public Reading read(String uid, Map<String, String> annotations) {
        RecordFields fields = RecordFields.of(annotations);
        if (!fields.present()) {
            return new Reading(Trust.NONE, fields);
        }
        String signature = annotations.get(Annotations.RECORD_SIGNATURE);
        if (signature == null || signature.isEmpty()) {
            signingKey(); // no key yet is a bug of start-up, not an unsigned record
            return new Reading(Trust.UNSIGNED, fields);
        }
        return new Reading(verifies(uid, fields, signature) ? Trust.TRUSTED : Trust.MISMATCHED, fields);
    }

    private boolean verifies(String uid, RecordFields fields, String signature) {
        if (!signature.startsWith(VERSION)) {
            signingKey();
            return false;
        }
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(signature.substring(VERSION.length()));
        } catch (IllegalArgumentException e) {
            signingKey();
            return false;
        }
        for (SecretKeySpec key : keysInForce()) {
            if (MessageDigest.isEqual(given, mac(key, uid, fields))) {
                return true;
            }
        }
        return false;
    }

    private SecretKeySpec signingKey() {
        return keysInForce().get(0);
    }

    private List<SecretKeySpec> keysInForce() {
        List<SecretKeySpec> k = keys;
        if (k.isEmpty()) {
            throw new IllegalStateException("no record key yet: start-up step \"record key\" has not run");
        }
        return k;
    }

    private byte[] mac(SecretKeySpec key, String uid, RecordFields fields) {
        Mac mac = macs.get().computeIfAbsent(key, RecordSignatures::newMac);
        mac.update(DOMAIN);
        update(mac, uid == null ? "" : uid);
        List<String> values = fields.values();
        for (int i = 0; i < values.size(); i++) {
            if (i < RecordFields.ALWAYS_SIGNED) {
                update(mac, values.get(i));
            } else if (!values.get(i).isEmpty()) {
                // an optional field, signed with its key when present: a record signed before it existed verifies
                update(mac, RecordFields.KEYS.get(i));
                update(mac, values.get(i));
            }
        }
        return mac.doFinal();
    }

    private static void update(Mac mac, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        mac.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
        mac.update(bytes);
    }

    private static final byte[] POD_RAN_DOMAIN = "kube-queue/pod-ran v1".getBytes(StandardCharsets.UTF_8);

    /**
     * The value of {@link Annotations#POD_RAN} for the job of {@code uid} admitted under {@code record}: the record's
     * {@code admittedAt}, a space, {@code v1.} and the unpadded base64url of HMAC-SHA256(key, message), the message
     * being {@code kube-queue/pod-ran v1}, the uid, the group and the admission time, each as its UTF-8 length (4
     * bytes, big-endian) and its bytes. Signed on its own, apart from the six of {@link RecordFields}: it is written
     * after the admission, once a pod ran, and binds to one admission only (a later one has another time).
     *
     * @throws IllegalStateException before a key is set
     */
    public String podRanMark(String uid, AdmissionRecord record) {
        return record.admittedAt() + " " + VERSION
                + Base64.getUrlEncoder().withoutPadding().encodeToString(podRanMac(signingKey(), uid, record));
    }

    /**
     * Whether {@code value} (of {@link Annotations#POD_RAN}) is kube-queue's mark that a pod of the job of {@code uid}
     * ran under {@code record}: made by {@link #podRanMark} with a key in force, for this uid and this record. A mark
     * written by hand, copied from another job or left from an earlier admission is not.
     *
     * @param value the annotation's value; null reads as none
     * @throws IllegalStateException before a key is set
     */
    public boolean podRanUnder(String uid, AdmissionRecord record, String value) {
        if (value == null || record == null || record.startedOutside()) {
            return false;
        }
        String prefix = record.admittedAt() + " " + VERSION;
        if (!value.startsWith(prefix) || value.length() > prefix.length() + 64) {
            return false;
        }
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(value.substring(prefix.length()));
        } catch (IllegalArgumentException e) {
            return false;
        }
        for (SecretKeySpec key : keysInForce()) {
            if (MessageDigest.isEqual(given, podRanMac(key, uid, record))) {
                return true;
            }
        }
        return false;
    }

    private byte[] podRanMac(SecretKeySpec key, String uid, AdmissionRecord record) {
        Mac mac = macs.get().computeIfAbsent(key, RecordSignatures::newMac);
        mac.update(POD_RAN_DOMAIN);
        update(mac, uid == null ? "" : uid);
        update(mac, record.group());
        update(mac, record.admittedAt());
        return mac.doFinal();
    }

    /**
     * The preemptor of a reclaim as written on its victim ({@link Annotations#EVICTED_FOR}): {@code Kind/namespace/name}
     * sealed with AES-256-GCM (the JDK's {@code javax.crypto}, NIST SP 800-38D) under a key derived from the record key,
     * the victim's uid as additional data. The victim's team reads its own job's annotations, and the preemptor is
     * another team's job (issue 25, reasons per reader): they see an opaque value, and a restarted leader opens it.
     *
     * @param uid       the victim's uid (null: {@code ""})
     * @param plaintext the preemptor as {@code Kind/namespace/name}; empty gives empty
     * @return {@code v1.} and the unpadded base64url of a 12-byte random nonce and the ciphertext with its tag
     * @throws IllegalStateException before a key is set
     */
    public String seal(String uid, String plaintext) {
        if (plaintext == null || plaintext.isEmpty()) {
            return "";
        }
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance(SEAL);
            cipher.init(Cipher.ENCRYPT_MODE, sealingKey(signingKey()), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD((uid == null ? "" : uid).getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            return VERSION + Base64.getUrlEncoder().withoutPadding().encodeToString(
                    ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(SEAL + " is part of every JDK", e);
        }
    }

    /**
     * Opens a value {@link #seal} wrote on the job of {@code uid}, with the signing key or an accepted one.
     *
     * @return the plaintext; empty for an empty value; null if it does not open (not sealed by kube-queue for this job)
     * @throws IllegalStateException before a key is set
     */
    public String open(String uid, String sealed) {
        if (sealed == null || sealed.isEmpty()) {
            return "";
        }
        List<SecretKeySpec> inForce = keysInForce();
        if (!sealed.startsWith(VERSION) || sealed.length() > MAX_SEALED_CHARS) {
            return null;
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(sealed.substring(VERSION.length()));
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (bytes.length <= NONCE_BYTES + TAG_BITS / 8) {
            return null;
        }
        for (SecretKeySpec key : inForce) {
            try {
                Cipher cipher = Cipher.getInstance(SEAL);
                cipher.init(Cipher.DECRYPT_MODE, sealingKey(key), new GCMParameterSpec(TAG_BITS, bytes, 0, NONCE_BYTES));
                cipher.updateAAD((uid == null ? "" : uid).getBytes(StandardCharsets.UTF_8));
                return new String(cipher.doFinal(bytes, NONCE_BYTES, bytes.length - NONCE_BYTES), StandardCharsets.UTF_8);
            } catch (javax.crypto.AEADBadTagException e) {
                // not sealed with this key: the next one
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(SEAL + " is part of every JDK", e);
            }
        }
        return null;
    }

    /** The AES key of sealing, derived from a record key: HMAC-SHA256 of a fixed label (a key of its own per use). */
    private SecretKeySpec sealingKey(SecretKeySpec recordKey) {
        return sealingKeys.computeIfAbsent(recordKey, k -> {
            Mac mac = newMac(k);
            return new SecretKeySpec(mac.doFinal(SEALING_LABEL), "AES");
        });
    }

    private static Mac newMac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is part of every JDK", e);
        }
    }
}
