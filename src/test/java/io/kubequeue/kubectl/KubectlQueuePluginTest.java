package io.kubequeue.kubectl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * The {@code kubectl-queue} plugin (src/main/kubectl), run against a stand-in {@code kubectl} on PATH that records
 * every call's arguments (one file per call, each argument ended by a NUL, so they split back exactly), keeps the
 * manifest it was given with {@code -f} (a file, or its stdin for {@code -}), and answers, per verb ({@code get},
 * {@code create}, {@code config}), the stdout, stderr and exit code the test wrote for it. The plugin is a thin
 * layer over kubectl and the aggregated API {@code visibility.kube-queue.io/v1alpha1} (docs/visibility.md): these
 * tests check the kubectl command line it builds and that kubectl's output, errors and exit code come through. Also
 * its krew manifest (src/main/kubectl/krew/queue.yaml), rendered as the krew-release-bot renders it.
 */
class KubectlQueuePluginTest {

    private static final Path PLUGIN = Path.of("src/main/kubectl/kubectl-queue").toAbsolutePath();
    private static final Path KREW_MANIFEST = Path.of("src/main/kubectl/krew/queue.yaml");
    private static final String API = "/apis/visibility.kube-queue.io/v1alpha1";
    private static final List<String> CONFIG_VIEW = List.of("config", "view", "--minify", "-o", "jsonpath={..namespace}");
    /** The hint's own words, which kubectl's errors never hold. */
    private static final String HINT = "is not installed or not Available: kubectl get apiservice v1alpha1.visibility.kube-queue.io";
    /** A line of the usage text. */
    private static final String USAGE = "kubectl queue job NS/NAME";
    /** What kubectl prints for pendingjobs: the server's table, passed through as is. */
    private static final String TABLE = """
            NAME   KIND    QUOTA GROUP   POSITION   STATE   REASON
            job2   TFJob   root.team-a   2          Held    cpu: request 3, in use 3 of max 4 in root.team-a
            """;
    private static final String PENDING_JOB = """
            {"apiVersion":"visibility.kube-queue.io/v1alpha1","kind":"PendingJob","metadata":{"name":"job2",\
            "namespace":"team-a"},"job":{"kind":"TFJob"},"quotaGroup":"root.team-a","state":"Held","position":2}""";
    private static final String DRY_RUN = """
            {"apiVersion":"visibility.kube-queue.io/v1alpha1","kind":"DryRun","metadata":{"name":"job3",\
            "namespace":"team-a"},"managed":true,"job":{"kind":"TFJob"},"quotaGroup":"root.team-a",\
            "request":{"cpu":"3"},"priority":0,"fitsNow":false,"position":2,\
            "reason":"cpu: request 3, in use 3 of max 4 in root.team-a"}""";
    private static final String MANIFEST = "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  name: job3\n";

    @TempDir
    Path dir;
    private Path bin;

    /**
     * One run of the plugin.
     *
     * @param exit  its exit code
     * @param out   its stdout
     * @param err   its stderr
     * @param calls the arguments of every kubectl call, in order
     */
    record Run(int exit, String out, String err, List<List<String>> calls) {

        /** The one kubectl call the run made. */
        List<String> call() {
            assertEquals(1, calls.size(), "one kubectl call: " + calls);
            return calls.get(0);
        }
    }

    @BeforeEach
    void standIn() throws IOException {
        bin = Files.createDirectory(dir.resolve("bin"));
        Files.createDirectory(dir.resolve("calls"));
        Path kubectl = bin.resolve("kubectl");
        Files.writeString(kubectl, """
                #!%s
                d='%s'
                n=$(( $(cat "$d/count" 2>/dev/null || echo 0) + 1 ))
                printf '%%s' "$n" > "$d/count"
                printf '%%s\\0' "$@" > "$d/calls/$(printf '%%03d' "$n")"
                verb=other
                for a in "$@"; do case "$a" in config|get|create) verb=$a; break ;; esac; done
                prev=""
                for a in "$@"; do
                  if [ "$prev" = -f ]; then
                    if [ "$a" = - ]; then cat > "$d/manifest.$n"; else cat -- "$a" > "$d/manifest.$n" 2>/dev/null; fi
                  fi
                  prev=$a
                done
                if [ -f "$d/$verb.wait" ]; then
                  cat "$d/$verb.wait" >&2
                  i=0
                  while [ ! -f "$d/go" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
                  [ -f "$d/go" ] || echo 'waited 10 s' > "$d/waited-out"
                fi
                [ ! -f "$d/$verb.out" ] || cat "$d/$verb.out"
                [ ! -f "$d/$verb.err" ] || cat "$d/$verb.err" >&2
                exit "$(cat "$d/$verb.rc" 2>/dev/null || echo 0)"
                """.formatted(bash(), dir));
        assertTrue(kubectl.toFile().setExecutable(true));
        answer("get", TABLE);
        Files.writeString(dir.resolve("job.yaml"), MANIFEST);
    }

    /** What the stand-in kubectl prints on stdout for VERB. */
    private void answer(String verb, String stdout) throws IOException {
        Files.writeString(dir.resolve(verb + ".out"), stdout);
    }

    /** The stand-in kubectl fails for VERB: STDERR, exit code RC. */
    private void failure(String verb, String stderr, int rc) throws IOException {
        Files.writeString(dir.resolve(verb + ".err"), stderr);
        Files.writeString(dir.resolve(verb + ".rc"), Integer.toString(rc));
    }

    private static String bash() {
        return onPath("bash").orElseThrow(() -> new AssertionError("the plugin is a bash script: no bash on PATH"))
                .toString();
    }

