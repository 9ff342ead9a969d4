package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration;
import io.javaoperatorsdk.operator.RegisteredController;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobReconciler;
import io.kubequeue.job.Pruning;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubequeue.job.PruningItemStore;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.testing.SeedTreeFixture;

/**
 * The informers cache pruned copies (docs/architecture.md, "Informer caches"), and admission still writes a job as
 * the cluster holds it: a job created by {@code kubectl apply}, with managedFields, is queued and admitted from its
 * cached copy, and keeps every annotation it had, also when kubectl's is the only one.
 */
@QuarkusTest
@WithStrictApiServer
class InformerCacheTest extends SeedTreeFixture {

    @Inject
    Operator operator;

    /** The realistic Job of the fixtures, made to fit the seed tree's group (4 cpu) in namespace default. */
    private Job applied(String name, boolean onlyKubectlAnnotation) {
        Job job = (Job) Manifests.read(client, InformerCacheTest.class.getResourceAsStream(
                "/jobs/realistic-suspended-job.yaml")).get(0);
        job.getMetadata().setName(name);
        job.getMetadata().setNamespace("default");
        job.getMetadata().setUid(null);
        job.getMetadata().setResourceVersion(null);
        job.getMetadata().setCreationTimestamp(null);
        job.getMetadata().getLabels().remove(Annotations.QUOTA_NAME_LABEL);
        job.getSpec().setSelector(null);
        job.getSpec().setManualSelector(null);
        job.getSpec().setParallelism(1);
        job.getSpec().setCompletions(1);
        job.getSpec().getTemplate().getMetadata().getLabels().keySet().removeIf(k -> k.contains("controller-uid"));
        job.getSpec().getTemplate().getSpec().setPriorityClassName(null);
        var container = job.getSpec().getTemplate().getSpec().getContainers().get(0).getResources();
        container.setRequests(Map.of("cpu", new Quantity("1"), "memory", new Quantity("1Gi")));
        container.setLimits(Map.of("cpu", new Quantity("1"), "memory", new Quantity("1Gi")));
        job.setStatus(null);
        if (onlyKubectlAnnotation) { // queued by spec.suspend alone
            job.getMetadata().getAnnotations().keySet().retainAll(List.of(Pruning.LAST_APPLIED));
        }
        return client.batch().v1().jobs().inNamespace("default").resource(job).create();
    }

    /**
     * No job controller re-reconciles its jobs on a timer: JOSDK's max reconciliation interval (10 hours by default)
     * keeps a timer task per job, some 110 bytes per pending job (issue 27), for a re-read the informer's watch and
     * re-list already give (docs/architecture.md).
     */
    @Test
    void noJobControllerReconcilesOnATimer() {
        var controllers = operator.getRuntimeInfo().getRegisteredControllers();
        assertTrue(!controllers.isEmpty());
        for (RegisteredController<?> controller : controllers) {
            assertEquals(java.util.Optional.empty(), controller.getConfiguration().maxReconciliationInterval(),
                    controller.getConfiguration().getName());
        }
    }

    /**
     * No job controller keeps a rate state per job: rate limiting is off (no {@code @RateLimited}), and JOSDK's default
     * limiter would still give each job a {@code RateState} with its own time, some 100 bytes per job (issue 27).
     */
    @Test
    void everyJobSharesOneRateStateAndNothingIsRateLimited() throws Exception {
        for (RegisteredController<?> controller : operator.getRuntimeInfo().getRegisteredControllers()) {
            assertSame(UnlimitedRate.LIMITER, controller.getConfiguration().getRateLimiter(),
                    controller.getConfiguration().getName());
        }
        applied("rated-a", false);
        applied("rated-b", false);
        await().atMost(Duration.ofSeconds(10)).until(() -> rateState("rated-a") != null && rateState("rated-b") != null);
        assertSame(UnlimitedRate.STATE, rateState("rated-a"));
        assertSame(UnlimitedRate.STATE, rateState("rated-b"));
    }

    /** The rate state JOSDK keeps for a Job it reconciled (JOSDK's internals: read by reflection); null if none. */
    private Object rateState(String name) throws Exception {
        Controller<?> controller = (Controller<?>) operator.getRuntimeInfo().getRegisteredController("job");
        Object processor = controller.getEventProcessor();
        Field states = processor.getClass().getDeclaredField("resourceStateManager");
        states.setAccessible(true);
        Object manager = states.get(processor);
        Method get = manager.getClass().getMethod("get", ResourceID.class);
        get.setAccessible(true);
        Optional<?> state = (Optional<?>) get.invoke(manager, new ResourceID(name, "default"));
        if (state.isEmpty()) {
            return null;
        }
        Method rateLimit = state.get().getClass().getMethod("getRateLimit");
        rateLimit.setAccessible(true);
        return rateLimit.invoke(state.get());
    }

