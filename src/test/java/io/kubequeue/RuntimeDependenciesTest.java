package io.kubequeue;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;

import org.junit.jupiter.api.Test;

/**
 * Every module on the runtime class path of the shipped application, Quarkus extensions included, is on the allowed
 * list of docs/architecture.md, "Runtime dependencies", with a line that says what kube-queue uses it for (issue 32:
 * the native image compiles in all that the class path brings). The class path is the one Maven resolves for the
 * compile and runtime scopes, written to {@code target/runtime-dependencies.txt} before the tests by the
 * maven-dependency-plugin (pom.xml, execution {@code runtime-dependencies}): a superset of
 * {@code target/quarkus-app/lib/}, which Quarkus writes only at package, after the tests.
 */
class RuntimeDependenciesTest {

    static final Path LIST = Path.of("target/runtime-dependencies.txt");
    static final Path DOC = Path.of("docs/architecture.md");
    static final String SECTION = "## Runtime dependencies";

    /** {@code   group:artifact:type[:classifier]:version:scope:/path/to.jar -- module name}, as the plugin writes it. */
    static final Pattern RESOLVED = Pattern.compile(
            "^\\s+([^:\\s]+):([^:\\s]+):[^:\\s]+(?::[^:\\s]+)?:[^:\\s]+:(compile|runtime):(.+?)(?: -- module .*)?$");
    /** {@code - `group:artifact` (extension) — why}, the last part at least a few words. */
    static final Pattern ENTRY = Pattern.compile("^- `([^`:]+):([^`:]+)`( \\(extension\\))? — (.+)$");

    record Module(String key, Path jar) {
        boolean isQuarkusExtension() {
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                return zip.getEntry("META-INF/quarkus-extension.properties") != null;
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + jar, e);
            }
        }
    }

    record Entry(String key, boolean extension, String why) {
        /** An artifactId ending in * allows every name it starts (a native library's per-OS artifacts). */
        boolean allows(String module) {
            return key.endsWith("*") ? module.startsWith(key.substring(0, key.length() - 1)) : module.equals(key);
        }
    }

    @Test
    void everyRuntimeModuleIsOnTheAllowedListWithItsReason() throws IOException {
        Map<String, Module> modules = runtimeModules();
        Map<String, Entry> allowed = allowedList();
        List<String> problems = new ArrayList<>();
        for (Module m : modules.values()) {
            Entry e = allowed.values().stream().filter(a -> a.allows(m.key())).findFirst().orElse(null);
            boolean extension = m.isQuarkusExtension();
            if (e == null) {
                problems.add(m.key() + (extension ? " (a Quarkus extension)" : "") + " is on the runtime class path but"
                        + " not on the allowed list: add a line `- `" + m.key() + "`" + (extension ? " (extension)" : "")
                        + " — what kube-queue uses it for` to " + DOC + ", \"Runtime dependencies\", or exclude it in"
                        + " pom.xml (mvn dependency:tree shows what brings it)");
            } else if (!e.key().endsWith("*") && e.extension() != extension) {
                problems.add(m.key() + (extension ? " is" : " is not") + " a Quarkus extension: its line in " + DOC
                        + (extension ? " must say (extension)" : " must not say (extension)"));
            }
        }
        for (Entry e : allowed.values()) {
            if (modules.values().stream().noneMatch(m -> e.allows(m.key())) && !e.key().endsWith("*")) {
                problems.add(e.key() + " is on the allowed list of " + DOC + " but no longer on the runtime class path:"
                        + " drop its line");
            }
        }
        if (!problems.isEmpty()) {
            fail(problems.size() + " problem(s) with the runtime dependencies:\n" + String.join("\n", problems));
        }
    }

    @Test
    void theUnusedFabric8ModelModulesStayOut() throws IOException {
        // pom.xml excludes them (the kubernetes-client-api dependency says why); a new path that brings one back
        // would also need a line on the list, but the list must not be the only guard of this choice
        Map<String, Module> modules = runtimeModules();
        for (String unused : List.of("discovery", "flowcontrol", "gatewayapi", "metrics", "resource",
                "storageclass")) {
            assertTrue(!modules.containsKey("io.fabric8:kubernetes-model-" + unused),
                    "io.fabric8:kubernetes-model-" + unused + " is back on the runtime class path (see pom.xml)");
        }
    }

    static Map<String, Module> runtimeModules() throws IOException {
        if (!Files.isRegularFile(LIST)) {
            fail(LIST + " is missing: it is written by the maven-dependency-plugin at process-test-resources"
                    + " (./mvnw process-test-resources, or any Maven build that runs the tests)");
        }
        Map<String, Module> modules = new TreeMap<>();
        for (String line : Files.readAllLines(LIST)) {
            Matcher m = RESOLVED.matcher(line);
            if (m.matches()) {
                String key = m.group(1) + ":" + m.group(2);
                modules.put(key, new Module(key, Path.of(m.group(4).trim())));
            }
        }
        assertTrue(modules.size() > 20, "too few modules read from " + LIST + " (" + modules.size() + "): its format?");
        return modules;
    }

    static Map<String, Entry> allowedList() throws IOException {
        List<String> lines = Files.readAllLines(DOC);
        int start = lines.indexOf(SECTION);
        assertTrue(start >= 0, DOC + " has no section \"" + SECTION + "\"");
        Map<String, Entry> entries = new TreeMap<>();
        for (String line : lines.subList(start + 1, lines.size())) {
            if (line.startsWith("## ")) {
                break;
            }
            if (!line.startsWith("- `")) {
                continue;
            }
            Matcher m = ENTRY.matcher(line);
            assertTrue(m.matches(), "a line of \"Runtime dependencies\" not of the form "
                    + "- `group:artifact` [(extension)] — why: " + line);
            String why = m.group(4).trim();
            assertTrue(why.split("\\s+").length >= 2, "say what kube-queue uses it for: " + line);
            String key = m.group(1) + ":" + m.group(2);
            assertTrue(entries.put(key, new Entry(key, m.group(3) != null, why)) == null, "listed twice: " + key);
        }
        assertTrue(!entries.isEmpty(), "\"" + SECTION + "\" lists no module");
        return entries;
    }
}
