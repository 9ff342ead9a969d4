package io.kubequeue.job;

import java.lang.reflect.Field;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.javaoperatorsdk.operator.health.InformerHealthIndicator;
import io.javaoperatorsdk.operator.processing.event.source.controller.ControllerEventSource;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Drops fabric8's namespace index from the informers of a job kind's controller. fabric8 indexes every informer's
 * objects by namespace, one set entry holding the object's {@code namespace/name} key per object; nothing reads that
 * index for jobs (JOSDK lists a namespace by filtering the whole cache, and kube-queue asks the index of its own pod
 * and LimitRange informers only). With the index gone and {@link PruningItemStore} keeping no key string, a pending
 * job costs some 110 bytes less (issue 27; docs/performance.md, "Memory per pending job").
 *
 * <p>JOSDK offers no handle on its informers: its controller event source lists them as health indicators, which are
 * JOSDK's informer wrappers, and the wrapper's informer is read from its private field {@value #INFORMER_FIELD}. If
 * a JOSDK version names it otherwise, the index stays (more memory, same answers) and that is logged once.
 */
@RegisterForReflection(classNames = NamespaceIndexes.INFORMER_WRAPPER, fields = true)
public final class NamespaceIndexes {

    static final String INFORMER_WRAPPER = "io.javaoperatorsdk.operator.processing.event.source.informer.InformerWrapper";
    static final String INFORMER_FIELD = "informer";

    private static final Logger LOG = Logger.getLogger(NamespaceIndexes.class);
    private static volatile boolean failureLogged;

    private NamespaceIndexes() {
    }

    /**
     * Removes the namespace index of every informer of {@code source} (one per watched namespace, or one for all).
     * Safe to call again: an index already gone is not there to remove.
     *
     * @return how many informers had their index removed; 0 if none could be reached
     */
    public static int drop(ControllerEventSource<? extends HasMetadata> source) {
        int dropped = 0;
        for (InformerHealthIndicator wrapper : source.informerHealthIndicators().values()) {
            SharedIndexInformer<?> informer = informerOf(wrapper);
            if (informer == null) {
                continue;
            }
            if (informer.getIndexer().getIndexers().containsKey(Cache.NAMESPACE_INDEX)) {
                informer.removeIndexer(Cache.NAMESPACE_INDEX);
                dropped++;
            }
        }
        return dropped;
    }

    private static SharedIndexInformer<?> informerOf(Object wrapper) {
        try {
            Field field = wrapper.getClass().getDeclaredField(INFORMER_FIELD);
            field.setAccessible(true);
            return field.get(wrapper) instanceof SharedIndexInformer<?> informer ? informer : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            if (!failureLogged) {
                failureLogged = true;
                LOG.infof("fabric8's namespace index of the job informers is kept (%s has no readable field %s: %s);"
                        + " each pending job costs some 110 bytes more", wrapper.getClass().getName(), INFORMER_FIELD,
                        e.toString());
            }
            return null;
        }
    }
}
