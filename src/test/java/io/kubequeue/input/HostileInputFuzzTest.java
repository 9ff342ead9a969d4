package io.kubequeue.input;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.kubequeue.job.JobKind;

/**
 * Coverage-guided fuzzing of every parser of tenant input (issue 25, "What to build" 1), with Jazzer: one target
 * that dispatches on the input's first byte, since in fuzzing mode Jazzer runs one {@code @FuzzTest} per JVM.
 *
 * <ul>
 *   <li>{@code ./mvnw verify} runs it twice: in the unit tests on the committed corpus only (regression mode,
 *       {@code src/test/resources/io/kubequeue/input/HostileInputFuzzTestInputs/parsers/}), and in the surefire
 *       execution {@code fuzz} with {@code JAZZER_FUZZ=1} for {@value #FUZZ_SECONDS} seconds of coverage-guided
 *       fuzzing (its own JVM, a small heap: libFuzzer's memory limit is 2 GB).</li>
 *   <li>An input that breaks the contract ({@link HostileChecks}) fails the build; Jazzer writes it into that
 *       folder, where it stays as a regression input once committed.</li>
 * </ul>
 * The input: byte 0 picks the parser, the rest is the text (UTF-8).
 */
class HostileInputFuzzTest {

    /** How long the fuzzing run of {@code ./mvnw verify} lasts. */
    static final int FUZZ_SECONDS = 60;

    @FuzzTest(maxDuration = FUZZ_SECONDS + "s")
    void parsers(byte[] input) {
        if (input.length == 0) {
            return;
        }
        String text = new String(Arrays.copyOfRange(input, 1, input.length), StandardCharsets.UTF_8);
        int target = Byte.toUnsignedInt(input[0]) % (6 + HostileChecks.KINDS.size());
        switch (target) {
            case 0 -> HostileChecks.quantity(text);
            case 1 -> HostileChecks.minResources(text);
            case 2 -> HostileChecks.admissionTimeouts(text);
            case 3 -> HostileChecks.tree(text);
            case 4 -> HostileChecks.resourceQuota(text);
            case 5 -> HostileChecks.manifest(text);
            default -> {
                JobKind<?> kind = HostileChecks.KINDS.get(target - 6);
                HostileChecks.job(kind, text);
                HostileChecks.flatYaml(text);
            }
        }
    }
}