    private static Optional<Path> onPath(String tool) {
        for (String d : System.getenv("PATH").split(File.pathSeparator)) {
            Path p = Path.of(d, tool);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private Run run(String... args) throws IOException, InterruptedException {
        return run(Map.of(), null, args);
    }

    private Run run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return run(env, null, args);
    }

    private Run run(Map<String, String> env, Path stdin, String... args) throws IOException, InterruptedException {
        return finish(start(env, stdin, args));
    }

    private Process start(Map<String, String> env, Path stdin, String... args) throws IOException {
        for (Path old : Files.list(dir.resolve("calls")).toList()) {
            Files.delete(old);
        }
        for (String record : List.of("count", "out", "err", "manifest.1", "manifest.2", "go", "waited-out")) {
            Files.deleteIfExists(dir.resolve(record));
        }
        List<String> command = new ArrayList<>(List.of(bash(), PLUGIN.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
                .redirectInput(stdin != null ? stdin.toFile() : new File("/dev/null"))
                .redirectOutput(dir.resolve("out").toFile())
                .redirectError(dir.resolve("err").toFile());
        for (String name : List.of("KUBECTL_QUEUE_OUTPUT", "KUBE_QUEUE_TOKEN", "KUBE_QUEUE_NAMESPACE", "KUBE_QUEUE_SERVICE",
                "KUBECONFIG")) {
            pb.environment().remove(name);
        }
        pb.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
        pb.environment().putAll(env);
        return pb.start();
    }

    private Run finish(Process p) throws IOException, InterruptedException {
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the plugin ends");
        List<List<String>> calls = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir.resolve("calls"))) {
            for (Path call : files.sorted().toList()) {
                String text = Files.readString(call);
                assertTrue(text.isEmpty() || text.endsWith("\0"), "each argument ends with a NUL: " + text);
                calls.add(text.isEmpty() ? List.of()
                        : List.of(text.substring(0, text.length() - 1).split("\0", -1)));
            }
        }
        return new Run(p.exitValue(), Files.readString(dir.resolve("out")), Files.readString(dir.resolve("err")), calls);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static List<String> args(String... args) {
        return List.of(args);
    }

    /** The manifest the stand-in kubectl read for its Nth call. */
    private String manifest(int n) throws IOException {
        Path file = dir.resolve("manifest." + n);
        assertTrue(Files.exists(file), "kubectl call " + n + " read a manifest");
        return Files.readString(file);
    }

    private static void assertWrongCall(Run run, String what) {
        assertEquals(2, run.exit(), what + ": " + run.err());
        assertTrue(run.err().contains(USAGE), "the usage on stderr: " + run.err());
        assertEquals("", run.out(), what);
        assertTrue(run.calls().isEmpty(), what + ": kubectl was not called: " + run.calls());
    }

    @Test
    void eachCommandIsOneKubectlGetWhoseOutputPassesThrough() throws Exception {
        Map<List<String>, List<String>> cases = new LinkedHashMap<>();
        cases.put(args(), args("get", "quotagroups"));
        cases.put(args("queues"), args("get", "quotagroups"));
        cases.put(args("jobs", "root.team-a"),
                args("get", "pendingjobs", "-A", "--field-selector", "quotaGroup=root.team-a"));
        cases.put(args("jobs", "root.team-a", "-A"),
                args("get", "pendingjobs", "-A", "--field-selector", "quotaGroup=root.team-a"));
        cases.put(args("jobs", "root.team-a", "-n", "team-a"),
                args("get", "pendingjobs", "-n", "team-a", "--field-selector", "quotaGroup=root.team-a"));
        cases.put(args("pending"), args("get", "pendingjobs"));
        cases.put(args("kinds"), args("get", "queuedkinds"));
        cases.put(args("kinds", "-o", "wide"), args("get", "queuedkinds", "-o", "wide"));
        cases.put(args("pending", "-n", "team-a"), args("get", "pendingjobs", "-n", "team-a"));
        cases.put(args("pending", "-A"), args("get", "pendingjobs", "-A"));
        cases.put(args("job", "team-a/job2"), args("get", "pendingjobs", "job2", "-n", "team-a", "-o", jobFormat()));
        // the variables of the plugin that went through the service proxy are not read any more
        Map<String, String> old = Map.of("KUBE_QUEUE_TOKEN", "old-token-5e1f", "KUBE_QUEUE_NAMESPACE", "old-ns",
                "KUBE_QUEUE_SERVICE", "old-svc:http");
        for (var c : cases.entrySet()) {
            Run run = run(old, c.getKey().toArray(String[]::new));
            assertEquals(0, run.exit(), c.getKey() + ": " + run.err());
            assertEquals(c.getValue(), run.call(), c.getKey().toString());
            assertEquals(TABLE, run.out(), "kubectl's table as is");
            assertEquals("", run.err(), c.getKey().toString());
        }
    }

    @Test
    void kubectlsGlobalFlagsReachEveryKubectlCallInOrder() throws Exception {
        List<String> globals = args("--context", "prod", "--kubeconfig=/etc/kq/config", "--as", "alice", "--as-group",
                "devs", "--as-group=ops", "--token", "t0k3n", "-s", "https://api.example:6443", "--request-timeout", "5s",
                "-v", "6", "--insecure-skip-tls-verify", "--user", "u1", "--cluster=c1", "--certificate-authority",
                "/ca.crt");
        // interleaved with the command and its argument: the flags keep their order, the values stay with them
        Run run = run("--context", "prod", "jobs", "--kubeconfig=/etc/kq/config", "root.team-a", "--as", "alice",
                "--as-group", "devs", "--as-group=ops", "--token", "t0k3n", "-s", "https://api.example:6443",
                "--request-timeout", "5s", "-v", "6", "--insecure-skip-tls-verify", "--user", "u1", "--cluster=c1",
                "--certificate-authority", "/ca.crt");
        assertEquals(0, run.exit(), run.err());
        assertEquals(concat(globals, args("get", "pendingjobs", "-A", "--field-selector", "quotaGroup=root.team-a")),
                run.call());

        // the forms glued to their value
        run = run("-shttps://api.example:6443", "pending", "-v=4", "-v4", "--context=prod", "--server=https://b:6443");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("-shttps://api.example:6443", "-v=4", "-v4", "--context=prod", "--server=https://b:6443", "get",
                "pendingjobs"), run.call());

        // a dry run asks kubectl for its namespace with the same flags, then creates the dry run
        answer("config", "team-b");
        answer("create", DRY_RUN);
        List<String> some = args("--context", "prod", "--as", "alice", "--as-group", "devs", "--token=t0k3n");
        run = run("dry-run", "--context", "prod", "job.yaml", "--as", "alice", "--as-group", "devs", "--token=t0k3n",
                "-o", "json");
        assertEquals(0, run.exit(), run.err());
        assertEquals(List.of(concat(some, CONFIG_VIEW),
                concat(some, args("create", "--raw", API + "/namespaces/team-b/dryruns", "-f", "job.yaml"))), run.calls());

        // job --kind without a namespace does the same
        answer("get", PENDING_JOB);
        run = run("job", "job2", "--kind", "TFJob", "--context", "prod", "--as", "alice", "--as-group", "devs",
                "--token=t0k3n");
        assertEquals(0, run.exit(), run.err());
        assertEquals(List.of(concat(some, CONFIG_VIEW),
                concat(some, args("get", "--raw", API + "/namespaces/team-b/pendingjobs/job2?kind=TFJob"))), run.calls());
    }

    @Test
    void outputFormatsGoToKubectlGetAsGiven() throws Exception {
        Map<List<String>, String> forms = new LinkedHashMap<>();
        forms.put(args("-o", "json"), "json");
        forms.put(args("-ojson"), "json");
        forms.put(args("--output", "yaml"), "yaml");
        forms.put(args("--output=name"), "name");
        forms.put(args("-o=wide"), "wide");
        forms.put(args("-o", "custom-columns=NAME:.metadata.name,POSITION:.position"),
                "custom-columns=NAME:.metadata.name,POSITION:.position");
        forms.put(args("-o", "jsonpath={.items[*].metadata.name}"), "jsonpath={.items[*].metadata.name}");
        forms.put(args("-ogo-template={{range .items}}{{.metadata.name}} {{end}}"),
                "go-template={{range .items}}{{.metadata.name}} {{end}}");
        for (var form : forms.entrySet()) {
            Run run = run(concat(args("pending", "-n", "team-a"), form.getKey()).toArray(String[]::new));
            assertEquals(0, run.exit(), form.getKey() + ": " + run.err());
            assertEquals(args("get", "pendingjobs", "-n", "team-a", "-o", form.getValue()), run.call(),
                    form.getKey().toString());
            assertEquals(TABLE, run.out());
        }
        assertEquals(args("get", "quotagroups", "-o", "wide"), run("-o", "wide").call());
        assertEquals(args("get", "pendingjobs", "-A", "--field-selector", "quotaGroup=root.team-a", "-o", "yaml"),
                run("jobs", "root.team-a", "-o", "yaml").call());
        // job's -o wide is a default: -o replaces it
        assertEquals(args("get", "pendingjobs", "job2", "-n", "team-a", "-o", "yaml"),
                run("job", "team-a/job2", "-o", "yaml").call());

        // KUBECTL_QUEUE_OUTPUT=json is -o json, and -o wins
        Map<String, String> json = Map.of("KUBECTL_QUEUE_OUTPUT", "json");
        assertEquals(args("get", "quotagroups", "-o", "json"), run(json).call());
        assertEquals(args("get", "pendingjobs", "job2", "-n", "team-a", "-o", "json"),
                run(json, "job", "team-a/job2").call());
        assertEquals(args("get", "quotagroups", "-o", "yaml"), run(json, "-o", "yaml").call());
    }

    @Test
    void namespaceOrAllNamespaces() throws Exception {
        for (List<String> form : List.of(args("-n", "team-a"), args("-nteam-a"), args("-n=team-a"),
                args("--namespace", "team-a"), args("--namespace=team-a"))) {
            for (List<String> line : List.of(concat(args("pending"), form), concat(form, args("pending")))) {
                Run run = run(line.toArray(String[]::new));
                assertEquals(0, run.exit(), line + ": " + run.err());
                assertEquals(args("get", "pendingjobs", "-n", "team-a"), run.call(), line.toString());
            }
        }
        assertEquals(args("get", "pendingjobs", "-A"), run("pending", "--all-namespaces").call());

        Map<List<String>, String> wrong = new LinkedHashMap<>();
        wrong.put(args("pending", "-n", "team-a", "-A"), "-n and -A together");
        wrong.put(args("jobs", "root.team-a", "-A", "-n", "team-a"), "-n and -A together");
        wrong.put(args("queues", "-n", "team-a"), "quota groups have no namespace");
        wrong.put(args("-n", "team-a"), "quota groups have no namespace");
        wrong.put(args("queues", "-A"), "quota groups have no namespace");
        wrong.put(args("job", "team-a/job2", "-A"), "-A does not apply to job");
        wrong.put(args("dry-run", "job.yaml", "-A"), "-A does not apply to dry-run");
        wrong.put(args("pending", "-n"), "-n needs a namespace");
        wrong.put(args("pending", "--namespace="), "--namespace needs a namespace");
        for (var w : wrong.entrySet()) {
            Run run = run(w.getKey().toArray(String[]::new));
            assertWrongCall(run, w.getKey().toString());
            assertTrue(run.err().startsWith("kubectl-queue: " + w.getValue()), w.getKey() + ": " + run.err());
        }
    }

    @Test
    void aJobIsNamedByNamespaceAndName() throws Exception {
        for (List<String> line : List.of(args("job", "team-a/job2"), args("job", "job2", "-n", "team-a"),
                args("-n", "team-a", "job", "job2"), args("job", "--namespace=team-a", "job2"),
                args("job", "team-a/job2", "-n", "team-a"))) {
            Run run = run(line.toArray(String[]::new));
            assertEquals(0, run.exit(), line + ": " + run.err());
            assertEquals(args("get", "pendingjobs", "job2", "-n", "team-a", "-o", jobFormat()), run.call(),
                    line.toString());
            assertEquals(TABLE, run.out(), "an answer jq cannot read, as it came");
        }
        // no namespace: kubectl's current one, as kubectl decides
        assertEquals(args("get", "pendingjobs", "job2", "-o", jobFormat()), run("job", "job2").call());

        Run run = run("job", "team-a/job2", "-n", "team-b");
        assertWrongCall(run, "two namespaces");
        assertTrue(run.err().startsWith("kubectl-queue: team-a/job2 and -n team-b name two namespaces"), run.err());
        for (List<String> line : List.of(args("job", "team-a/job2/x"), args("job", "/job2"), args("job", "team-a/"),
                args("job"), args("job", "a/b", "c/d"))) {
            assertWrongCall(run(line.toArray(String[]::new)), line.toString());
        }
    }

    @Test
    void kindAsksForTheRawPathWithTheKindParameter() throws Exception {
        answer("get", PENDING_JOB);
        Run run = run("job", "team-a/job2", "--kind", "TFJob");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("get", "--raw", API + "/namespaces/team-a/pendingjobs/job2?kind=TFJob"), run.call());
        assertEquals(PENDING_JOB + "\n", run.out(), "the JSON as is, with a final newline");

        run = run("--kind=PyTorchJob", "-n", "team-a", "job", "job2", "-o", "json");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("get", "--raw", API + "/namespaces/team-a/pendingjobs/job2?kind=PyTorchJob"), run.call());

