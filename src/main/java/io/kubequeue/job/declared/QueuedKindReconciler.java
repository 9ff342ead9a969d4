package io.kubequeue.job.declared;

import java.util.List;
import java.util.Set;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.ResourceEventAware;

/**
 * Puts each {@link QueuedKind} in force as it is created or edited, and takes it out when it is deleted
 * ({@link DeclaredKinds}); never writes the declaration itself, only its status. A declaration whose kind is not
 * served or not permitted yet is checked again every {@link DeclaredKinds#RECHECK}. Only the leader reconciles:
 * a replica that becomes leader reconciles every declaration.
 */
@ControllerConfiguration(name = "queuedkind")
public class QueuedKindReconciler implements Reconciler<QueuedKind> {

    private final DeclaredKinds declared;

    public QueuedKindReconciler(DeclaredKinds declared) {
        this.declared = declared;
    }

    @Override
    public UpdateControl<QueuedKind> reconcile(QueuedKind declaration, Context<QueuedKind> context) {
        return declared.apply(declaration).map(again -> UpdateControl.<QueuedKind>noUpdate().rescheduleAfter(again))
                .orElseGet(UpdateControl::noUpdate);
    }

    /** Deletes: without a finalizer (an outage must not block deleting a declaration), JOSDK tells event sources. */
    @Override
    public List<EventSource<?, QueuedKind>> prepareEventSources(EventSourceContext<QueuedKind> context) {
        return List.of(new Deletions(declared));
    }

    /** Hands a deleted declaration to {@link DeclaredKinds#deleted}; triggers nothing. */
    static final class Deletions extends AbstractEventSource<Deletions, QueuedKind>
            implements ResourceEventAware<QueuedKind> {

        private final DeclaredKinds declared;

        Deletions(DeclaredKinds declared) {
            super(Deletions.class, "queuedkind-deletions");
            this.declared = declared;
        }

        @Override
        public void onResourceDeleted(QueuedKind declaration) {
            declared.deleted(declaration);
        }

        @Override
        public Set<Deletions> getSecondaryResources(QueuedKind primary) {
            return Set.of();
        }
    }
}
