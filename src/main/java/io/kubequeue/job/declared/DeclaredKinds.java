package io.kubequeue.job.declared;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobKindRegistry;
import io.kubequeue.job.JobKinds;
import io.kubequeue.job.JobReconciler;
import io.kubequeue.job.PruningItemStore;

/**
 * The kinds declared by {@link QueuedKind}s, at run time (docs/kinds.md): each valid, served and permitted
 * declaration becomes a {@link DeclaredJobKind} in the {@link JobKindRegistry} and a watch of its objects that feeds
 * the {@link JobFeed} as the built-in kinds' reconcilers do; an invalid one gets its conditions and one Warning, never
 * an exception. Start-up loads every declaration before the recovery list ({@link #loadAll}), so a restart charges
 * the running jobs of declared kinds before it admits anything.
 *
 * <p>A removed declaration drains: its pending jobs are forgotten at once (they stay suspended in the cluster), its
 * running jobs stay charged until they end, then its watch stops. An edited one is replaced: the new rules read every
 * job again.
 */
@Singleton
public class DeclaredKinds {

    private static final Logger LOG = Logger.getLogger(DeclaredKinds.class);
    /** How soon a declaration whose kind is not served, or not permitted, is checked again. */
    public static final Duration RECHECK = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final JobKindRegistry registry;
    private final JobFeed feed;
    private final EventRecorder events;
    /** By declaration name. */
    private final Map<String, Declared> declared = new ConcurrentHashMap<>();

    /** Numbers the keys of retired declarations ({@link #retire}). */
    private final java.util.concurrent.atomic.AtomicLong retirements = new java.util.concurrent.atomic.AtomicLong();
    /** What {@link #putInForce} says of a declaration deleted while it was checked. */
    private static final String DELETED_WHILE_CHECKED = "deleted while it was checked";
    /** How many deleted declarations' uids are remembered: far more than can be checked at once. */
    private static final int DELETED_REMEMBERED = 1024;

