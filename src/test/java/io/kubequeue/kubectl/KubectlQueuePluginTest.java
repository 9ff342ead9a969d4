package io.kubequeue.kubectl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * The {@code kubectl-queue} plugin (src/main/kubectl), run against stand-ins on PATH: a {@code kubectl} that records
 * every call and answers as kube-queue's API would through the service proxy (for {@code kubectl proxy
 * --unix-socket=PATH} it records PATH and its directory's mode, listens on a real unix socket there, with python3, and
 * stays up until killed), and a {@code curl} that records the URL, method, headers, unix socket and what it read on
 * stdin and answers a canned JSON or an HTTP error. Also its krew manifest (src/main/kubectl/krew/queue.yaml),
 * rendered as the krew-release-bot renders it.
 */
class KubectlQueuePluginTest {

    private static final Path PLUGIN = Path.of("src/main/kubectl/kubectl-queue").toAbsolutePath();
    private static final Path KREW_MANIFEST = Path.of("src/main/kubectl/krew/queue.yaml");
    private static final String PROXY = "/api/v1/namespaces/kube-queue/services/kube-queue-controller:http/proxy/api/v1";
    /** curl's URL through kubectl proxy's unix socket: kubectl proxy accepts Host localhost. */
    private static final String PROXY_URL = "http://localhost";
    private static final String QUEUES = """
            [{"name":"root.defaultQuotaGroup","parent":"root","policy":"DEFAULT","min":{},"max":{"cpu":"4","memory":"4Gi"},\
            "used":{"cpu":"4","memory":"512Mi"},"outside":{},"pending":1,"admitted":2}]""";
    private static final String JOBS = """
            [{"kind":"Job","namespace":"team-a","name":"batch-a","group":"root.defaultQuotaGroup","state":"HELD",\
            "position":1,"priority":5,"request":{"cpu":"2"},"retryAt":null,"reason":"cpu: request 2, in use 4 of max 4"},\
            {"kind":"TFJob","namespace":"team-b","name":"train-b","group":"root.defaultQuotaGroup","state":"BACKOFF",\
            "position":2,"priority":0,"request":{"cpu":"1","memory":"1Gi"},"retryAt":"2030-01-01T00:00:00Z",\
            "reason":"waits behind batch-a"}]""";
    private static final String TOKEN_HINT = "set KUBE_QUEUE_TOKEN, e.g. KUBE_QUEUE_TOKEN=$(kubectl create token NAME -n NS)";

    @TempDir
    Path dir;

    /**
     * One run of the plugin.
     *
     * @param exit        its exit code
     * @param out         its stdout and stderr
     * @param kubectlArgs the arguments of its {@code kubectl get --raw} or {@code create --raw} call; empty if none
     * @param calls       the arguments of every kubectl call, in order
     */
    record Run(int exit, String out, List<String> kubectlArgs, List<List<String>> calls) {
    }

