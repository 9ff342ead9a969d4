package io.kubequeue.concurrent;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** The one thread factory of kube-queue's own executors: daemon threads, named for thread dumps. */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /** Daemon threads named {@code prefix-1}, {@code prefix-2} …; they never keep the JVM alive on shutdown. */
    public static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
