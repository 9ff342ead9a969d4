package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

/**
 * SIGTERM while the replica is stuck: its API server accepts connections and never answers (an outage longer than
 * the client's retries), so start-up recovery keeps retrying lists that time out. Before kube-queue's shutdown
 * deadline the process ignored SIGTERM for minutes; now it ends by itself within {@code
 * KUBE_QUEUE_SHUTDOWN_DEADLINE}, well inside a pod's termination grace period.
 */
class ShutdownDeadlineIT {

    /** Accepts every connection and never answers, until closed. */
    private static final class SilentApiServer implements AutoCloseable {
        private final ServerSocket socket;
        private final List<Socket> accepted = new CopyOnWriteArrayList<>();

        SilentApiServer() throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(() -> {
                try {
                    while (!socket.isClosed()) {
                        accepted.add(socket.accept());
                    }
                } catch (IOException closed) {
                    // closed by the test
                }
            }, "silent-api-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        @Override
        public void close() {
            try {
                socket.close();
                for (Socket s : accepted) {
                    s.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Test
    void aReplicaStuckOnASilentApiServerEndsWithinItsShutdownDeadline() throws IOException {
        try (SilentApiServer silent = new SilentApiServer();
             PackagedOperator replica = PackagedOperator.start("kube-queue-stuck", silent.url(),
                     Map.of("KUBE_QUEUE_SHUTDOWN_DEADLINE", "3s"))) {
            // a connection means start-up has reached its first list, after the deadline was armed
            await("the replica is stuck on its first request").atMost(Duration.ofSeconds(60))
                    .until(() -> !silent.accepted.isEmpty() || !replica.alive());
            assertTrue(replica.alive(), replica.log());

            replica.terminate();
            OptionalInt exit = replica.exitWithin(Duration.ofSeconds(20));
            assertTrue(exit.isPresent(), "still running 20 s after SIGTERM, with a 3 s deadline; log: "
                    + replica.logFile().toAbsolutePath());
            assertEquals(1, exit.getAsInt(), "halted by the deadline, not a normal exit");
            assertTrue(replica.log().contains("shutdown did not finish within kube-queue.shutdown-deadline (PT3S)"),
                    replica.log());
        }
    }
}
