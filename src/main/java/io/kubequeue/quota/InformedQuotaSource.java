package io.kubequeue.quota;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubequeue.scheduler.model.QuotaTree;

/**
 * What both quota plugins share: one informer on the quota objects, and on any add, update or delete the whole
 * set of groups is rebuilt from the informer's store and reported if it changed. Public for the plugins'
 * folders ({@code quota.elastic}, {@code quota.resourcequota}); nothing else extends it.
 *
 * @param <T> the quota object's kind
 */
public abstract class InformedQuotaSource<T> implements QuotaGroupSource {

    private static final Logger LOG = Logger.getLogger(InformedQuotaSource.class);

    private final Duration firstListWait;
    private volatile SharedIndexInformer<T> informer;
    private volatile boolean listed;
    private Consumer<QuotaTree> onChange;
    private QuotaTree current;

    /** @param firstListWait how long start-up waits for the first list before going on with every job held */
    protected InformedQuotaSource(Duration firstListWait) {
        this.firstListWait = firstListWait;
    }

    /** An informer on the quota objects, not started yet. */
    protected abstract SharedIndexInformer<T> informer();

    /** What the quota objects are, for log lines (e.g. {@code ElasticQuotaTree in kube-system}). */
    protected abstract String describe();

    /**
     * The groups the quota objects describe now.
     *
     * @param objects every quota object in the informer's store
     * @param current the groups in force, or null before the first ones (an invalid object may keep them)
     */
    protected abstract QuotaTree build(List<T> objects, QuotaTree current);

    /**
     * Starts the informer and waits for its first list. If the objects cannot be read in time (the CRD is not
     * installed, RBAC forbids it, the API server is away) kube-queue does not crash-loop, and does not guess
     * either: it logs why and reports no quota groups at all, so every job is held (even under the
     * ResourceQuota plugin, where a namespace without quota would otherwise be unlimited). The informer keeps
     * retrying; the real groups apply as soon as its first list succeeds.
     */
    @Override
    public void start(Consumer<QuotaTree> onChange) {
        this.onChange = onChange;
        informer = informer();
        informer.exceptionHandler((started, error) -> {
            LOG.errorf("cannot read %s (%s); every job stays held, retrying", describe(), error.getMessage());
            return true;
        });
        informer.addEventHandler(new ResourceEventHandler<T>() {
            @Override
            public void onAdd(T object) {
                refresh();
                changed(null, object);
            }

            @Override
            public void onUpdate(T oldObject, T newObject) {
                refresh();
                changed(oldObject, newObject);
            }

            @Override
            public void onDelete(T object, boolean deletedFinalStateUnknown) {
                refresh();
                changed(object, null);
            }
        });
        CompletableFuture<Void> firstList = informer.start().toCompletableFuture();
        firstList.thenRun(() -> {
            listed = true;
            refresh();
        });
        try {
            firstList.get(firstListWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.errorf("%s not read within %s; every job stays held until it is", describe(), firstListWait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        refresh();
    }

    /**
     * Called after each add ({@code before} null), update, or delete ({@code after} null), once the groups have
     * been refreshed. Does nothing unless a plugin needs it.
     */
    protected void changed(T before, T after) {
    }

    /** Every quota object the informer holds now; empty before it started. */
    protected List<T> objects() {
        return informer == null ? List.of() : informer.getStore().list();
    }

    @Override
    public void stop() {
        if (informer != null) {
            informer.stop();
        }
    }

    private synchronized void refresh() {
        // until the first full list, the store may miss quota objects: report no groups, never fewer limits
        QuotaTree next;
        try {
            next = listed ? build(informer.getStore().list(), current) : QuotaTree.EMPTY;
        } catch (RuntimeException e) {
            // a plugin reports a bad object at the object (InvalidQuotaTree, InvalidQuota); anything it did not
            // foresee keeps the groups in force, never the watch's thread (docs/security.md)
            LOG.errorf("cannot build the quota groups from %s (%s); the groups in force stay", describe(),
                    e.toString().lines().findFirst().orElse(""));
            return;
        }
        if (!next.equals(current)) {
            current = next;
            onChange.accept(next);
        }
    }
}
