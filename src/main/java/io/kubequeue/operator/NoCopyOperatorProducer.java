package io.kubequeue.operator;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.Cloner;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.quarkiverse.operatorsdk.runtime.CRDUtils;
import io.quarkiverse.operatorsdk.runtime.QuarkusConfigurationService;
import io.quarkiverse.operatorsdk.runtime.QuarkusControllerConfiguration;
import io.quarkiverse.operatorsdk.runtime.api.ConfigurableReconciler;
import io.quarkus.runtime.annotations.RegisterForProxy;

/**
 * Builds the JOSDK {@link Operator} as QOSDK's own producer does (which is a default bean, there to be replaced),
 * with one difference: reconcilers get the informer's cached job itself, not a copy ({@link #NO_COPY}). Besides, a
 * controller whose rate limiting is off gets {@link UnlimitedRate}, one rate state for all its resources, and none
 * has a max reconciliation interval ({@link WithoutTimedReconciliation}).
 *
 * <p>Why: JOSDK copies every resource before it calls the reconciler, so that a reconciler that edits it cannot
 * corrupt the cache. Its default copy is a JSON write and re-read of the whole object; at 15,000 jobs that was 12 %
 * of kube-queue's CPU (docs/performance.md). kube-queue's reconcilers never edit a job: they read it into a
 * {@code JobObservation} and return {@code noUpdate} ({@code JobReconciler}); cached jobs are pruned copies whose
 * maps are unmodifiable and whose parts are shared ({@code Pruning}), so nothing may write them anyway.
 *
 * <p>The copy cannot be switched off through QOSDK's {@code ConfigurationServiceCustomizer}: the configuration
 * service it builds does not pass {@code getResourceCloner} (nor {@code getKubernetesClient}) on. So the
 * configuration service QOSDK built is wrapped in a proxy that answers {@code getResourceCloner} and hands every
 * other call to it unchanged, and each controller's configuration is given that proxy as its parent.
 */
@Singleton
@RegisterForProxy(targets = QuarkusConfigurationService.class)
public class NoCopyOperatorProducer {

    /** Hands back the resource itself: kube-queue's reconcilers only read what they are given. */
    static final Cloner NO_COPY = new Cloner() {
        @Override
        public <R extends HasMetadata> R clone(R object) {
            return object;
        }
    };

    /**
     * The operator, with every reconciler CDI knows registered.
     *
     * @param configuration the configuration service QOSDK built from {@code quarkus.operator-sdk.*}
     * @param reconcilers   the reconcilers (one per job kind)
     */
    @Produces
    @ApplicationScoped
    Operator operator(QuarkusConfigurationService configuration,
                      Instance<Reconciler<? extends HasMetadata>> reconcilers) {
        QuarkusConfigurationService withoutCopies = withoutCopies(configuration);
        var crdInfo = configuration.getCRDGenerationInfo();
        if (crdInfo.isApplyCRDs()) {
            for (String crd : crdInfo.getGenerated()) {
                CRDUtils.applyCRD(configuration.getKubernetesClient(), crdInfo, crd);
            }
        }
        Operator operator = new StoppableOperator(withoutCopies); // a SIGTERM during its start: StoppableOperator
        for (Reconciler<? extends HasMetadata> reconciler : reconcilers) {
            register(configuration, withoutCopies, reconciler, operator);
        }
        Duration terminationTimeout = configuration.reconciliationTerminationTimeout();
        if (!terminationTimeout.isZero()) {
            operator.installShutdownHook(terminationTimeout);
        }
        return operator;
    }

    /** {@code configuration} with {@link #NO_COPY} as its resource cloner; every other call goes to it. */
    static QuarkusConfigurationService withoutCopies(QuarkusConfigurationService configuration) {
        return (QuarkusConfigurationService) Proxy.newProxyInstance(QuarkusConfigurationService.class.getClassLoader(),
                new Class<?>[] { QuarkusConfigurationService.class },
                (proxy, method, args) -> isResourceCloner(method) ? NO_COPY : call(configuration, method, args));
    }

    private static boolean isResourceCloner(Method method) {
        return method.getName().equals("getResourceCloner") && method.getParameterCount() == 0;
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * Registers one reconciler with its configuration from {@code configuration}, re-parented to {@code parent},
     * applying a {@link ConfigurableReconciler}'s changes first: what QOSDK's producer does, so the settings are the
     * same.
     */
    @SuppressWarnings({ "rawtypes", "unchecked" })
    private static <P extends HasMetadata> void register(QuarkusConfigurationService configuration,
                                                         QuarkusConfigurationService parent, Reconciler<P> reconciler,
                                                         Operator operator) {
        var conf = configuration.getConfigurationFor(reconciler);
        if (conf == null) {
            operator.register(reconciler);
            return;
        }
        var override = ControllerConfigurationOverrider.override(conf);
        if (reconciler instanceof ConfigurableReconciler configurable) {
            configurable.updateConfigurationFrom(override);
        }
        var updated = override.build();
        var configured = new WithoutTimedReconciliation(updated.getInformerConfig(), updated.getName(),
                updated.isGenerationAware(), conf.getAssociatedReconcilerClassName(), updated.getRetry(),
                UnlimitedRate.orShared(updated.getRateLimiter()), updated.getFinalizerName(), updated.fieldManager(),
                conf.getWorkflow(), conf.getResourceTypeName(), conf.getResourceClass());
        configured.setParent(parent);
        operator.register(reconciler, configured);
    }

    /**
     * A controller configuration with no max reconciliation interval: JOSDK then sets no timer per resource. Its
     * default (10 hours) re-reconciles every job on a timer, one timer task and key per job kept (some 110 bytes per
     * pending job, issue 27); kube-queue needs no such re-read: the informer's watch delivers every change and its
     * re-list after a lost watch delivers the state, and the scheduler is told the job anew each time
     * (docs/architecture.md). QOSDK's configuration cannot say "none" ({@code Optional.of} of its field), so this
     * subclass answers empty.
     */
    @SuppressWarnings({ "rawtypes", "unchecked" })
    static final class WithoutTimedReconciliation<P extends HasMetadata> extends QuarkusControllerConfiguration<P> {

        WithoutTimedReconciliation(io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration<P> informer,
                                   String name, boolean generationAware, String reconcilerClassName,
                                   io.javaoperatorsdk.operator.processing.retry.Retry retry,
                                   io.javaoperatorsdk.operator.processing.event.rate.RateLimiter rateLimiter,
                                   String finalizerName, String fieldManager,
                                   io.quarkiverse.operatorsdk.runtime.QuarkusManagedWorkflow workflow,
                                   String resourceTypeName, Class<P> resourceClass) {
            super(informer, name, generationAware, reconcilerClassName, retry, rateLimiter,
                    Duration.ofHours(MaxReconciliationInterval.DEFAULT_INTERVAL), finalizerName, fieldManager,
                    workflow, resourceTypeName, resourceClass);
        }

        @Override
        public java.util.Optional<Duration> maxReconciliationInterval() {
            return java.util.Optional.empty();
        }
    }
}
