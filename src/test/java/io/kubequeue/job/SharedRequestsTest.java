package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Resources;

/** Equal requests are one instance (issue 27: memory per pending job); distinct ones stay distinct. */
class SharedRequestsTest {

    @Test
    void equalRequestsAreOneInstance() {
        Resources first = SharedRequests.shared(Resources.of("cpu", 1_700L, "memory", 3L << 30));
        Resources second = SharedRequests.shared(Resources.of("cpu", 1_700L, "memory", 3L << 30));
        Resources other = SharedRequests.shared(Resources.of("cpu", 1_701L, "memory", 3L << 30));
        assertSame(first, second);
        assertNotSame(first, other);
        assertEquals(Resources.of("cpu", 1_701L, "memory", 3L << 30), other);
        assertNull(SharedRequests.shared(null));
    }
}