    @BeforeEach
    void standIns() throws IOException {
        answer(QUEUES);
        script("kubectl", """
                #!/usr/bin/env bash
                d='%s'
                (IFS=$'\\t'; printf '%%s\\n' "$*") >> "$d/kubectl.calls"
                [ "$1" != --context ] || shift 2
                case "$1" in
                  config)
                    case "$*" in
                      *user.token*) cat "$d/kubeconfig-token" 2>/dev/null ;;
                      *exec.command*) jq -r .command "$d/exec.json" 2>/dev/null ;;
                      *'-o json'*) printf '{"users":[{"name":"u","user":{"exec":%%s}}]}\\n' "$(cat "$d/exec.json")" ;;
                    esac ;;
                  proxy)
                    echo $$ > "$d/proxy.pid"
                    if [ -f "$d/proxy-fails" ]; then cat "$d/proxy-fails" >&2; exit 1; fi
                    socket=""
                    for a in "$@"; do case "$a" in --unix-socket=*) socket=${a#*=} ;; esac; done
                    [ -n "$socket" ] || { echo "stand-in: no --unix-socket=PATH" >&2; exit 1; }
                    exec python3 "$d/proxy.py" "$socket" "$d" ;;
                  get|create)
                    if [ -f "$d/kubectl-error" ]; then cat "$d/kubectl-error" >&2; exit 1; fi
                    cat "$d/answer.json" ;;
                esac
                """.formatted(dir));
        script("curl", """
                #!/usr/bin/env bash
                d='%s'
                (IFS=$'\\t'; printf '%%s\\n' "$*") > "$d/curl.argv"
                out=/dev/stdout; format=""; method=GET
                while [ $# -gt 0 ]; do
                  case "$1" in
                    --config) [ "$2" != - ] || cat > "$d/curl.stdin"; shift 2 ;;
                    -o) out=$2; shift 2 ;;
                    -w) format=$2; shift 2 ;;
                    -H) printf '%%s\\n' "$2" >> "$d/curl.headers"; shift 2 ;;
                    --unix-socket)
                      printf '%%s' "$2" > "$d/curl.socket"
                      [ ! -S "$2" ] || printf 'listening' > "$d/curl.socket-state"
                      shift 2 ;;
                    --data-binary) method=POST; cat "${2#@}" > "$d/curl.body"; shift 2 ;;
                    -*) shift ;;
                    *) printf '%%s' "$1" > "$d/curl.url"; shift ;;
                  esac
                done
                printf '%%s' "$method" > "$d/curl.method"
                status=$(cat "$d/curl.status" 2>/dev/null || echo 200)
                if [ "$status" = 200 ]; then cat "$d/answer.json" > "$out"; else echo '{"error":"no"}' > "$out"; fi
                [ -z "$format" ] || printf '%%s' "$status"
                [ "$status" -lt 400 ] || exit 22
                """.formatted(dir));
        // kubectl proxy --unix-socket=PATH: a moment late (the plugin must wait for the socket), then a real socket,
        // its path and its directory's mode recorded first
        Files.writeString(dir.resolve("proxy.py"), """
                import os, socket, sys, time
                path, d = sys.argv[1], sys.argv[2]
                with open(os.path.join(d, "proxy.socket"), "w") as f:
                    f.write(path)
                with open(os.path.join(d, "proxy.socket-dir-mode"), "w") as f:
                    f.write("%o" % (os.stat(os.path.dirname(path)).st_mode & 0o7777))
                time.sleep(0.3)
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.bind(path)
                s.listen(1)
                print("Starting to serve on " + path, flush=True)
                time.sleep(600)
                """);
    }