    @Test
    void theJobInformerCachesPrunedCopiesAndListsInPages() {
        InformerConfiguration<?> informer = operator.getRuntimeInfo().getRegisteredController("job")
                .getConfiguration().getInformerConfig();
        assertInstanceOf(PruningItemStore.class, informer.getItemStore());
        assertEquals(JobReconciler.LIST_PAGE, informer.getInformerListLimit());

        Job created = applied("cached", false);
        assertTrue(created.getMetadata().getManagedFields() != null && !created.getMetadata().getManagedFields().isEmpty(),
                "the server keeps the managedFields it is given");
        // The job fits and is admitted at once, so wait for the copy the admission left: its suspend mark is gone
        // and the quota group it was admitted to is written (reading the copy earlier raced the admission).
        Job cached = await().atMost(Duration.ofSeconds(10)).until(() -> cachedJob("cached"),
                j -> j != null && j.getMetadata().getAnnotations().containsKey(Annotations.QUOTA_GROUP));
        assertNull(cached.getMetadata().getManagedFields());
        assertEquals("", cached.getMetadata().getAnnotations().get(Pruning.LAST_APPLIED));
        assertEquals("", cached.getMetadata().getAnnotations().get("owner"), "an annotation kube-queue does not read");
        assertEquals(SEED_GROUP, cached.getMetadata().getAnnotations().get(Annotations.QUOTA_GROUP), "one it reads");
        assertNull(cached.getMetadata().getAnnotations().get(SuspendMark.ANNOTATION_KEY));
        assertNull(cached.getSpec().getTemplate().getSpec().getContainers().get(0).getImage());
        assertNull(cached.getSpec().getTemplate().getSpec().getVolumes());
    }

    /**
     * fabric8 indexes each informer's objects by namespace, a key string per job that nothing reads: once the job
     * controller has reconciled, its informer has no such index (issue 27), and the cache still answers by key and by
     * namespace.
     */
    @Test
    void theJobInformersKeepNoNamespaceIndexOnceReconciling() throws Exception {
        applied("unindexed", false);
        Controller<?> controller = (Controller<?>) operator.getRuntimeInfo().getRegisteredController("job");
        var source = controller.getEventSourceManager().getControllerEventSource();
        await().atMost(Duration.ofSeconds(10)).until(() -> cachedJob("unindexed") != null);
        for (Object wrapper : source.informerHealthIndicators().values()) {
            Field field = wrapper.getClass().getDeclaredField("informer");
            field.setAccessible(true);
            SharedIndexInformer<?> informer = (SharedIndexInformer<?>) field.get(wrapper);
            await().atMost(Duration.ofSeconds(10)).until(() -> !informer.getIndexer().getIndexers()
                    .containsKey(io.fabric8.kubernetes.client.informers.cache.Cache.NAMESPACE_INDEX));
        }
        assertTrue(source.list("default", j -> "unindexed".equals(j.getMetadata().getName())).findAny().isPresent(),
                "listing a namespace does not need the index");
        assertTrue(source.get(new ResourceID("unindexed", "default")).isPresent());
    }

    @Test
    void reconcilersAreGivenTheCachedCopyItselfNotACopyAndQosdkSettingsStillApply() {
        Job job = new Job();
        for (Object registered : operator.getRuntimeInfo().getRegisteredControllers()) { // a raw Set in JOSDK
            RegisteredController<?> controller = (RegisteredController<?>) registered;
            var service = controller.getConfiguration().getConfigurationService();
            assertSame(job, service.getResourceCloner().clone(job), controller.getConfiguration().getName());
            assertSame(client, service.getKubernetesClient(), "the configuration service passes every other call on");
        }
        assertEquals(4, operator.getConfigurationService().concurrentReconciliationThreads(),
                "quarkus.operator-sdk.concurrent-reconciliation-threads");
    }

    @Test
    void aJobAdmittedFromItsCachedCopyKeepsEveryAnnotation() {
        Job created = applied("applied", false);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("applied"));
        Map<String, String> annotations = cluster.job("applied").getMetadata().getAnnotations();
        assertEquals(created.getMetadata().getAnnotations().get(Pruning.LAST_APPLIED), annotations.get(Pruning.LAST_APPLIED));
        assertEquals("alice@example.com", annotations.get("owner"));
        assertEquals(SEED_GROUP, annotations.get(Annotations.QUOTA_GROUP));
    }

    @Test
    void aJobWhoseOnlyAnnotationIsKubectlsKeepsItWhenAdmitted() {
        Job created = applied("kubectl-only", true);
        assertEquals(List.of(Pruning.LAST_APPLIED), List.copyOf(created.getMetadata().getAnnotations().keySet()));
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("kubectl-only"));
        Map<String, String> annotations = cluster.job("kubectl-only").getMetadata().getAnnotations();
        assertEquals(created.getMetadata().getAnnotations().get(Pruning.LAST_APPLIED), annotations.get(Pruning.LAST_APPLIED),
                "the record is added beside it, not as a new annotation map");
        assertEquals(SEED_GROUP, annotations.get(Annotations.QUOTA_GROUP));
    }

    @SuppressWarnings("unchecked")
    private Job cachedJob(String name) {
        Controller<Job> controller = (Controller<Job>) operator.getRuntimeInfo().getRegisteredController("job");
        return controller.getEventSourceManager().getControllerEventSource()
                .get(new ResourceID(name, "default")).orElse(null);
    }
}
