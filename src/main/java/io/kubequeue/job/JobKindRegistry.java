package io.kubequeue.job;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * The job kinds kube-queue manages now: the built-in ones ({@link JobKinds}, each a bean) and those declared at run
 * time by a {@code QueuedKind} (docs/kinds.md), which come and go without a restart. Everything that enumerates kinds
 * at run time reads this (start-up recovery, the pod watch, the dry run, the read API's access checks); a reader gets
 * a snapshot, never a list that changes under it.
 */
@Singleton
public class JobKindRegistry implements Iterable<JobKind<?>> {

    private final List<JobKind<?>> builtIn;
    private final List<JobKind<?>> declared = new CopyOnWriteArrayList<>();
    private final List<Consumer<JobKind<?>>> onDeclared = new CopyOnWriteArrayList<>();
    private volatile List<JobKind<?>> all;

    /** Built by CDI: the built-in kinds are the {@link JobKind} beans. */
    @Inject
    public JobKindRegistry(Instance<JobKind<?>> builtIn) {
        this(builtIn.stream().toList());
    }

    /** @param builtIn the built-in kinds, in the order people read them */
    public JobKindRegistry(List<? extends JobKind<?>> builtIn) {
        this.builtIn = List.copyOf(builtIn);
        this.all = this.builtIn;
    }

    /** Every kind now: the built-in ones, then the declared ones in the order they were declared. */
    public List<JobKind<?>> all() {
        return all;
    }

    @Override
    public Iterator<JobKind<?>> iterator() {
        return all.iterator();
    }

    /** {@link #all()} as a stream. */
    public Stream<JobKind<?>> stream() {
        return all.stream();
    }

    /** The kind names, each once ({@code Job, TFJob, ...}, then the declared ones). */
    public List<String> names() {
        return all.stream().map(JobKind::kind).distinct().toList();
    }

    /** The kind of this name now, built-in or declared. */
    public Optional<JobKind<?>> named(String kind) {
        return all.stream().filter(k -> k.kind().equals(kind)).findFirst();
    }

    /** Whether a built-in kind has this name. */
    public boolean builtIn(String kind) {
        return builtIn.stream().anyMatch(k -> k.kind().equals(kind));
    }

    /**
     * Adds a declared kind, or replaces the declared kind of the same name (an edited declaration), and tells the
     * listeners ({@link #whenDeclared}).
     *
     * @throws IllegalArgumentException if a built-in kind has its name
     */
    public synchronized void declare(JobKind<?> kind) {
        if (builtIn(kind.kind())) {
            throw new IllegalArgumentException(kind.kind() + " is a built-in kind");
        }
        declared.removeIf(k -> k.kind().equals(kind.kind()));
        declared.add(kind);
        refresh();
        onDeclared.forEach(listener -> listener.accept(kind));
    }

    /** Drops the declared kind of this name, if any. */
    public synchronized void drop(String kind) {
        if (declared.removeIf(k -> k.kind().equals(kind))) {
            refresh();
        }
    }

    /** Calls {@code listener} with each kind declared from now on (the pod watch adds its label). */
    public void whenDeclared(Consumer<JobKind<?>> listener) {
        onDeclared.add(listener);
    }

    private void refresh() {
        List<JobKind<?>> now = new ArrayList<>(builtIn);
        now.addAll(declared);
        all = List.copyOf(now);
    }
}
