package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The bench reads kube-queue's heap after a full GC from {@code jcmd GC.heap_info}: its generations, not Metaspace. */
class HeapInfoTest {

    @Test
    void theSerialCollectorsGenerationsAreSummed() {
        String serial = """
                30519:
                 def new generation   total 116224K, used 1200K [0x0000000687400000, 0x000000068f210000, 0x0000000704d50000)
                  eden space 103360K,   1% used [0x0000000687400000, 0x0000000687400000, 0x000000068d8f0000)
                  from space 12864K,   0% used [0x000000068d8f0000, 0x000000068d8f0000, 0x000000068e580000)
                 tenured generation   total 258048K, used 98449K [0x0000000704d50000, 0x0000000714950000, 0x0000000800000000)
                   the space 258048K,  38% used [0x0000000704d50000, 0x0000000704dc04f0, 0x0000000714950000)
                 Metaspace       used 126K, committed 320K, reserved 1114112K
                  class space    used 3K, committed 128K, reserved 1048576K
                """;
        assertEquals(1200 + 98449, KubeQueueProcess.heapUsedKiB(serial));
    }

    @Test
    void oneG1HeapLineOrNoneReads() {
        assertEquals(20000, KubeQueueProcess.heapUsedKiB("""
                 garbage-first heap   total 258048K, used 20000K [0x0000000704d50000, 0x0000000800000000)
                  region size 1024K, 3 young (3072K), 0 survivors (0K)
                 Metaspace       used 126K, committed 320K, reserved 1114112K
                """));
        assertEquals(-1, KubeQueueProcess.heapUsedKiB("com.sun.tools.attach.AttachNotSupportedException"));
    }

    @Test
    void theHistogramsTotalIsTheLiveHeap(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("h.txt");
        java.nio.file.Files.writeString(file, """
                10007:
                 num     #instances         #bytes  class name (module)
                -------------------------------------------------------
                   1:        362406       15818056  [B (java.base@17.0.15)
                Total       2231433      100264080
                """);
        assertEquals(100264080L, KubeQueueProcess.histogramTotalBytes(file));
        java.nio.file.Files.writeString(file, "10007:\n");
        assertEquals(-1, KubeQueueProcess.histogramTotalBytes(file));
        assertEquals(-1, KubeQueueProcess.histogramTotalBytes(dir.resolve("missing.txt")));
    }
}
