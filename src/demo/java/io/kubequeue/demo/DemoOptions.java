package io.kubequeue.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The demo's command line.
 *
 * @param example  {@code elasticquota} or {@code resourcequota}: one of the seed's examples, or null with dir
 * @param dir      a directory of the user's own manifests, or null
 * @param plugin   the {@code QueueGroupPlugin} to run with
 * @param speed    factor applied to each job's {@code sleep}, e.g. 0.1 turns 30 s into 3 s
 * @param timeout  when to give up, exiting 1
 */
record DemoOptions(String example, Path dir, String plugin, double speed, Duration timeout) {

    static final String USAGE = "usage: [--example elasticquota|resourcequota | --dir PATH [--plugin elasticquota|resourcequota]]"
            + " [--speed FACTOR] [--timeout SECONDS]";

    /** @throws IllegalArgumentException for an unknown option or value, naming the valid ones */
    static DemoOptions parse(String... args) {
        String example = null;
        Path dir = null;
        String plugin = null;
        double speed = 0.1;
        Duration timeout = Duration.ofSeconds(120);
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--example" -> {
                    example = oneOf("--example", value);
                    i++;
                }
                case "--dir" -> {
                    if (value == null || !Files.isDirectory(Path.of(value))) {
                        throw new IllegalArgumentException("--dir needs an existing directory, got " + value);
                    }
                    dir = Path.of(value);
                    i++;
                }
                case "--plugin" -> {
                    plugin = oneOf("--plugin", value);
                    i++;
                }
                case "--speed" -> {
                    speed = positive("--speed", value);
                    i++;
                }
                case "--timeout" -> {
                    timeout = Duration.ofMillis((long) (positive("--timeout", value) * 1000));
                    i++;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (example != null && dir != null) {
            throw new IllegalArgumentException("--example and --dir exclude each other");
        }
        if (dir == null && example == null) {
            example = "elasticquota";
        }
        if (plugin == null) {
            plugin = example != null ? example : "elasticquota";
        }
        return new DemoOptions(example, dir, plugin, speed, timeout);
    }

    private static String oneOf(String option, String value) {
        if (!"elasticquota".equals(value) && !"resourcequota".equals(value)) {
            throw new IllegalArgumentException(option + " takes elasticquota or resourcequota, got " + value);
        }
        return value;
    }

    private static double positive(String option, String value) {
        try {
            double d = Double.parseDouble(value);
            if (d > 0) {
                return d;
            }
        } catch (NumberFormatException | NullPointerException e) {
            // fall through
        }
        throw new IllegalArgumentException(option + " takes a positive number, got " + value);
    }
}