    /** A stand-in kubectl proxy the plugin failed to stop must not outlive the test. */
    @AfterEach
    void stopLeftovers() throws IOException {
        Path pid = dir.resolve("proxy.pid");
        if (Files.exists(pid)) {
            ProcessHandle.of(Long.parseLong(Files.readString(pid).strip())).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private void script(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        assertTrue(file.toFile().setExecutable(true));
    }

    private void answer(String json) throws IOException {
        Files.writeString(dir.resolve("answer.json"), json);
    }

    private Run run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return run(env, null, args);
    }

    private Run run(Map<String, String> env, Path stdin, String... args) throws IOException, InterruptedException {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/bash")) || Files.isExecutable(Path.of("/usr/bin/bash")),
                "the plugin is a bash script");
        for (String record : List.of("kubectl.calls", "proxy.socket", "proxy.socket-dir-mode", "curl.socket",
                "curl.socket-state")) {
            Files.deleteIfExists(dir.resolve(record));
        }
        List<String> command = new ArrayList<>(List.of("bash", PLUGIN.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        for (String name : List.of("KUBE_QUEUE_TOKEN", "KUBECTL_QUEUE_OUTPUT", "KUBE_QUEUE_NAMESPACE", "KUBE_QUEUE_SERVICE")) {
            pb.environment().remove(name);
        }
        pb.environment().put("PATH", dir + ":" + System.getenv("PATH"));
        pb.environment().putAll(env);
        if (stdin != null) {
            pb.redirectInput(stdin.toFile());
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        Path recorded = dir.resolve("kubectl.calls");
        List<List<String>> calls = Files.exists(recorded)
                ? Files.readAllLines(recorded).stream().map(l -> List.of(l.split("\t"))).toList()
                : List.of();
        List<String> raw = calls.stream().filter(c -> {
            List<String> a = withoutContext(c);
            return !a.isEmpty() && (a.get(0).equals("get") || a.get(0).equals("create"));
        }).reduce((first, second) -> second).orElse(List.of());
        return new Run(p.exitValue(), out, raw, calls);
    }

    private static List<String> withoutContext(List<String> call) {
        return call.size() >= 2 && call.get(0).equals("--context") ? call.subList(2, call.size()) : call;
    }

    private String recorded(String name) throws IOException {
        Path file = dir.resolve(name);
        return Files.exists(file) ? Files.readString(file) : "";
    }

    /**
     * The plugin's kubectl proxy call: {@code proxy --unix-socket=PATH} and nothing else (after {@code --context}), so
     * no {@code --port}; PATH is absolute. Returns PATH.
     */
    private static Path proxySocket(List<String> call) {
        List<String> args = withoutContext(call);
        assertEquals(2, args.size(), "kubectl proxy --unix-socket=PATH: " + call);
        assertEquals("proxy", args.get(0), call.toString());
        assertTrue(args.get(1).startsWith("--unix-socket="), "a unix socket: " + call);
        for (String arg : call) {
            assertFalse(arg.startsWith("--port") || arg.startsWith("-p") || arg.startsWith("--address"),
                    "no port: " + call);
        }
        Path socket = Path.of(args.get(1).substring("--unix-socket=".length()));
        assertTrue(socket.isAbsolute(), socket.toString());
        return socket;
    }

    /** The plugin's one kubectl proxy call, after whatever kubectl config calls came first. */
    private static Path proxySocket(Run run) {
        List<List<String>> proxies = run.calls().stream().filter(c -> withoutContext(c).get(0).equals("proxy")).toList();
        assertEquals(1, proxies.size(), "one kubectl proxy: " + run.calls());
        assertEquals(proxies.get(0), run.calls().get(run.calls().size() - 1), "kubectl proxy comes last");
        return proxySocket(proxies.get(0));
    }

    /**
     * The stand-in kubectl proxy was started on a unix socket in a directory of the plugin's own that no one else could
     * enter, and both the proxy and that directory are gone now that the plugin has exited.
     */
    private void assertProxyStopped(Run run) throws IOException {
        Path pid = dir.resolve("proxy.pid");
        assertTrue(Files.exists(pid), "kubectl proxy was started");
        long id = Long.parseLong(Files.readString(pid).strip());
        assertFalse(ProcessHandle.of(id).map(ProcessHandle::isAlive).orElse(false), "kubectl proxy is stopped");
        Path socket = proxySocket(run);
        assertEquals(socket.toString(), recorded("proxy.socket"), "the stand-in proxy listened where it was told");
        assertTrue(socket.getParent().getFileName().toString().startsWith("kubectl-queue."),
                "in the plugin's own temporary directory: " + socket);
        int mode = Integer.parseInt(recorded("proxy.socket-dir-mode"), 8);
        assertEquals(0, mode & 0077, "no one but its owner may enter " + socket.getParent() + ": "
                + Integer.toOctalString(mode));
        assertFalse(Files.exists(socket.getParent(), LinkOption.NOFOLLOW_LINKS),
                socket.getParent() + " is removed");
    }

    /** curl went to kubectl proxy's unix socket, once it listened, and to no TCP address. */
    private void assertCurlUsedTheSocket(Run run) throws IOException {
        assertEquals(proxySocket(run).toString(), recorded("curl.socket"), "curl --unix-socket " + recorded("curl.argv"));
        assertEquals("listening", recorded("curl.socket-state"), "curl ran once the proxy's socket was there");
        assertTrue(recorded("curl.url").startsWith(PROXY_URL + "/"), recorded("curl.url"));
        assertFalse(recorded("curl.argv").contains("127.0.0.1"), recorded("curl.argv"));
    }

    /** The stand-in kubectl proxy listens on its unix socket with python3. */
    private static void assumeProxyStandIn() {
        Assumptions.assumeTrue(onPath("python3"), "the stand-in kubectl proxy needs python3 for its unix socket");
    }

    /** Neither kubectl nor curl had the token on its command line. */
    private void assertTokenOnNoCommandLine(Run run, String token) throws IOException {
        for (List<String> call : run.calls()) {
            assertFalse(String.join(" ", call).contains(token), "kubectl " + call);
        }
        assertFalse(recorded("curl.argv").contains(token), "curl " + recorded("curl.argv"));
    }

    private static boolean jq() {
        return onPath("jq");
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv("PATH").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    /** A table's cells: column pads with two spaces or more, and without column the cells are tab-separated. */
    private static List<String> cells(String line) {
        return List.of(line.trim().split("\t|\\s{2,}"));
    }

    @Test
    void eachCommandAsksTheServiceProxyForItsPath() throws Exception {
        Files.writeString(dir.resolve("job.yaml"), "kind: Job\n");
        Map<String, String> raw = Map.of("KUBECTL_QUEUE_OUTPUT", "json");
        assertEquals(List.of("get", "--raw", PROXY + "/queues"), run(raw).kubectlArgs());
        assertEquals(List.of("get", "--raw", PROXY + "/queues/root.defaultQuotaGroup/jobs"),
                run(raw, "jobs", "root.defaultQuotaGroup").kubectlArgs());
        assertEquals(List.of("get", "--raw", PROXY + "/jobs/default/batch-c"),
                run(raw, "job", "default/batch-c").kubectlArgs());
        assertEquals(List.of("create", "--raw", PROXY + "/dry-run", "-f", "job.yaml"),
                run(raw, "dry-run", "job.yaml").kubectlArgs());
        assertEquals(List.of("get", "--raw", "/api/v1/namespaces/ops/services/kq:http/proxy/api/v1/queues"),
                run(Map.of("KUBE_QUEUE_NAMESPACE", "ops", "KUBE_QUEUE_SERVICE", "kq:http",
                        "KUBECTL_QUEUE_OUTPUT", "json")).kubectlArgs());
    }

    @Test
    void rawOutputIsTheApisAnswer() throws Exception {
        Run run = run(Map.of("KUBECTL_QUEUE_OUTPUT", "json"), "queues");
        assertEquals(0, run.exit());
        assertEquals(QUEUES, run.out().strip());
        for (List<String> flags : List.of(List.of("-o", "json"), List.of("-ojson"), List.of("--output", "json"),
                List.of("--output=json"), List.of("queues", "-o", "json"), List.of("-o", "json", "queues"))) {
            run = run(Map.of(), flags.toArray(String[]::new));
            assertEquals(0, run.exit(), flags + ": " + run.out());
            assertEquals(QUEUES, run.out().strip(), flags.toString());
        }
    }

    @Test
    void queuesPrintAsATable() throws Exception {
        Assumptions.assumeTrue(jq(), "tables need jq");
        Run run = run(Map.of());
        assertEquals(0, run.exit(), run.out());
        List<String> lines = run.out().lines().toList();
        assertEquals(List.of("GROUP", "PENDING", "ADMITTED", "CPU", "USED/MAX", "MEMORY", "USED/MAX", "POLICY"),
                List.of(lines.get(0).trim().split("\\s+")));
        assertEquals(List.of("root.defaultQuotaGroup", "1", "2", "4/4", "512Mi/4Gi", "DEFAULT"),
                List.of(lines.get(1).trim().split("\\s+")));
    }

    @Test
    void wideOutputAddsColumns() throws Exception {
        Assumptions.assumeTrue(jq(), "tables need jq");
        answer("""
                [{"name":"root.gpu","parent":"root","policy":"DEFAULT","min":{"cpu":"2"},"max":{"cpu":"8",\
                "memory":"8Gi","nvidia.com/gpu":"4"},"used":{"cpu":"4","memory":"1Gi","nvidia.com/gpu":"1"},\
                "outside":{"cpu":"500m"},"pending":0,"admitted":1}]""");
        Run run = run(Map.of(), "-o", "wide");
        assertEquals(0, run.exit(), run.out());
        List<String> lines = run.out().lines().toList();
        assertEquals(List.of("GROUP", "PENDING", "ADMITTED", "CPU USED/MAX", "MEMORY USED/MAX", "POLICY", "PARENT", "MIN",
                "OUTSIDE", "OTHER USED/MAX"), cells(lines.get(0)));
        assertEquals(List.of("root.gpu", "0", "1", "4/8", "1Gi/8Gi", "DEFAULT", "root", "cpu=2", "cpu=500m",
                "nvidia.com/gpu=1/4"), cells(lines.get(1)));

        answer(JOBS);
        run = run(Map.of(), "jobs", "root.defaultQuotaGroup", "--output=wide");
        assertEquals(0, run.exit(), run.out());
        lines = run.out().lines().toList();
        assertEquals(List.of("POS", "KIND", "NAMESPACE", "NAME", "PRIORITY", "STATE", "GROUP", "REQUEST", "RETRY AT",
                "REASON"), cells(lines.get(0)));
        assertEquals(List.of("2", "TFJob", "team-b", "train-b", "0", "BACKOFF", "root.defaultQuotaGroup",
                "cpu=1,memory=1Gi", "2030-01-01T00:00:00Z", "waits behind batch-a"), cells(lines.get(2)));

        answer("""
                {"kind":"Job","namespace":"team-a","name":"batch-a","group":"root.defaultQuotaGroup","state":"HELD",\
                "position":1,"priority":5,"request":{"cpu":"2"},"retryAt":null,"reason":"full"}""");
        run = run(Map.of(), "job", "team-a/batch-a", "-owide");
        assertEquals(0, run.exit(), run.out());
        lines = run.out().lines().toList();
        assertEquals(List.of("KIND", "NAMESPACE", "NAME", "GROUP", "POS", "STATE", "PRIORITY", "REQUEST", "RETRY AT",
                "REASON"), cells(lines.get(0)));
        assertEquals(List.of("Job", "team-a", "batch-a", "root.defaultQuotaGroup", "1", "HELD", "5", "cpu=2", "-",
                "full"), cells(lines.get(1)));
    }

    @Test
    void contextReachesEveryKubectlCall() throws Exception {
        Files.writeString(dir.resolve("job.yaml"), "kind: Job\n");
        // without a token: config view (looking for one), then get --raw / create --raw
        for (String[] args : List.of(new String[] {"--context", "prod", "-o", "json"},
                new String[] {"dry-run", "job.yaml", "--context=prod", "-o", "json"})) {
            Run run = run(Map.of(), args);
            assertEquals(0, run.exit(), run.out());
            assertFalse(run.kubectlArgs().isEmpty(), "the API was called through kubectl");
            assertTrue(run.calls().size() >= 2, run.calls().toString());
            for (List<String> call : run.calls()) {
                assertEquals(List.of("--context", "prod"), call.subList(0, 2), call.toString());
            }
        }
        // with the kubeconfig's token: config view, then kubectl proxy
        assumeProxyStandIn();
        Files.writeString(dir.resolve("kubeconfig-token"), "kubeconfig-token-1");
        Run run = run(Map.of(), "queues", "--context", "prod", "-o", "json");
        assertEquals(0, run.exit(), run.out());
        assertEquals(2, run.calls().size(), run.calls().toString());
        assertEquals(List.of("--context", "prod", "config", "view", "--raw", "--minify", "-o",
                "jsonpath={.users[0].user.token}"), run.calls().get(0));
        assertEquals(List.of("--context", "prod", "proxy", "--unix-socket=" + proxySocket(run)), run.calls().get(1));
        assertProxyStopped(run);
    }

    @Test
    void namespaceFlagNamesTheJobsNamespace() throws Exception {
        Map<String, String> raw = Map.of("KUBECTL_QUEUE_OUTPUT", "json");
        for (String[] args : List.of(new String[] {"job", "batch-c", "-n", "default"},
                new String[] {"-n", "default", "job", "batch-c"}, new String[] {"job", "batch-c", "-ndefault"},
                new String[] {"job", "--namespace", "default", "batch-c"},
                new String[] {"job", "batch-c", "--namespace=default"},
                new String[] {"job", "default/batch-c", "-n", "default"})) {
            Run run = run(raw, args);
            assertEquals(0, run.exit(), Arrays.toString(args) + ": " + run.out());
            assertEquals(List.of("get", "--raw", PROXY + "/jobs/default/batch-c"), run.kubectlArgs(),
                    Arrays.toString(args));
        }
        for (String[] args : List.of(new String[] {"job", "default/batch-c", "-n", "other"},
                new String[] {"job", "batch-c"}, new String[] {"job", "batch-c", "-n"},
                new String[] {"queues", "-n", "default"})) {
            Run run = run(raw, args);
            assertEquals(2, run.exit(), Arrays.toString(args) + ": " + run.out());
            assertTrue(run.calls().isEmpty(), "kubectl was not called: " + run.calls());
        }
    }

    @Test
    void namespaceFlagKeepsOnlyThatNamespacesJobs() throws Exception {
        Assumptions.assumeTrue(jq(), "the filter needs jq");
        answer(JOBS);
        Run run = run(Map.of(), "jobs", "root.defaultQuotaGroup", "-n", "team-b", "-o", "json");
        assertEquals(0, run.exit(), run.out());
        assertEquals(List.of("get", "--raw", PROXY + "/queues/root.defaultQuotaGroup/jobs"), run.kubectlArgs());
        JsonNode jobs = new ObjectMapper().readTree(run.out());
        assertEquals(1, jobs.size(), run.out());
        assertEquals("train-b", jobs.get(0).get("name").asText());

        run = run(Map.of(), "jobs", "root.defaultQuotaGroup", "--namespace", "team-a");
        assertEquals(0, run.exit(), run.out());
        List<String> lines = run.out().lines().toList();
        assertEquals(2, lines.size(), run.out());
        assertEquals(List.of("1", "Job", "team-a", "batch-a", "5", "HELD", "cpu: request 2, in use 4 of max 4"),
                cells(lines.get(1)));
    }

    @Test
    void helpPrintsTheUsageAndSucceeds() throws Exception {
        for (String flag : List.of("-h", "--help", "help")) {
            Run run = run(Map.of(), flag);
            assertEquals(0, run.exit(), flag + " is a question, not a mistake");
            for (String text : List.of("kubectl queue job NAMESPACE/NAME", "--context NAME", "-n, --namespace NS",
                    "-o, --output json|wide", "KUBE_QUEUE_TOKEN")) {
                assertTrue(run.out().contains(text), text + " in " + run.out());
            }
            assertTrue(run.calls().isEmpty(), "kubectl was not called");
        }
    }

    @Test
    void aWrongCallPrintsTheUsageAndFails() throws Exception {
        for (String[] args : List.of(new String[] {"job", "no-slash"}, new String[] {"-o", "yaml"},
                new String[] {"--output=name"}, new String[] {"--bogus"}, new String[] {"--context"},
                new String[] {"jobs"}, new String[] {"queues", "extra"}, new String[] {"nonsense"})) {
            Run run = run(Map.of(), args);
            assertEquals(2, run.exit(), Arrays.toString(args));
            assertTrue(run.out().contains("kubectl queue job NAMESPACE/NAME"), run.out());
            assertTrue(run.calls().isEmpty(), "kubectl was not called: " + run.calls());
        }
    }

    @Test
    void tokenFromTheEnvironmentTravelsInTheHeaderThroughKubectlProxy() throws Exception {
        assumeProxyStandIn();
        String token = "env-token-4f8a2c";
        Run run = run(Map.of("KUBE_QUEUE_TOKEN", token), "-o", "json");
        assertEquals(0, run.exit(), run.out());
        assertEquals(QUEUES, run.out().strip());
        // KUBE_QUEUE_TOKEN comes first: no kubeconfig lookup, no kubectl get --raw; the proxy on a unix socket
        assertEquals(List.of(List.of("proxy", "--unix-socket=" + proxySocket(run))), run.calls());
        assertCurlUsedTheSocket(run);
        assertEquals(PROXY_URL + PROXY + "/queues", recorded("curl.url"));
        assertEquals("GET", recorded("curl.method"));
        assertEquals("header = \"X-Kube-Queue-Authorization: Bearer " + token + "\"", recorded("curl.stdin").strip());
        assertFalse(recorded("curl.argv").contains("--fail-with-body"), "needs curl 7.76+: " + recorded("curl.argv"));
        assertTokenOnNoCommandLine(run, token);
        assertProxyStopped(run);
    }

    @Test
    void tokenFromTheKubeconfigTravelsInTheHeader() throws Exception {
        assumeProxyStandIn();
        String token = "kubeconfig-token-91d3";
        Files.writeString(dir.resolve("kubeconfig-token"), token);
        answer(JOBS);
        Run run = run(Map.of(), "jobs", "root.defaultQuotaGroup", "-o", "json");
        assertEquals(0, run.exit(), run.out());
        assertEquals(JOBS, run.out().strip());
        assertEquals(List.of(List.of("config", "view", "--raw", "--minify", "-o", "jsonpath={.users[0].user.token}"),
                List.of("proxy", "--unix-socket=" + proxySocket(run))), run.calls());
        assertEquals(PROXY_URL + PROXY + "/queues/root.defaultQuotaGroup/jobs", recorded("curl.url"));
        assertCurlUsedTheSocket(run);
        assertEquals("header = \"X-Kube-Queue-Authorization: Bearer " + token + "\"", recorded("curl.stdin").strip());
        assertTokenOnNoCommandLine(run, token);
        assertProxyStopped(run);
    }

    @Test
    void tokenFromTheKubeconfigsExecPluginTravelsInTheHeader() throws Exception {
        Assumptions.assumeTrue(jq(), "running an exec credential plugin needs jq");
        assumeProxyStandIn();
        String token = "exec-token-77b0";
        script("credential", """
                #!/usr/bin/env bash
                d='%s'
                printf '%%s\\n' "$@" > "$d/credential.args"
                printf '%%s' "$CREDENTIAL_REGION" > "$d/credential.env"
                printf '%%s' "$KUBERNETES_EXEC_INFO" > "$d/credential.info"
                echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}'
                """.formatted(dir, token));
        Files.writeString(dir.resolve("exec.json"), """
                {"apiVersion":"client.authentication.k8s.io/v1","command":"%s","args":["--cluster","c 1"],\
                "env":[{"name":"CREDENTIAL_REGION","value":"eu west"}],"interactiveMode":"IfAvailable"}"""
                .formatted(dir.resolve("credential")));
        Run run = run(Map.of(), "--context", "prod", "-o", "json");
        assertEquals(0, run.exit(), run.out());
        assertEquals(QUEUES, run.out().strip());
        assertEquals("header = \"X-Kube-Queue-Authorization: Bearer " + token + "\"", recorded("curl.stdin").strip());
        // run as kubectl runs it: its args, its env, and the ExecCredential request
        assertEquals(List.of("--cluster", "c 1"), Files.readAllLines(dir.resolve("credential.args")));
        assertEquals("eu west", recorded("credential.env"));
        JsonNode info = new ObjectMapper().readTree(recorded("credential.info"));
        assertEquals("ExecCredential", info.get("kind").asText());
        assertEquals("client.authentication.k8s.io/v1", info.get("apiVersion").asText());
        assertFalse(info.get("spec").get("interactive").asBoolean(), "no terminal here");
        for (List<String> call : run.calls()) {
            assertEquals(List.of("--context", "prod"), call.subList(0, 2), call.toString());
        }
        assertCurlUsedTheSocket(run);
        assertTokenOnNoCommandLine(run, token);
        assertProxyStopped(run);
    }

    @Test
    void withoutJqKubectlRunsTheExecPluginAndItsPromptShows() throws Exception {
        // a PATH with the tools the plugin uses, the stand-ins, and no jq
        Path bin = Files.createDirectory(dir.resolve("bin-without-jq"));
        for (String tool : List.of("bash", "cat", "head", "tail", "grep", "awk", "mktemp", "rm", "sleep", "column")) {
            for (String d : System.getenv("PATH").split(":")) {
                if (Files.isExecutable(Path.of(d, tool))) {
                    Files.createSymbolicLink(bin.resolve(tool), Path.of(d, tool));
                    break;
                }
            }
        }
        Files.createSymbolicLink(bin.resolve("kubectl"), dir.resolve("kubectl"));
        Files.createSymbolicLink(bin.resolve("curl"), dir.resolve("curl"));
        // the fake answers the exec plugin's command through jq, which is missing: give it its own answer
        script("kubectl", recorded("kubectl").replace("jq -r .command \"$d/exec.json\" 2>/dev/null",
                "echo kubelogin").replace("  get|create)\n",
                "  get|create)\n    echo 'To sign in, open https://login.example and enter the code ABCD' >&2\n"));
        Run run = run(Map.of("PATH", bin.toString()), "-o", "json");
        assertEquals(0, run.exit(), run.out());
        assertTrue(run.out().contains("(kubelogin) needs jq; without it, no token is sent"), run.out());
        assertTrue(run.out().contains("enter the code ABCD"), "kubectl's login prompt reaches the user: " + run.out());
        assertTrue(run.out().contains(QUEUES), run.out());
        assertEquals(List.of("get", "--raw", PROXY + "/queues"), run.kubectlArgs());
    }

    @Test
    void dryRunPostsTheManifestWithTheToken() throws Exception {
        assumeProxyStandIn();
        String manifest = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: big\n";
        Files.writeString(dir.resolve("job.yaml"), manifest);
        answer("""
                {"managed":true,"kind":"Job","namespace":"default","name":"big","group":"root.defaultQuotaGroup",\
                "request":{"cpu":"6"},"priority":0,"fitsNow":false,"position":0,"reason":"never fits"}""");
        Run run = run(Map.of("KUBE_QUEUE_TOKEN", "dry-run-token"), "dry-run", "job.yaml", "-o", "json");
        assertEquals(0, run.exit(), run.out());
        assertEquals(PROXY_URL + PROXY + "/dry-run", recorded("curl.url"));
        assertEquals("POST", recorded("curl.method"));
        assertEquals(manifest, recorded("curl.body"));
        assertTrue(recorded("curl.headers").contains("Content-Type: application/yaml"), recorded("curl.headers"));
        assertTrue(recorded("curl.stdin").contains("Bearer dry-run-token"));
        assertCurlUsedTheSocket(run);
        assertProxyStopped(run);

        // the manifest on stdin: curl's stdin carries the header, so the plugin hands it the manifest as a file
        Files.delete(dir.resolve("curl.body"));
        run = run(Map.of("KUBE_QUEUE_TOKEN", "dry-run-token"), dir.resolve("job.yaml"), "dry-run", "-", "-o", "json");
        assertEquals(0, run.exit(), run.out());
        assertEquals(manifest, recorded("curl.body"));
        assertProxyStopped(run);
    }

    @Test
    void unauthorizedSaysWhereTheTokenComesFromAndFails() throws Exception {
        assumeProxyStandIn();
        Files.writeString(dir.resolve("curl.status"), "401");
        Run run = run(Map.of("KUBE_QUEUE_TOKEN", "expired-token"));
        assertEquals(1, run.exit(), run.out());
        assertTrue(run.out().contains(TOKEN_HINT), run.out());
        assertEquals(1, run.out().strip().lines().count(), "one line: " + run.out());
        assertProxyStopped(run);

        // no token anywhere: kubectl get --raw, and kube-queue's 401 as kubectl reports it
        Files.writeString(dir.resolve("kubectl-error"), "error: You must be logged in to the server (Unauthorized)\n");
        run = run(Map.of());
        assertEquals(1, run.exit(), run.out());
        assertTrue(run.out().contains(TOKEN_HINT), run.out());
        assertEquals(1, run.out().strip().lines().count(), "one line: " + run.out());
    }

    @Test
    void forbiddenSaysWhichRightIsMissingAndFails() throws Exception {
        assumeProxyStandIn();
        Files.writeString(dir.resolve("curl.status"), "403");
        Run run = run(Map.of("KUBE_QUEUE_TOKEN", "some-token"), "job", "secret/job-x");
        assertEquals(1, run.exit(), run.out());
        assertTrue(run.out().contains("forbidden (403)"), run.out());
        assertProxyStopped(run);
    }

    @Test
    void aProxyThatStopsAtOnceFailsWithItsErrorOnOneLine() throws Exception {
        // no python3 needed: this stand-in proxy never listens
        Files.writeString(dir.resolve("proxy-fails"),
                "error: listen unix /somewhere/proxy.sock: bind: address already in use\nsecond line\n");
        Run run = run(Map.of("KUBE_QUEUE_TOKEN", "some-token"), "-o", "json");
        assertEquals(1, run.exit(), run.out());
        assertEquals("kubectl-queue: kubectl proxy stopped before it served: error: listen unix /somewhere/proxy.sock: "
                + "bind: address already in use; second line", run.out().strip(), "one line, with the proxy's error");
        assertFalse(Files.exists(dir.resolve("curl.argv")), "curl was not called");
        Path socket = proxySocket(run);
        assertFalse(Files.exists(socket.getParent(), LinkOption.NOFOLLOW_LINKS), socket.getParent() + " is removed");
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
