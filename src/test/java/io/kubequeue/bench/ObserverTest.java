package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.bench.Load.JobRecord;

/**
 * The harness's watch with the backlog load: the jobs created before the run are counted apart from the measured
 * ones, the holder is charged to its own group, and a backlog job seen admitted is counted (it cannot fit).
 * Events are handed to the observer directly; no server.
 */
class ObserverTest {

    private static Job admitted(Load load, JobRecord r) {
        return new JobBuilder(load.job(r)).editSpec().withSuspend(false).endSpec().build();
    }

    @Test
    void backgroundJobsAreNotTheRunsFigures() {
        Load load = Load.backlog(2, 0.01);
        Observer observer = new Observer(null, load);
        List<String> runnerSaw = new ArrayList<>();
        observer.addListener(new Observer.Listener() {
            @Override
            public void admitted(JobRecord job) {
                runnerSaw.add(job.key());
            }
        });
        JobRecord holder = load.background.get(0);
        observer.onAdd(load.job(holder));
        load.background.subList(1, 3).forEach(r -> observer.onAdd(load.job(r)));

        Observer.Snapshot s = observer.snapshot();
        assertEquals(0, s.created(), "the jobs before the run are not the run's");
        assertEquals(0, s.admitted());
        assertEquals(20_000, s.rootPeak(), "the holder runs: charged at the root");
        assertEquals(30, s.leafPeak().length, "the tree's own leaves only");
        assertEquals(5, s.parentPeak().length);
        assertEquals(0, s.excessEvents());
        assertEquals(0, observer.backlogAdmitted());
        assertNull(observer.firstBacklogAdmitted());

        JobRecord backlog = load.background.get(1);
        observer.onUpdate(load.job(backlog), admitted(load, backlog));
        assertEquals(1, observer.backlogAdmitted());
        assertEquals(backlog.key(), observer.firstBacklogAdmitted());
        assertTrue(observer.snapshot().excessEvents() > 0, "its leaf is over its max: an excess");

        JobRecord measured = load.jobs.get(0);
        observer.onAdd(load.job(measured));
        observer.onUpdate(load.job(measured), admitted(load, measured));
        assertEquals(1, observer.snapshot().created());
        assertEquals(1, observer.snapshot().admitted());
        assertEquals(List.of(holder.key(), backlog.key(), measured.key()), runnerSaw,
                "the runner is told of each (it leaves the holder and the backlog alone itself)");
    }

    @Test
    void largeLoadUsesItsOwnTreeForItsLimits() {
        Load load = Load.large(0.01);
        Observer observer = new Observer(null, load);
        JobRecord last = load.jobs.stream().filter(j -> j.leaf == 999 && j.jobClass.name().equals("large")).findFirst()
                .orElseThrow();
        observer.onAdd(load.job(last));
        observer.onUpdate(load.job(last), admitted(load, last));
        Observer.Snapshot s = observer.snapshot();
        assertEquals(1_000, s.leafPeak().length);
        assertEquals(50, s.parentPeak().length);
        assertEquals(20_000, s.leafPeak()[999]);
        assertEquals(20_000, s.parentPeak()[49]);
        assertEquals(0, s.excessEvents());
    }
}
