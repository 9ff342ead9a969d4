package io.kubequeue.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What Linux says about a process and the machine ({@code /proc}): the figures the benchmark prints for
 * kube-queue's process, the harness's own and the machine as a whole.
 */
final class ProcStats {

    private static final long TICKS_PER_SECOND = ticksPerSecond();

    private ProcStats() {
    }

    /**
     * One reading of a process.
     *
     * @param cpuNanos CPU time used so far, user + system ({@code /proc/<pid>/stat} utime + stime), nanoseconds
     * @param rssKiB   resident set size now ({@code VmRSS}), KiB
     * @param hwmKiB   the highest resident set size so far ({@code VmHWM}), KiB
     */
    record Process(long cpuNanos, long rssKiB, long hwmKiB) {
    }

    /**
     * One reading of the machine: CPU time of all cores since boot ({@code /proc/stat}, first line).
     *
     * @param busyNanos time not idle (every state but idle and iowait), summed over the cores, nanoseconds
     * @param allNanos  all time, summed over the cores, nanoseconds
     */
    record Machine(long busyNanos, long allNanos) {
        /** Busy cores on average between this reading and a later one. */
        double busyCoresUntil(Machine later, long wallNanos) {
            return wallNanos <= 0 ? 0 : (double) (later.busyNanos - busyNanos) / wallNanos;
        }
    }

    static Process process(long pid) {
        String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
        // the command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime: fields 14, 15
        long rss = 0;
        long hwm = 0;
        for (String line : read(Path.of("/proc", Long.toString(pid), "status")).split("\n")) {
            if (line.startsWith("VmRSS:")) {
                rss = kib(line);
            } else if (line.startsWith("VmHWM:")) {
                hwm = kib(line);
            }
        }
        return new Process(ticks * 1_000_000_000L / TICKS_PER_SECOND, rss, hwm);
    }

    static Process self() {
        return process(ProcessHandle.current().pid());
    }

    static Machine machine() {
        String[] f = read(Path.of("/proc/stat")).split("\n")[0].trim().split("\\s+");
        long all = 0;
        for (int i = 1; i < f.length && i <= 8; i++) { // user nice system idle iowait irq softirq steal
            all += Long.parseLong(f[i]);
        }
        long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
        return new Machine((all - idle) * 1_000_000_000L / TICKS_PER_SECOND, all * 1_000_000_000L / TICKS_PER_SECOND);
    }

    /** The machine's cores ({@code nproc}). */
    static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** {@code MemTotal} of {@code /proc/meminfo}, MiB. */
    static long memoryMiB() {
        for (String line : read(Path.of("/proc/meminfo")).split("\n")) {
            if (line.startsWith("MemTotal:")) {
                return kib(line) / 1024;
            }
        }
        return 0;
    }

    private static long kib(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + " (the benchmark reads /proc: Linux only)", e);
        }
    }

    /** {@code getconf CLK_TCK}: the unit of /proc's CPU times; 100 where it cannot be asked. */
    private static long ticksPerSecond() {
        try {
            java.lang.Process p = new ProcessBuilder(List.of("getconf", "CLK_TCK")).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            p.waitFor();
            return Long.parseLong(out);
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
