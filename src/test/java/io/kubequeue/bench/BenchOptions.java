package io.kubequeue.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The benchmark's command line (docs/performance.md lists every option).
 *
 * @param loads        the loads to run, in order: {@code baseline}, {@code burst}, {@code large}, {@code varied}, or the backlog
 *                     load once per size, {@code backlog-0} (none) first ({@link Load#named})
 * @param policies     the queue policies to run kube-queue under, in order
 * @param inFlight     admission patches in flight: the reference's and the probe's concurrency, and kube-queue's
 *                     {@code KUBE_QUEUE_ADMISSION_IN_FLIGHT} when {@link #inFlightGiven}
 * @param inFlightGiven whether {@code --in-flight} was given (only then is it passed to kube-queue)
 * @param writeLatency how long the embedded API server holds back its answer to a POST, PUT, PATCH or DELETE
 * @param readLatency  the same for a GET that is not a watch
 * @param writeRate    the embedded server's write budget, writes a second of all clients together ({@link WriteBudget});
 *                     0 for none
 * @param heap         kube-queue's {@code -Xmx} (e.g. {@code 128m}), or null for the shipped options alone
 * @param scale        factor applied to every job count (1 = 15,000 baseline jobs, 10,000 burst jobs)
 * @param kubeconfig   a cluster to run against instead of the embedded API server, or null
 * @param runs         which admitters and measurements to run: {@code kube-queue}, {@code reference}, {@code probe}
 * @param timeout      how long one run may take from its first submission before it is abandoned (and fails)
 * @param mock         the embedded server's store: {@code indexed} (names looked up in a hash index) or
 *                     {@code plain} (fabric8's own CRUD store, which scans every object per request)
 * @param podLimits    whether kube-queue's JVM is told the Deployment's container limits (memory → {@code -XX:MaxRAM},
 *                     cpu → {@code -XX:ActiveProcessorCount}), as it would see them in its pod
 * @param jar          the kube-queue artifact to run
 * @param manifests    the generated manifests whose Deployment gives the JVM options, env and limits
 * @param estimatePoll time between two reads of kube-queue's read API for the start-time estimates (one quota group
 *                     a read, round-robin), or zero for none ({@code --estimate-poll off})
 */
record BenchOptions(List<String> loads, List<Policy> policies, int inFlight, boolean inFlightGiven,
                    Duration writeLatency, Duration readLatency, int writeRate, String heap, double scale, Path kubeconfig,
                    Set<String> runs, Duration timeout, String mock, boolean podLimits, Path jar, Path manifests,
                    Duration estimatePoll) {

    static final String USAGE = """
            usage: BenchMain [--load baseline|burst|large|varied|backlog|all] [--backlog N,N,...]
                             [--policy strict|default|blocking|both|all] [--in-flight N]
                             [--latency DURATION] [--read-latency DURATION] [--write-rate N|off] [--heap SIZE] [--scale F]
                             [--kubeconfig PATH] [--runs kube-queue,reference,probe] [--timeout DURATION]
                             [--mock indexed|plain] [--pod-limits on|off] [--jar PATH] [--manifests PATH]
                             [--estimate-poll DURATION|off]
              DURATION: 150ms, 2s, 20m, 0""";

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)?");
    /**
     * The default write budget: the raw patch rate the probe measured against a real kube-apiserver + etcd on the
     * development machine (issue 27: 500-510 patches/s).
     */
    static final int DEFAULT_WRITE_RATE = 500;
    private static final Set<String> RUNS = Set.of("kube-queue", "reference", "probe");
    /** The backlog load's sizes when {@code --backlog} is not given (a run with none is always added). */
    /**
     * The default time between two reads of the read API for the estimates: 30 baseline groups are each read every
     * 7.5 s, 4 reads a second in all.
     */
    static final Duration DEFAULT_ESTIMATE_POLL = Duration.ofMillis(250);
    static final List<Integer> DEFAULT_BACKLOG = List.of(1_000, 10_000, 100_000);
    /** The most pending jobs {@code --backlog} takes per size. */
    static final int MAX_BACKLOG = 1_000_000;

    /** @throws IllegalArgumentException naming the bad option and its valid values */
    static BenchOptions parse(String... args) {
        List<String> loads = List.of("baseline");
        List<Policy> policies = List.of(Policy.STRICT);
        int inFlight = 32;
        boolean inFlightGiven = false;
        Duration writeLatency = Duration.ofMillis(150);
        Duration readLatency = Duration.ZERO;
        int writeRate = DEFAULT_WRITE_RATE;
        String heap = null;
        double scale = 1;
        Path kubeconfig = null;
        Set<String> runs = new LinkedHashSet<>(List.of("kube-queue", "reference", "probe"));
        Duration timeout = Duration.ofMinutes(20);
        String mock = "indexed";
        boolean podLimits = true;
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        Path manifests = Path.of("target", "kubernetes", "kubernetes.yml");
        List<Integer> backlog = null;
        Duration estimatePoll = DEFAULT_ESTIMATE_POLL;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.isBlank()) {
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--load" -> loads = switch (value) {
                    case "baseline", "burst", "large", "varied", Load.BACKLOG -> List.of(value);
                    case "all" -> List.of("baseline", "burst");
                    default -> throw new IllegalArgumentException(
                            "--load takes baseline, burst, large, varied, backlog or all (baseline and burst), got " + value);
                };
                case "--backlog" -> backlog = backlogSizes(value);
                case "--policy" -> policies = switch (value) {
                    case "strict", "default", "blocking" -> List.of(Policy.of(value));
                    case "both" -> List.of(Policy.STRICT, Policy.DEFAULT);
                    case "all" -> List.of(Policy.STRICT, Policy.BLOCKING, Policy.DEFAULT);
                    default -> throw new IllegalArgumentException(
                            "--policy takes strict, default, blocking, both (strict and default) or all, got " + value);
                };
                case "--in-flight" -> {
                    inFlight = positiveInt(option, value);
                    inFlightGiven = true;
                }
                case "--latency" -> writeLatency = duration(option, value);
                case "--read-latency" -> readLatency = duration(option, value);
                case "--write-rate" -> writeRate = writeRate(value);
                case "--heap" -> {
                    if (!value.matches("\\d+[kKmMgG]?")) {
                        throw new IllegalArgumentException("--heap takes a JVM size such as 128m, got " + value);
                    }
                    heap = value;
                }
                case "--scale" -> {
                    try {
                        scale = Double.parseDouble(value);
                    } catch (NumberFormatException e) {
                        scale = -1;
                    }
                    if (!(scale > 0)) {
                        throw new IllegalArgumentException("--scale takes a positive number, got " + value);
                    }
                }
                case "--kubeconfig" -> {
                    if (!Files.isRegularFile(Path.of(value))) {
                        throw new IllegalArgumentException("--kubeconfig needs an existing file, got " + value);
                    }
                    kubeconfig = Path.of(value).toAbsolutePath();
                }
                case "--runs" -> {
                    runs = new LinkedHashSet<>();
                    for (String run : value.split(",")) {
                        if (!RUNS.contains(run.trim())) {
                            throw new IllegalArgumentException("--runs takes kube-queue, reference, probe (comma-separated), got " + run);
                        }
                        runs.add(run.trim());
                    }
                }
                case "--timeout" -> timeout = duration(option, value);
                case "--mock" -> {
                    if (!value.equals("indexed") && !value.equals("plain")) {
                        throw new IllegalArgumentException("--mock takes indexed or plain, got " + value);
                    }
                    mock = value;
                }
                case "--pod-limits" -> {
                    if (!value.equals("on") && !value.equals("off")) {
                        throw new IllegalArgumentException("--pod-limits takes on or off, got " + value);
                    }
                    podLimits = value.equals("on");
                }
                case "--estimate-poll" -> {
                    estimatePoll = value.trim().equalsIgnoreCase("off") ? Duration.ZERO : duration(option, value);
                    if (!value.trim().equalsIgnoreCase("off") && estimatePoll.toMillis() < 10) {
                        throw new IllegalArgumentException("--estimate-poll takes a duration of at least 10ms, or off,"
                                + " got " + value);
                    }
                }
                case "--jar" -> jar = Path.of(value);
                case "--manifests" -> manifests = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        loads = expandBacklog(loads, backlog);
        return new BenchOptions(loads, policies, inFlight, inFlightGiven, writeLatency, readLatency, writeRate, heap, scale,
                kubeconfig, runs, timeout, mock, podLimits, jar, manifests, estimatePoll);
    }

    /**
     * {@code --backlog 1000,10000,100000}: the backlog load's sizes, each a whole number from 1 to
     * {@value #MAX_BACKLOG} (0, the run with none, is always run anyway), in the order given, repeats dropped.
     */
    static List<Integer> backlogSizes(String value) {
        LinkedHashSet<Integer> sizes = new LinkedHashSet<>();
        for (String part : value.split(",")) {
            int n;
            try {
                n = Integer.parseInt(part.trim().replace("_", ""));
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n < 0 || n > MAX_BACKLOG) {
                throw new IllegalArgumentException("--backlog takes pending-job counts from 0 to " + MAX_BACKLOG
                        + ", comma-separated (e.g. 1000,10000,100000), got " + part);
            }
            if (n > 0) {
                sizes.add(n);
            }
        }
        if (sizes.isEmpty()) {
            throw new IllegalArgumentException("--backlog needs at least one size above 0, got " + value);
        }
        return List.copyOf(sizes);
    }

    /**
     * {@code --load backlog} as one load per size, the run with none first ({@code backlog-0}, {@code backlog-1000},
     * …); {@code --backlog} with another load is refused, as it would be ignored.
     */
    private static List<String> expandBacklog(List<String> loads, List<Integer> backlog) {
        if (!loads.contains(Load.BACKLOG)) {
            if (backlog != null) {
                throw new IllegalArgumentException("--backlog applies to --load backlog only");
            }
            return loads;
        }
        List<String> expanded = new ArrayList<>();
        expanded.add(Load.backlogName(0));
        (backlog == null ? DEFAULT_BACKLOG : backlog).forEach(n -> expanded.add(Load.backlogName(n)));
        return List.copyOf(expanded);
    }

    /** The backlog sizes of {@link #loads} (0 first), empty when the backlog load is not run. */
    List<Integer> backlogSizes() {
        return loads.stream().mapToInt(Load::backlogSize).filter(n -> n >= 0).boxed().toList();
    }

    /** Parses {@code 150ms}, {@code 2s}, {@code 1.5s}, {@code 20m} or {@code 0} (a bare number is milliseconds). */
    static Duration duration(String option, String value) {
        Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(option + " takes a duration such as 150ms, 2s or 20m, got " + value);
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        double millis = switch (unit) {
            case "s" -> amount * 1_000;
            case "m" -> amount * 60_000;
            default -> amount;
        };
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }

    /** Parses {@code --write-rate}: a whole number of writes a second, {@code 0} or {@code off} for no budget. */
    static int writeRate(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("off")) {
            return 0;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new IllegalArgumentException("--write-rate takes a whole number of writes a second (e.g. 500), or 0 or off"
                + " for no budget, got " + value);
    }

    private static int positiveInt(String option, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new IllegalArgumentException(option + " takes a positive whole number, got " + value);
    }

    /** The command line as given back, for the report's header. */
    String describe() {
        List<String> parts = new ArrayList<>();
        parts.add(describeLoads());
        parts.add("--policy " + (policies.size() == 3 ? "all" : policies.size() == 2 ? "both" : policies.get(0).option));
        parts.add("--in-flight " + inFlight + (inFlightGiven ? "" : " (not passed to kube-queue)"));
        parts.add("--latency " + millis(writeLatency));
        parts.add("--read-latency " + millis(readLatency));
        parts.add(describeWriteRate());
        if (heap != null) {
            parts.add("--heap " + heap);
        }
        parts.add("--scale " + scale);
        if (kubeconfig != null) {
            parts.add("--kubeconfig " + kubeconfig);
        } else {
            parts.add("--mock " + mock);
        }
        parts.add("--runs " + String.join(",", runs));
        parts.add("--pod-limits " + (podLimits ? "on" : "off"));
        parts.add("--estimate-poll " + (estimatePoll.isZero() ? "off" : millis(estimatePoll)));
        return String.join(" ", parts);
    }

    /** {@code --load …} as given back (and {@code --backlog …} for the backlog load). */
    String describeLoads() {
        List<Integer> sizes = backlogSizes();
        if (!sizes.isEmpty()) {
            return "--load backlog --backlog " + String.join(",", sizes.stream().filter(n -> n > 0).map(String::valueOf).toList());
        }
        return "--load " + (loads.size() > 1 ? "all" : loads.get(0));
    }

    /** {@code --write-rate 500}, {@code --write-rate off}; on a cluster, that it does not apply. */
    String describeWriteRate() {
        return "--write-rate " + (writeRate > 0 ? Integer.toString(writeRate) : "off")
                + (kubeconfig != null ? " (not applied: the cluster's own budget)" : "");
    }

    private static String millis(Duration d) {
        return d.toMillis() + "ms";
    }
}