        // no namespace: the kubeconfig context's, else default
        answer("config", "team-b");
        run = run("job", "job2", "--kind", "MPIJob");
        assertEquals(0, run.exit(), run.err());
        assertEquals(List.of(CONFIG_VIEW, args("get", "--raw", API + "/namespaces/team-b/pendingjobs/job2?kind=MPIJob")),
                run.calls());
        answer("config", "");
        run = run("job", "job2", "--kind", "MPIJob");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("get", "--raw", API + "/namespaces/default/pendingjobs/job2?kind=MPIJob"), run.calls().get(1));

        Map<List<String>, String> wrong = new LinkedHashMap<>();
        wrong.put(args("pending", "--kind", "TFJob"), "--kind applies to job only");
        wrong.put(args("queues", "--kind=Job"), "--kind applies to job only");
        wrong.put(args("job", "team-a/job2", "--kind", "TFJob&x=1"), "--kind takes a kind");
        wrong.put(args("job", "team-a/job2", "--kind="), "--kind takes a kind");
        wrong.put(args("job", "team-a/job2", "--kind"), "--kind needs a kind");
        wrong.put(args("job", "team-a/job2?x=1", "--kind", "TFJob"), "job2?x=1 is no Kubernetes object name");
        wrong.put(args("job", "team-a/job2", "--kind", "TFJob", "-o", "yaml"), "job --kind answers JSON only");
        for (var w : wrong.entrySet()) {
            run = run(w.getKey().toArray(String[]::new));
            assertWrongCall(run, w.getKey().toString());
            assertTrue(run.err().startsWith("kubectl-queue: " + w.getValue()), w.getKey() + ": " + run.err());
        }
    }

    @Test
    void dryRunCreatesOneInTheNamespaceFromTheFlagTheKubeconfigOrDefault() throws Exception {
        answer("create", DRY_RUN);
        Map<String, String> json = Map.of("KUBECTL_QUEUE_OUTPUT", "json");
        // -n: no need to ask kubectl
        Run run = run(json, "dry-run", "job.yaml", "-n", "team-a");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("create", "--raw", API + "/namespaces/team-a/dryruns", "-f", "job.yaml"), run.call());
        assertEquals(MANIFEST, manifest(1));
        assertEquals(DRY_RUN + "\n", run.out());

        // the kubeconfig context's namespace
        answer("config", "team-b");
        run = run(json, "dry-run", "job.yaml");
        assertEquals(0, run.exit(), run.err());
        assertEquals(List.of(CONFIG_VIEW, args("create", "--raw", API + "/namespaces/team-b/dryruns", "-f", "job.yaml")),
                run.calls());
        assertEquals(MANIFEST, manifest(2));

        // none: default
        answer("config", "");
        run = run(json, "dry-run", "job.yaml");
        assertEquals(0, run.exit(), run.err());
        assertEquals(List.of(CONFIG_VIEW, args("create", "--raw", API + "/namespaces/default/dryruns", "-f", "job.yaml")),
                run.calls());
        // no current context at all (kubectl -s URL --token ... and no kubeconfig): default, and no complaint
        failure("config", "error: current-context must exist in order to minify\n", 1);
        run = run(json, "dry-run", "job.yaml", "-s", "https://api.example:6443");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("-s", "https://api.example:6443", "create", "--raw", API + "/namespaces/default/dryruns", "-f",
                "job.yaml"), run.calls().get(1));
        assertEquals("", run.err());

        // the manifest on stdin reaches kubectl's stdin
        Path other = dir.resolve("stdin.yaml");
        Files.writeString(other, MANIFEST.replace("job3", "job4"));
        run = run(json, other, "dry-run", "-", "-n", "team-a");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("create", "--raw", API + "/namespaces/team-a/dryruns", "-f", "-"), run.call());
        assertEquals(MANIFEST.replace("job3", "job4"), manifest(1));
        assertEquals(DRY_RUN + "\n", run.out());

        for (List<String> line : List.of(args("dry-run"), args("dry-run", "a.yaml", "b.yaml"),
                args("dry-run", "job.yaml", "-o", "yaml"), args("dry-run", "job.yaml", "-o", "wide"))) {
            assertWrongCall(run(line.toArray(String[]::new)), line.toString());
        }
    }

    @Test
    void dryRunWithJqSaysWhatTheAnswerMeans() throws Exception {
        Assumptions.assumeTrue(onPath("jq").isPresent(), "the summary needs jq");
        answer("create", DRY_RUN);
        Run run = run("dry-run", "job.yaml", "-n", "team-a");
        assertEquals(0, run.exit(), run.err());
        assertEquals("""
                Job:          TFJob team-a/job3
                Managed:      true
                Quota group:  root.team-a
                Fits now:     false
                Position:     2
                Reason:       cpu: request 3, in use 3 of max 4 in root.team-a
                """, run.out());
        // -o json: the JSON instead
        run = run("dry-run", "job.yaml", "-n", "team-a", "-o", "json");
        assertEquals(DRY_RUN + "\n", run.out());
        // an answer that is not JSON is shown as it came
        answer("create", "not json");
        run = run("dry-run", "job.yaml", "-n", "team-a");
        assertEquals(0, run.exit(), run.err());
        assertEquals("not json\n", run.out());
    }

    /** {@code job}'s default: {@code -o json} and a summary with jq, the wide table without. */
    private static String jobFormat() {
        return onPath("jq").isPresent() ? "json" : "wide";
    }

    /** One run with a PATH holding the tools the plugin and the stand-in use, and no jq. */
    private Run runWithoutJq(String... args) throws IOException, InterruptedException {
        Path tools = Files.createDirectory(dir.resolve("bin-without-jq"));
        for (String tool : List.of("bash", "cat", "tee", "grep", "awk", "mktemp", "rm", "sleep")) {
            Path found = onPath(tool).orElseThrow(() -> new AssertionError("no " + tool + " on PATH"));
            Files.createSymbolicLink(tools.resolve(tool), found);
        }
        try {
            return run(Map.of("PATH", bin + File.pathSeparator + tools), args);
        } finally {
            try (Stream<Path> links = Files.list(tools)) {
                for (Path link : links.toList()) {
                    Files.delete(link); // the links only, before @TempDir's cleanup warns about each
                }
            }
            Files.delete(tools);
        }
    }

    @Test
    void dryRunWithoutJqPrintsTheJson() throws Exception {
        answer("create", DRY_RUN);
        Run run = runWithoutJq("dry-run", "job.yaml", "-n", "team-a");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("create", "--raw", API + "/namespaces/team-a/dryruns", "-f", "job.yaml"), run.call());
        assertEquals(DRY_RUN + "\n", run.out());
        assertEquals("", run.err());
    }

    /** The server's pendingjobs table, with the ETA column, as kubectl prints it. */
    private static final String TABLE_WITH_ETA = """
            NAMESPACE   NAME   KIND    QUOTA GROUP   POSITION   STATE   ETA          REASON
            team-a      job2   TFJob   root.team-a   2          Held    12m          cpu: request 3, in use 3 of max 4
            team-a      job5   Job     root.team-a   3          Held    NEVER_FITS   cpu: request 9 above max 4
            """;
    private static final String PENDING_JOB_WITH_ESTIMATE = """
            {"apiVersion":"visibility.kube-queue.io/v1alpha1","kind":"PendingJob","metadata":{"name":"job2",\
            "namespace":"team-a"},"job":{"kind":"TFJob"},"quotaGroup":"root.team-a","state":"Held","position":2,\
            "priority":0,"request":{"cpu":"3"},"reason":"cpu: request 3, in use 3 of max 4 in root.team-a",\
            "estimate":{"state":"ESTIMATED","eta":"2026-03-01T10:15:00Z","etaLate":"2026-03-01T10:40:00Z",\
            "runsForSeconds":5400,"assumptions":["runs for about 1h30m (median of 12 runs)",\
            "starts once a job in quota group root.team-a ends (expected 2026-03-01 10:15:00Z)"],\
            "computedAt":"2026-03-01T10:03:00Z","ageSeconds":7},\
            "unblock":["raise max cpu of quota group root.team-a by 2",\
            "a job in quota group root.team-a ending (expected 2026-03-01 10:15:00Z)"]}""";

    @Test
    void jobsShowTheServersEtaColumnAsItComes() throws Exception {
        answer("get", TABLE_WITH_ETA);
        Run run = run("jobs", "root.team-a");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("get", "pendingjobs", "-A", "--field-selector", "quotaGroup=root.team-a"), run.call());
        assertEquals(TABLE_WITH_ETA, run.out());
        // -o wide asks the server for ETA-LATE too: passed as given
        assertEquals(args("get", "pendingjobs", "-A", "--field-selector", "quotaGroup=root.team-a", "-o", "wide"),
                run("jobs", "root.team-a", "-o", "wide").call());
    }

    @Test
    void aJobWithJqSaysWhenItShouldStartForHowLongOnWhatAssumptionsAndWhatWouldAdmitIt() throws Exception {
        Assumptions.assumeTrue(onPath("jq").isPresent(), "the summary needs jq");
        answer("get", PENDING_JOB_WITH_ESTIMATE);
        Run run = run("job", "team-a/job2");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("get", "pendingjobs", "job2", "-n", "team-a", "-o", "json"), run.call());
        assertEquals("""
                Job:          TFJob team-a/job2
                Quota group:  root.team-a
                Position:     2
                State:        Held
                Reason:       cpu: request 3, in use 3 of max 4 in root.team-a
                Starts:       2026-03-01T10:15:00Z - 2026-03-01T10:40:00Z (median - 90th percentile)
                Runs for:     90m
                Assumes:      runs for about 1h30m (median of 12 runs)
                              starts once a job in quota group root.team-a ends (expected 2026-03-01 10:15:00Z)
                Would admit:  raise max cpu of quota group root.team-a by 2
                              a job in quota group root.team-a ending (expected 2026-03-01 10:15:00Z)
                """, run.out());
        assertEquals("", run.err());

        // not estimated: the state word, and no band; no estimate at all (estimates off): said so
        answer("get", PENDING_JOB_WITH_ESTIMATE.replace("\"state\":\"ESTIMATED\",\"eta\":\"2026-03-01T10:15:00Z\","
                + "\"etaLate\":\"2026-03-01T10:40:00Z\",\"runsForSeconds\":5400",
                "\"state\":\"NEVER_FITS\",\"eta\":null,\"etaLate\":null,\"runsForSeconds\":null"));
        run = run("job", "team-a/job2");
        assertTrue(run.out().contains("\nStarts:       NEVER_FITS\nRuns for:     unknown\n"), run.out());
        answer("get", PENDING_JOB);
        run = run("job", "team-a/job2");
        assertTrue(run.out().contains("\nStarts:       - (no estimate: estimates off, or not computed yet)\n"),
                run.out());
        assertFalse(run.out().contains("Would admit"), run.out());

        // -o FORMAT: kubectl get's own output instead
        answer("get", TABLE_WITH_ETA);
        run = run("job", "team-a/job2", "-o", "wide");
        assertEquals(args("get", "pendingjobs", "job2", "-n", "team-a", "-o", "wide"), run.call());
        assertEquals(TABLE_WITH_ETA, run.out());
    }

    @Test
    void aJobWithoutJqIsTheWideTableWithItsEtaColumns() throws Exception {
        answer("get", TABLE_WITH_ETA);
        Run run = runWithoutJq("job", "team-a/job2");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("get", "pendingjobs", "job2", "-n", "team-a", "-o", "wide"), run.call());
        assertEquals(TABLE_WITH_ETA, run.out());
    }

    private static final String WHAT_IF = """
            {"apiVersion":"visibility.kube-queue.io/v1alpha1","kind":"WhatIf","metadata":{},\
            "computedAt":"2026-01-01T00:00:00Z","jobs":[\
            {"kind":"Job","namespace":"team-b","name":"head","group":"root.shared","position":1,\
            "eta":"2026-01-01T00:05:00Z","state":"ESTIMATED","groupAfter":"root.shared","positionAfter":1,\
            "etaAfter":"2026-01-01T00:00:00Z","stateAfter":"ESTIMATED"},\
            {"kind":"Job","namespace":"team-c","name":"huge","group":"root.c","position":1,"eta":null,\
            "state":"NEVER_FITS","groupAfter":"root.c","positionAfter":1,"etaAfter":null,"stateAfter":"NEVER_FITS"},\
            {"kind":"Job","namespace":"team-a","name":"small","group":"root.shared","position":2,\
            "eta":"2026-01-01T02:10:00Z","state":"ESTIMATED","groupAfter":null,"positionAfter":0,"etaAfter":null,\
            "stateAfter":"NO_QUOTA_GROUP"}],\
            "groups":[{"group":"root.c","earlier":0,"later":0,"shiftSeconds":0},\
            {"group":"root.shared","earlier":1,"later":1,"shiftSeconds":-300}]}""";
    private static final String TREE = "apiVersion: scheduling.sigs.k8s.io/v1beta1\nkind: ElasticQuotaTree\n";

    @Test
    void whatIfCreatesOneFromTheFileWithTheSwitchesAsQueryParameters() throws Exception {
        Files.writeString(dir.resolve("tree.yaml"), TREE);
        answer("create", WHAT_IF);
        Map<String, String> json = Map.of("KUBECTL_QUEUE_OUTPUT", "json");
        Map<List<String>, String> cases = new LinkedHashMap<>();
        cases.put(args("what-if", "tree.yaml"), API + "/whatifs");
        cases.put(args("what-if", "tree.yaml", "--strict-priority", "true"), API + "/whatifs?StrictPriority=true");
        cases.put(args("--strict-consistency=false", "what-if", "tree.yaml"), API + "/whatifs?StrictConsistency=false");
        cases.put(args("what-if", "tree.yaml", "--strict-consistency", "true", "--strict-priority=false"),
                API + "/whatifs?StrictPriority=false&StrictConsistency=true");
        for (var c : cases.entrySet()) {
            Run run = run(json, c.getKey().toArray(String[]::new));
            assertEquals(0, run.exit(), c.getKey() + ": " + run.err());
            assertEquals(args("create", "--raw", c.getValue(), "-f", "tree.yaml"), run.call(), c.getKey().toString());
            assertEquals(TREE, manifest(1));
            assertEquals(WHAT_IF + "\n", run.out(), "-o json: the answer as is");
        }
        // the quota objects on stdin
        Path stdin = dir.resolve("stdin.yaml");
        Files.writeString(stdin, TREE.replace("ElasticQuotaTree", "ResourceQuota"));
        Run run = run(json, stdin, "what-if", "-", "--context", "prod");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("--context", "prod", "create", "--raw", API + "/whatifs", "-f", "-"), run.call());
        assertEquals(TREE.replace("ElasticQuotaTree", "ResourceQuota"), manifest(1));

        Map<List<String>, String> wrong = new LinkedHashMap<>();
        wrong.put(args("what-if"), "what-if takes one file");
        wrong.put(args("what-if", "a.yaml", "b.yaml"), "what-if takes one file");
        wrong.put(args("what-if", "tree.yaml", "-n", "team-a"), "-n and -A do not apply to what-if");
        wrong.put(args("what-if", "tree.yaml", "-A"), "-n and -A do not apply to what-if");
        wrong.put(args("what-if", "tree.yaml", "-o", "yaml"), "what-if answers JSON or a summary");
        wrong.put(args("what-if", "tree.yaml", "--strict-priority", "yes"),
                "--strict-priority and --strict-consistency take true or false");
        wrong.put(args("what-if", "tree.yaml", "--strict-consistency=1&x=2"),
                "--strict-priority and --strict-consistency take true or false");
        wrong.put(args("what-if", "tree.yaml", "--strict-priority"), "--strict-priority needs true or false");
        wrong.put(args("pending", "--strict-priority", "true"), "--strict-priority and --strict-consistency apply to"
                + " what-if only");
        for (var w : wrong.entrySet()) {
            run = run(w.getKey().toArray(String[]::new));
            assertWrongCall(run, w.getKey().toString());
            assertTrue(run.err().startsWith("kubectl-queue: " + w.getValue()), w.getKey() + ": " + run.err());
        }
    }

    @Test
    void whatIfWithJqTablesTheJobsThatChangeAndEveryGroup() throws Exception {
        Assumptions.assumeTrue(onPath("jq").isPresent(), "the summary needs jq");
        Files.writeString(dir.resolve("tree.yaml"), TREE);
        answer("create", WHAT_IF);
        Run run = run("what-if", "tree.yaml");
        assertEquals(0, run.exit(), run.err());
        assertEquals("""
                NAMESPACE/NAME  GROUP           POS   ETA
                team-b/head     root.shared     1->1  5m->0s
                team-a/small    root.shared->-  2->0  130m->NO_QUOTA_GROUP

                GROUP        EARLIER  LATER  SHIFT
                root.c       0        0      0s
                root.shared  1        1      -5m
                """, run.out(), "team-c/huge changes nothing: not listed");
        assertEquals("", run.err());

        answer("create", WHAT_IF.replace("\"etaAfter\":\"2026-01-01T00:00:00Z\"", "\"etaAfter\":\"2026-01-01T00:05:00Z\"")
                .replace("\"groupAfter\":null,\"positionAfter\":0,\"etaAfter\":null,\"stateAfter\":\"NO_QUOTA_GROUP\"",
                        "\"groupAfter\":\"root.shared\",\"positionAfter\":2,\"etaAfter\":\"2026-01-01T02:10:00Z\","
                                + "\"stateAfter\":\"ESTIMATED\""));
        run = run("what-if", "tree.yaml");
        assertTrue(run.out().startsWith("No pending job you may see changes place or expected start.\n\nGROUP"),
                run.out());
    }

    @Test
    void whatIfWithoutJqPrintsTheJsonAndKubectlsFailurePassesThrough() throws Exception {
        Files.writeString(dir.resolve("tree.yaml"), TREE);
        answer("create", WHAT_IF);
        Run run = runWithoutJq("what-if", "tree.yaml");
        assertEquals(0, run.exit(), run.err());
        assertEquals(args("create", "--raw", API + "/whatifs", "-f", "tree.yaml"), run.call());
        assertEquals(WHAT_IF + "\n", run.out());

        String forbidden = "Error from server (Forbidden): whatifs.visibility.kube-queue.io is forbidden: User "
                + "\"alice\" cannot create resource \"whatifs\" in API group \"visibility.kube-queue.io\" at the "
                + "cluster scope\n";
        failure("create", forbidden, 1);
        run = run("what-if", "tree.yaml");
        assertEquals(1, run.exit());
        assertEquals(forbidden, run.err());
        assertEquals("", run.out(), "no answer printed, no summary");
    }

    @Test
    void whenTheApiIsNotServedOneMoreLineSaysWhereToLook() throws Exception {
        record Case(String verb, String stderr, List<String> args) {
        }
        String notFound = "Error from server (NotFound): the server could not find the requested resource\n";
        Files.delete(dir.resolve("get.out"));
        for (Case c : List.of(
                new Case("get", "error: the server doesn't have a resource type \"pendingjobs\"\n", args("pending")),
                new Case("get", "error: the server doesn't have a resource type \"quotagroups\"\n", args()),
                new Case("get", """
                        E1204 10:00:00.000000   4242 memcache.go:265] couldn't get current server API group list: \
                        couldn't get resource list for visibility.kube-queue.io/v1alpha1: the server is currently unable \
                        to handle the request
                        error: the server doesn't have a resource type "pendingjobs"
                        """, args("jobs", "root.team-a")),
                new Case("get", notFound, args("job", "team-a/job2", "--kind", "TFJob")),
                new Case("create", notFound, args("dry-run", "job.yaml", "-n", "team-a")))) {
            Files.deleteIfExists(dir.resolve("get.err"));
            Files.deleteIfExists(dir.resolve("get.rc"));
            failure(c.verb(), c.stderr(), 1);
            Run run = run(c.args().toArray(String[]::new));
            assertEquals(1, run.exit(), "kubectl's exit code: " + run.err());
            assertTrue(run.err().startsWith(c.stderr()), "kubectl's error as is, first: " + run.err());
            String added = run.err().substring(c.stderr().length());
            assertEquals(1, added.lines().count(), "one line more: " + added);
            assertTrue(added.startsWith("kubectl-queue: kube-queue's visibility API (visibility.kube-queue.io/v1alpha1) "
                    + HINT), added);
            assertEquals("", run.out());
            assertFalse(run.calls().isEmpty());
        }
    }

    @Test
    void kindsWithoutTheQueuedKindCrdSaysSo() throws Exception {
        Files.delete(dir.resolve("get.out"));
        String stderr = "error: the server doesn't have a resource type \"queuedkinds\"\n";
        failure("get", stderr, 1);
        Run run = run("kinds");
        assertEquals(1, run.exit(), run.err());
        assertEquals(stderr + "kubectl-queue: the QueuedKind CRD (queuedkinds.kube-queue.io) is not installed:"
                + " docs/kinds.md\n", run.err());
        assertWrongCall(run("kinds", "extra"), "kinds takes no argument");
        assertWrongCall(run("kinds", "-n", "team-a"), "declared kinds have no namespace");
    }

    @Test
    void kubectlsFailurePassesThroughWithItsExitCode() throws Exception {
        // an admitted job is not pending: kubectl's 404, with where it was admitted, and nothing more
        String admitted = "Error from server (NotFound): pendingjobs.visibility.kube-queue.io \"job1\" not found: "
                + "admitted in root.team-a\n";
        failure("get", admitted, 1);
        Files.delete(dir.resolve("get.out"));
        Run run = run("job", "team-a/job1");
        assertEquals(1, run.exit());
        assertEquals(admitted, run.err());
        assertEquals("", run.out());

        String forbidden = "Error from server (Forbidden): pendingjobs.visibility.kube-queue.io is forbidden: User "
                + "\"alice\" cannot list resource \"pendingjobs\" in API group \"visibility.kube-queue.io\" in the "
                + "namespace \"team-b\"\n";
        failure("get", forbidden, 1);
        run = run("pending", "-n", "team-b");
        assertEquals(1, run.exit());
        assertEquals(forbidden, run.err());

        // another code, and what kubectl printed on stdout before it failed
        answer("get", "partial\n");
        failure("get", "boom\n", 3);
        run = run("pending");
        assertEquals(3, run.exit());
        assertEquals("partial\n", run.out());
        assertEquals("boom\n", run.err());
        run = run("job", "team-a/job2", "--kind", "TFJob");
        assertEquals(3, run.exit(), "job --kind");
        assertEquals("boom\n", run.err());

        failure("create", "error: the path \"nope.yaml\" does not exist\n", 5);
        answer("create", DRY_RUN);
        run = run("dry-run", "nope.yaml", "-n", "team-a");
        assertEquals(5, run.exit(), "dry-run");
        assertEquals("error: the path \"nope.yaml\" does not exist\n", run.err());
        assertEquals("", run.out(), "no answer printed, no summary");
    }

    @Test
    void kubectlsStderrShowsWhileKubectlStillRuns() throws Exception {
        // a credential plugin's login prompt: the user must see it before kubectl ends
        String prompt = "To sign in, open https://login.example/device and enter the code ABCD-1234\n";
        Files.writeString(dir.resolve("get.wait"), prompt);
        Process p = start(Map.of(), null, "pending");
        boolean seen = false;
        for (int i = 0; i < 100 && !seen; i++) {
            seen = Files.readString(dir.resolve("err")).contains("ABCD-1234");
            if (!seen) {
                Thread.sleep(100);
            }
        }
        boolean stillRunning = p.isAlive();
        Files.writeString(dir.resolve("go"), "");
        Run run = finish(p);
        assertTrue(seen, "the prompt showed: " + run.err());
        assertTrue(stillRunning, "while kubectl was still waiting");
        assertFalse(Files.exists(dir.resolve("waited-out")), "kubectl did not wait in vain");
        assertEquals(0, run.exit(), run.err());
        assertEquals(prompt, run.err());
        assertEquals(TABLE, run.out());
    }

    @Test
    void aWrongCallPrintsTheUsageOnStderrAndExits2() throws Exception {
        for (List<String> line : List.of(args("nonsense"), args("jobs"), args("jobs", "a", "b"), args("queues", "extra"),
                args("pending", "team-a"), args("--bogus"), args("-x"), args("--selector=a=b"), args("--context"),
                args("pending", "--as"), args("-o"), args("pending", "--output="), args("jobs", "root.a,root.b"),
                args("jobs", "quotaGroup=x"))) {
            Run run = run(line.toArray(String[]::new));
            assertWrongCall(run, line.toString());
            assertTrue(run.err().startsWith("kubectl-queue: "), "what is wrong, first: " + run.err());
        }
        assertTrue(run("nonsense").err().startsWith("kubectl-queue: unknown command \"nonsense\"\n"));
        assertTrue(run("--bogus").err().startsWith("kubectl-queue: unknown flag --bogus"));
    }

    @Test
    void helpPrintsTheUsageOnStdoutAndSucceeds() throws Exception {
        // the usage exists once, in the header comment
        String script = Files.readString(PLUGIN);
        assertEquals(1, script.split("\n# Usage:\n", -1).length - 1, "one usage block");
        StringBuilder usage = new StringBuilder();
        boolean on = false;
        for (String line : script.lines().toList()) {
            on |= line.equals("# Usage:");
            if (on && line.equals("#")) {
                break;
            }
            if (on) {
                usage.append(line.replaceFirst("^# ?", "")).append('\n');
            }
        }
        for (String text : List.of("kubectl queue [queues]", "kubectl queue jobs GROUP", "kubectl queue pending",
                USAGE, "kubectl queue dry-run FILE", "kubectl queue what-if FILE", "--strict-priority", "--kind KIND", "-o, --output FORMAT", "--context")) {
            assertTrue(usage.toString().contains(text), text + " in " + usage);
        }
        for (List<String> line : List.of(args("-h"), args("--help"), args("help"), args("pending", "--help"),
                args("--context", "prod", "-h"))) {
            Run run = run(line.toArray(String[]::new));
            assertEquals(0, run.exit(), line + " is a question, not a mistake");
            assertEquals(usage.toString(), run.out(), line.toString());
            assertEquals("", run.err());
            assertTrue(run.calls().isEmpty(), "kubectl was not called");
        }
    }

    @Test
    void theScriptIsBashThatMacOsBash32Reads() throws Exception {
        Process p = new ProcessBuilder(bash(), "-n", PLUGIN.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "bash -n: " + out);

        String code = Files.readString(PLUGIN).lines().filter(l -> !l.stripLeading().startsWith("#"))
                .reduce("", (a, b) -> a + b + "\n");
        assertTrue(code.contains("set -euo pipefail"));
        // nothing newer than bash 3.2
        for (String newer : List.of("\\b(declare|local|typeset)\\s+-\\w*[An]", "\\bmapfile\\b", "\\breadarray\\b",
                "\\bcoproc\\b", "&>>", "\\|&", ";;&", "\\[\\[ -v ", "\\$\\{\\w+(\\[[^\\]]*])?(\\^|,)",
                "\\$\\{[^}]*@[QEPAaKk]}", "\\bwait -n\\b", "EPOCHSECONDS|EPOCHREALTIME|BASH_ARGV0")) {
            Matcher m = Pattern.compile(newer).matcher(code);
            boolean found = m.find();
            assertFalse(found, "newer than bash 3.2: " + (found ? m.group() : ""));
        }
        // under set -u, bash 3.2 calls an empty array unbound: every array is expanded as ${a[@]+"${a[@]}"}
        String safe = code.replaceAll("\\$\\{(\\w+)\\[@]\\+\"\\$\\{\\1\\[@]}\"}", "");
        assertFalse(safe.contains("[@]") || safe.contains("[*]"), "an array expanded without ${a[@]+...}: "
                + safe.lines().filter(l -> l.contains("[@]") || l.contains("[*]")).toList());
        // and it handles no credential any more
        for (String gone : List.of("curl", "kubectl proxy", "KUBE_QUEUE_TOKEN=", "$KUBE_QUEUE_TOKEN", "Authorization")) {
            assertFalse(code.contains(gone), gone);
        }
    }

    @Test
    void shellcheckFindsNothing() throws Exception {
        Optional<Path> shellcheck = onPath("shellcheck");
        Assumptions.assumeTrue(shellcheck.isPresent(), "shellcheck is not installed");
        Process p = new ProcessBuilder(shellcheck.get().toString(), PLUGIN.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
    }

    @Test
    void theKrewManifestRendersToAPluginForEveryPlatform() throws Exception {
        String template = Files.readString(KREW_MANIFEST);
        String tag = "v1.2.3";
        String sha256 = "0123456789abcdef".repeat(4);
        // as the krew-release-bot renders it: addURIAndSha writes "uri: ..." where it stands and "sha256: ..." on the
        // next line at 4 spaces; then .TagName
        Matcher calls = Pattern.compile("^( *)\\{\\{ *addURIAndSha \"([^\"]+)\" \\.TagName *}}$", Pattern.MULTILINE)
                .matcher(template);
        StringBuilder rendered = new StringBuilder();
        int uris = 0;
        while (calls.find()) {
            String uri = calls.group(2).replaceAll("\\{\\{ *\\.TagName *}}", tag);
            calls.appendReplacement(rendered, Matcher.quoteReplacement(
                    calls.group(1) + "uri: " + uri + "\n    sha256: " + sha256));
            uris++;
        }
        calls.appendTail(rendered);
        String manifest = rendered.toString().replaceAll("\\{\\{ *\\.TagName *}}", tag);
        assertFalse(manifest.contains("{{"), "no template action but the bot's two: " + manifest);

        JsonNode plugin = new YAMLMapper().readTree(manifest);
        assertEquals("krew.googlecontainertools.github.com/v1alpha2", plugin.path("apiVersion").asText());
        assertEquals("Plugin", plugin.path("kind").asText());
        String name = plugin.path("metadata").path("name").asText();
        assertEquals(KREW_MANIFEST.getFileName().toString(), name + ".yaml", "krew names the manifest after the plugin");
        assertEquals(PLUGIN.getFileName().toString(), "kubectl-" + name, "kubectl finds kubectl-" + name);
        JsonNode spec = plugin.path("spec");
        assertEquals(tag, spec.path("version").asText());
        for (String field : List.of("homepage", "shortDescription", "description")) {
            assertFalse(spec.path(field).asText().isBlank(), field);
        }
        // it describes the plugin as it is: over the visibility API, not the service proxy
        String text = spec.path("description").asText() + spec.path("caveats").asText();
        assertTrue(text.contains("visibility.kube-queue.io"), text);
        for (String gone : List.of("service proxy", "services/proxy", "KUBE_QUEUE_TOKEN", "curl")) {
            assertFalse(text.contains(gone), gone + " in " + text);
        }

        // the plugin as it lies in GitHub's source archive of the tag (kube-queue-1.2.3/...)
        Path inArchive = Path.of("kube-queue-1.2.3").resolve(Path.of("").toAbsolutePath().relativize(PLUGIN));
        Set<String> platforms = new HashSet<>();
        JsonNode list = spec.path("platforms");
        assertEquals(uris, list.size(), "one addURIAndSha per platform");
        for (JsonNode platform : list) {
            JsonNode labels = platform.path("selector").path("matchLabels");
            assertTrue(labels.isObject(), "a selector: " + platform);
            platforms.add(labels.path("os").asText() + "/" + labels.path("arch").asText());
            assertTrue(platform.path("uri").asText().startsWith("https://"), "a uri: " + platform);
            assertTrue(platform.path("uri").asText().contains(tag), "the tag's archive: " + platform);
            assertTrue(platform.path("sha256").asText().matches("[0-9a-f]{64}"), "a sha256: " + platform);
            assertEquals(PLUGIN.getFileName().toString(), platform.path("bin").asText());
            JsonNode files = platform.path("files");
            assertTrue(files.isArray() && !files.isEmpty(), "files: " + platform);
            boolean found = false;
            for (JsonNode file : files) {
                assertNotNull(file.get("to"), "files need a to: " + file);
                found |= FileSystems.getDefault().getPathMatcher("glob:" + file.path("from").asText()).matches(inArchive)
                        && file.path("to").asText().equals(".");
            }
            assertTrue(found, "the plugin is copied from " + inArchive + " to the plugin's root: " + files);
        }
        assertEquals(Set.of("linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"), platforms);
    }
}