    /** The uids of deleted QueuedKinds, the latest {@value #DELETED_REMEMBERED}; under this object's lock. */
    private final java.util.Set<String> deletedUids = java.util.Collections.newSetFromMap(
            new java.util.LinkedHashMap<String, Boolean>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > DELETED_REMEMBERED;
        }
    });

    /** A declaration in force, or draining after its removal. */
    private static final class Declared {
        final DeclaredJobKind kind;
        final long generation;
        /**
         * Its key in {@code declared}, under the registry's lock: the QueuedKind's name, or, once an edit named another
         * kind and it drains beside its successor, a key of its own ({@link #retire}).
         */
        volatile String key;
        SharedIndexInformer<GenericKubernetesResource> watch;
        /** Under its lock: whether it is removed and waits for its running jobs to end. */
        boolean draining;
        /**
         * The jobs the watch of the declaration it replaced had cached (an edit): one of them that its own first list
         * no longer shows was deleted in between, and is released then.
         */
        List<GenericKubernetesResource> before = List.of();
        /**
         * Under its lock: the jobs its watch's handler last saw running ({@code namespace/name}). The watch's cache
         * drops a deleted job before the handler is told; a drain that trusted the cache alone stopped the watch
         * before the delete reached the feed, and the job stayed charged.
         */
        final Map<String, GenericKubernetesResource> running = new java.util.HashMap<>();

        Declared(String key, DeclaredJobKind kind, long generation) {
            this.key = key;
            this.kind = kind;
            this.generation = generation;
        }
    }

    public DeclaredKinds(KubernetesClient client, JobKindRegistry registry, JobFeed feed, EventRecorder events) {
        this.client = client;
        this.registry = registry;
        this.feed = feed;
        this.events = events;
    }

    /**
     * Start-up, before the recovery list: every declaration is checked and its kind registered (not watched yet),
     * so that recovery lists its jobs with the built-in kinds'. No QueuedKind CRD, or no right to list it: nothing is
     * declared, one log line.
     */
    public void loadAll() {
        List<QueuedKind> all;
        try {
            all = client.resources(QueuedKind.class).list().getItems();
        } catch (KubernetesClientException e) {
            LOG.infof("no declared job kinds (%s %s): the built-in kinds only", e.getCode() == 404
                    ? "the QueuedKind CRD is not installed" : "cannot list QueuedKinds:", e.getCode() == 404 ? ""
                    : e.getMessage());
            return;
        }
        for (QueuedKind q : all) {
            apply(q, false);
        }
    }

    /** After the recovery list: the watches of the kinds {@link #loadAll} registered. */
    public void watchLoaded() {
        declared.values().forEach(d -> {
            synchronized (d) {
                if (d.watch == null && !d.draining) {
                    d.watch = watch(d);
                }
            }
        });
    }

    /**
     * Checks a declaration and puts it in force (or keeps it, if its generation is in force already), and writes
     * its status when that changed.
     *
     * @return when to check it again (a kind not served or not permitted yet), or empty
     */
    public Optional<Duration> apply(QueuedKind q) {
        return apply(q, true);
    }

    private Optional<Duration> apply(QueuedKind q, boolean watch) {
        String name = q.getMetadata().getName();
        long generation = q.getMetadata().getGeneration() == null ? 0 : q.getMetadata().getGeneration();
        List<Condition> conditions = new ArrayList<>();
        Optional<Duration> again = Optional.empty();
        DeclaredJobKind kind = null;
        try {
            kind = DeclaredJobKind.of(name, q.getSpec(), client.getKubernetesSerialization());
            String clash = clash(name, kind.kind());
            if (clash != null) {
                throw new InvalidDeclarationException("spec.kind", clash);
            }
            conditions.add(condition("Valid", true, "Valid", "the declaration reads"));
        } catch (InvalidDeclarationException e) {
            conditions.add(condition("Valid", false, "InvalidDeclaration", e.getMessage()));
            kind = null; // a kind read whole but refused (a clash) is not put in force either
        }
        if (kind != null) {
            List<String> wrong = schemaProblems(kind);
            if (!wrong.isEmpty()) {
                conditions.set(0, condition("Valid", false, "InvalidDeclaration", String.join("; ", wrong)));
                kind = null;
            }
        }
        if (kind != null) {
            String notServed = notServed(kind);
            conditions.add(notServed == null ? condition("Served", true, "Served", kind.plural() + "." + kind.apiGroup()
                    + "/" + kind.version() + " is served") : condition("Served", false, "NotServed", notServed));
            List<String> missing = List.of();
            String unchecked = null;
            if (notServed == null) {
                try {
                    missing = missingVerbs(kind);
                } catch (KubernetesClientException e) {
                    unchecked = "kube-queue could not check its rights on " + resource(kind)
                            + " (SelfSubjectAccessReview: " + brief(e) + "); checked again in " + RECHECK.toSeconds()
                            + " s";
                }
            }
            if (unchecked != null) {
                conditions.add(condition("Authorized", false, "NotChecked", unchecked));
            } else if (notServed == null) {
                conditions.add(missing.isEmpty() ? condition("Authorized", true, "Authorized",
                        "kube-queue may " + String.join(", ", JobKinds.VERBS) + " " + resource(kind))
                        : condition("Authorized", false, "Forbidden", "kube-queue may not " + String.join(", ", missing)
                        + " " + resource(kind) + " (its SelfSubjectAccessReview said no): grant them in its"
                        + " ClusterRole (the chart's declaredKinds or presets values do)"));
            }
            if (notServed != null || unchecked != null || !missing.isEmpty()) {
                again = Optional.of(RECHECK);
                kind = null;
            }
        }
        List<Declared> retired = new ArrayList<>();
        String clash = kind == null ? null
                : putInForce(name, q.getMetadata().getUid(), kind, generation, watch, retired);
        for (Declared old : retired) {
            remove(old.key); // drained with no lock held, as a deleted one is
        }
        if (DELETED_WHILE_CHECKED.equals(clash)) {
            LOG.infof("QueuedKind %s was deleted while it was checked: not put in force", name);
            return Optional.empty();
        }
        if (clash != null) { // declared by another one while this one was checked
            conditions.set(0, condition("Valid", false, "InvalidDeclaration", "spec.kind: " + clash));
            kind = null;
        }
        if (kind != null) {
            conditions.add(condition("Ready", true, "Queuing", "kube-queue queues " + kind.kind() + " jobs"));
        } else {
            remove(name);
            String why = conditions.stream().filter(c -> "False".equals(c.getStatus())).map(Condition::getMessage)
                    .findFirst().orElse("");
            conditions.add(condition("Ready", false, "NotQueuing", why));
        }
        writeStatus(q, generation, conditions);
        return again;
    }

    /** Why no other declaration or built-in kind may have this kind name; null if none. */
    private String clash(String declaration, String kind) {
        if (registry.builtIn(kind)) {
            return kind + " is a built-in kind of kube-queue; declare only kinds it does not know";
        }
        for (Map.Entry<String, Declared> other : declared.entrySet()) {
            // a removed one that still drains is taken over (putInForce), as when it is declared again by its name
            if (!other.getKey().equals(declaration) && other.getValue().kind.kind().equals(kind)
                    && !other.getValue().draining) {
                return kind + " is declared already, by QueuedKind " + other.getKey();
            }
        }
        return null;
    }

    /**
     * Puts the kind in force under this declaration, unless another declaration holds it now (checked again here,
     * under the lock, since two declarations are reconciled at once); a removed declaration of the same kind that
     * still drains is stopped and dropped: the new watch reads its running jobs again, and two watches of one kind
     * would undo each other (the draining one forgets every pending job the new one queues).
     *
     * @return why it cannot be put in force, or null
     */
    private synchronized String putInForce(String name, String uid, DeclaredJobKind kind, long generation,
                                           boolean watch, List<Declared> retired) {
        if (uid != null && deletedUids.contains(uid)) {
            return DELETED_WHILE_CHECKED;
        }
        String clash = clash(name, kind.kind());
        if (clash != null) {
            return clash;
        }
        Declared now = declared.get(name);
        if (now != null && now.generation == generation && !now.draining) {
            return null;
        }
        List<GenericKubernetesResource> before = List.of();
        if (now != null && sameResource(now.kind, kind)) {
            before = known(now);
            stop(now);
        } else if (now != null) {
            retired.add(retire(now)); // another kind now: the old one drains as if its declaration were deleted
        }
        for (Map.Entry<String, Declared> other : List.copyOf(declared.entrySet())) {
            if (!other.getKey().equals(name) && other.getValue().draining
                    && sameResource(other.getValue().kind, kind)) {
                before = new ArrayList<>(before);
                before.addAll(known(other.getValue()));
                stop(other.getValue());
                declared.remove(other.getKey(), other.getValue());
                LOG.infof("QueuedKind %s declares %s again: QueuedKind %s stops draining", name, kind.kind(),
                        other.getKey());
            }
        }
        Declared next = new Declared(name, kind, generation);
        next.before = before;
        declared.put(name, next);
        registry.declare(kind);
        LOG.infof("queuing %s, as QueuedKind %s declares it", kind, name);
        if (watch) {
            synchronized (next) {
                next.watch = watch(next);
            }
        }
        return null;
    }

    /** Whether two declarations name the same jobs: the same kind, API group and resource (the version may differ). */
    private static boolean sameResource(DeclaredJobKind a, DeclaredJobKind b) {
        return a.kind().equals(b.kind()) && a.apiGroup().equals(b.apiGroup()) && a.plural().equals(b.plural());
    }

    /**
     * An edit named another kind: the declaration in force moves to a key of its own (unique: a counter) and is
     * returned, to drain ({@link #remove}) once this object's lock is released, its jobs read by its own rules and
     * watch, while the edited one is put in force under the QueuedKind's name. Under this object's lock.
     */
    private Declared retire(Declared old) {
        String retired = old.key + " (retired " + retirements.incrementAndGet() + ", " + old.kind.kind() + ")";
        declared.remove(old.key, old);
        LOG.infof("QueuedKind %s now declares another kind: its %s jobs drain (as %s)", old.key, old.kind.kind(),
                retired);
        old.key = retired;
        declared.put(retired, old);
        return old;
    }

    /**
     * The QueuedKind was deleted: as {@link #remove}, and a check of it still going on (its access reviews may take
     * seconds) does not put it in force when it ends.
     *
     * @param q the deleted declaration, as last seen
     */
    public void deleted(QueuedKind q) {
        synchronized (this) { // ordered with putInForce: either it is in force now and drains, or it never will be
            if (q.getMetadata().getUid() != null) {
                deletedUids.add(q.getMetadata().getUid());
            }
        }
        remove(q.getMetadata().getName());
    }

    /**
     * The declaration is gone (or no longer valid): its pending jobs are forgotten now, its running ones stay charged
     * until they end; then its watch stops and the kind leaves the registry.
     *
     * <p>Locks: a declaration's own lock ({@code d}) orders the drain against its watch's events, so a job is never
     * forgotten by one and seen again by the other; {@link #finish} takes this object's lock, then {@code d}'s, as
     * {@link #putInForce} does, and is called with neither held.
     */
    public void remove(String name) {
        Declared d = declared.get(name);
        if (d == null) {
            return;
        }
        boolean done;
        synchronized (d) {
            if (d.draining) {
                return;
            }
            d.draining = true;
            LOG.infof("QueuedKind %s removed or not in force: %s jobs are no longer queued; running ones stay charged"
                    + " until they end", name, d.kind.kind());
            if (d.watch == null) {
                // put in force at start-up, not watched yet: recovery charged its running jobs, and only a watch
                // sees them end
                d.watch = watch(d);
            } else {
                for (GenericKubernetesResource job : d.watch.getStore().list()) {
                    drain(d, job);
                }
            }
            done = drained(d);
        }
        if (done) {
            finish(d);
        }
    }

    /**
     * A job of a draining declaration: forgotten when it is pending or has ended (nothing of it is charged from now
     * on); a running one is left as the feed knows it, charged, until its end or delete is seen. Under {@code d}'s
     * lock.
     */
    private void drain(Declared d, GenericKubernetesResource job) {
        if (d.kind.held(job) || d.kind.finished(job)) {
            feed.deleted(d.kind, job);
        }
    }

    /**
     * Whether a draining declaration has no running job left: then its watch may stop. One whose watch has not
     * listed yet (start-up, before {@link #watchLoaded}; or a new watch) is not drained: the jobs recovery charged
     * are known only to its list. Under {@code d}'s lock.
     */
    private static boolean drained(Declared d) {
        if (!d.draining) {
            return false;
        }
        if (d.watch == null || !d.watch.hasSynced()) {
            return false;
        }
        return d.running.isEmpty()
                && d.watch.getStore().list().stream().noneMatch(j -> !d.kind.held(j) && !d.kind.finished(j));
    }

    /** Stops a drained declaration's watch and, unless another declaration holds its kind now, drops the kind. */
    private synchronized void finish(Declared d) {
        String name = d.key;
        if (declared.get(name) != d) {
            return; // replaced meanwhile (declared again): the new one holds the kind
        }
        stop(d);
        declared.remove(name, d);
        if (declared.values().stream().noneMatch(o -> o.kind.kind().equals(d.kind.kind()))) {
            registry.drop(d.kind.kind());
        }
        LOG.infof("QueuedKind %s: no %s job runs any more; its watch stopped", name, d.kind.kind());
    }

    private static void stop(Declared d) {
        synchronized (d) {
            if (d.watch != null) {
                d.watch.stop();
                d.watch = null;
            }
        }
    }

    private SharedIndexInformer<GenericKubernetesResource> watch(Declared d) {
        DeclaredJobKind kind = d.kind;
        SharedIndexInformer<GenericKubernetesResource> informer = client.genericKubernetesResources(kind.context())
                .inAnyNamespace().withLimit(JobReconciler.LIST_PAGE).runnableInformer(0);
        informer.itemStore(new PruningItemStore<>(kind::pruned));
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource job) {
                seen(job);
            }

            @Override
            public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource job) {
                seen(job);
            }

            @Override
            public void onDelete(GenericKubernetesResource job, boolean finalStateUnknown) {
                boolean done;
                synchronized (d) {
                    feed.deleted(kind, job);
                    d.running.remove(key(job));
                    done = drained(d);
                }
                if (done) {
                    finish(d);
                }
            }

            private void seen(GenericKubernetesResource job) {
                // the cache's copy, pruned once by its store (kept whole where it cannot be: the feed then reports
                // what is wrong with it at the object), as the built-in kinds' reconcilers read theirs; none: the job
                // was deleted meanwhile, and its delete follows
                GenericKubernetesResource cached = informer.getStore().getByKey(key(job));
                if (cached == null) {
                    return;
                }
                boolean done = false;
                synchronized (d) {
                    if (!kind.held(cached) && !kind.finished(cached)) {
                        d.running.put(key(job), cached);
                    } else {
                        d.running.remove(key(job));
                    }
                    if (d.draining) {
                        drain(d, cached);
                        done = drained(d);
                    } else {
                        feed.observeOrReport(kind, cached); // one that cannot be read gets its Warning, nothing more
                    }
                }
                if (done) {
                    finish(d);
                }
            }
        });
        informer.exceptionHandler((started, error) -> {
            LOG.warnf("cannot watch %s (%s): retrying", kind, String.valueOf(error.getMessage()).lines().findFirst().orElse(""));
            return true;
        });
        informer.start().thenRun(() -> listed(d, informer));
        return informer;
    }

    /**
     * The declaration's paths against the kind's CRD schema ({@link SchemaCheck}); nothing when the CRD cannot be read
     * (not installed yet: {@link #notServed} says so; or kube-queue may not get CRDs) or its version has no schema.
     */
    private List<String> schemaProblems(DeclaredJobKind kind) {
        io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition crd;
        try {
            crd = client.apiextensions().v1().customResourceDefinitions()
                    .withName(kind.plural() + "." + kind.apiGroup()).get();
        } catch (KubernetesClientException e) {
            LOG.debugf("the CRD of %s cannot be read (%s): its paths are not checked against its schema", kind,
                    e.getMessage());
            return List.of();
        }
        if (crd == null || crd.getSpec() == null || crd.getSpec().getVersions() == null) {
            return List.of();
        }
        return crd.getSpec().getVersions().stream().filter(v -> kind.version().equals(v.getName()))
                .filter(v -> v.getSchema() != null && v.getSchema().getOpenAPIV3Schema() != null).findFirst()
                .map(v -> kind.schemaProblems(new SchemaCheck(client.getKubernetesSerialization()
                        .convertValue(v.getSchema().getOpenAPIV3Schema(), com.fasterxml.jackson.databind.JsonNode.class))))
                .orElse(List.of());
    }

    /**
     * The watch's first list is in: a job the replaced declaration's watch had that this list does not show was
     * deleted between the two watches, and is released; a draining declaration with nothing running left stops.
     */
    private void listed(Declared d, SharedIndexInformer<GenericKubernetesResource> informer) {
        boolean done;
        synchronized (d) {
            for (GenericKubernetesResource job : d.before) {
                if (informer.getStore().getByKey(key(job)) == null) {
                    feed.deleted(d.kind, job);
                }
            }
            d.before = List.of();
            done = drained(d);
        }
        if (done) {
            finish(d);
        }
    }

    /**
     * The jobs a declaration's watch knows: its cache, and the running jobs its handler saw (a job deleted just now
     * is gone from the cache before its handler hears of it). The watch that replaces it releases those its first list
     * lacks ({@link #listed}).
     */
    private static List<GenericKubernetesResource> known(Declared d) {
        synchronized (d) {
            Map<String, GenericKubernetesResource> jobs = new java.util.LinkedHashMap<>(d.running);
            if (d.watch != null) {
                d.watch.getStore().list().forEach(j -> jobs.put(key(j), j));
            }
            return List.copyOf(jobs.values());
        }
    }

    private static String key(GenericKubernetesResource job) {
        return job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
    }

    /** Why the kind is not served (the API server's discovery does not list it); null if it is. */
    private String notServed(DeclaredJobKind kind) {
        APIResourceList resources;
        try {
            resources = client.getApiResources(kind.apiVersion());
        } catch (KubernetesClientException e) {
            return kind.apiVersion() + " cannot be discovered (" + brief(e) + ")";
        }
        if (resources == null || resources.getResources() == null) {
            return kind.apiVersion() + " is not served: is the CRD of " + kind.kind() + " installed?";
        }
        for (APIResource r : resources.getResources()) {
            if (kind.plural().equals(r.getName())) {
                if (!kind.kind().equals(r.getKind())) {
                    return kind.apiVersion() + " serves " + kind.plural() + " as kind " + r.getKind() + ", not "
                            + kind.kind();
                }
                if (Boolean.FALSE.equals(r.getNamespaced())) {
                    return kind.plural() + " is cluster-scoped: kube-queue queues namespaced jobs only";
                }
                return null;
            }
        }
        return kind.apiVersion() + " does not serve " + kind.plural() + ": is the CRD of " + kind.kind()
                + " installed, at that version?";
    }

    /**
     * The verbs of {@link JobKinds#VERBS} kube-queue may not use on the kind in every namespace, by one
     * SelfSubjectAccessReview each.
     *
     * @throws KubernetesClientException when a review fails (no verdict): the rights are not known
     */
    private List<String> missingVerbs(DeclaredJobKind kind) {
        List<String> missing = new ArrayList<>();
        for (String verb : JobKinds.VERBS) {
            SelfSubjectAccessReview review = new SelfSubjectAccessReviewBuilder().withNewMetadata().endMetadata()
                    .withNewSpec().withNewResourceAttributes().withGroup(kind.apiGroup()).withResource(kind.plural())
                    .withVerb(verb).endResourceAttributes().endSpec().build();
            SelfSubjectAccessReview answer = client.authorization().v1().selfSubjectAccessReview().create(review);
            if (answer == null || answer.getStatus() == null || !Boolean.TRUE.equals(answer.getStatus().getAllowed())) {
                missing.add(verb);
            }
        }
        return missing;
    }

    /** A failure in a few words: its HTTP code and the first line of its message, cut to 200 characters. */
    private static String brief(KubernetesClientException e) {
        String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                : String.valueOf(e.getMessage());
        message = message.lines().findFirst().orElse("");
        if (message.length() > 200) {
            message = message.substring(0, 200) + "...";
        }
        return (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " : "") + message;
    }

    private static String resource(DeclaredJobKind kind) {
        return kind.plural() + "." + kind.apiGroup();
    }

    private static Condition condition(String type, boolean status, String reason, String message) {
        return new ConditionBuilder().withType(type).withStatus(status ? "True" : "False").withReason(reason)
                .withMessage(message).build();
    }

    /**
     * Writes the conditions (one merge patch of the status) unless they say what the status says already; a
     * condition that turns False gets one Warning on the declaration.
     */
    private void writeStatus(QueuedKind q, long generation, List<Condition> conditions) {
        QueuedKindStatus old = q.getStatus();
        String now = Instant.now().toString();
        List<Condition> written = new ArrayList<>();
        boolean changed = old == null || !Objects.equals(old.observedGeneration, generation);
        for (Condition c : conditions) {
            Condition before = old == null || old.conditions == null ? null : old.conditions.stream()
                    .filter(o -> c.getType().equals(o.getType())).findFirst().orElse(null);
            boolean same = before != null && c.getStatus().equals(before.getStatus())
                    && Objects.equals(c.getReason(), before.getReason())
                    && Objects.equals(c.getMessage(), before.getMessage());
            c.setLastTransitionTime(same && before.getLastTransitionTime() != null ? before.getLastTransitionTime()
                    : now);
            c.setObservedGeneration(generation);
            changed |= !same;
            if (!same && "False".equals(c.getStatus()) && !"Ready".equals(c.getType())) {
                events.warning(q, c.getReason(), c.getMessage());
            }
            written.add(c);
        }
        if (old != null && old.conditions != null && old.conditions.size() != written.size()) {
            changed = true;
        }
        if (!changed) {
            return;
        }
        QueuedKindStatus status = new QueuedKindStatus();
        status.observedGeneration = generation;
        status.conditions = written;
        QueuedKind patch = new QueuedKind();
        patch.setStatus(status);
        try {
            client.resources(QueuedKind.class).withName(q.getMetadata().getName()).subresource("status")
                    .patch(PatchContext.of(PatchType.JSON_MERGE), client.getKubernetesSerialization().asJson(patch));
        } catch (KubernetesClientException e) {
            LOG.warnf("cannot write the status of QueuedKind %s (%s)", q.getMetadata().getName(), brief(e));
        }
    }
}
