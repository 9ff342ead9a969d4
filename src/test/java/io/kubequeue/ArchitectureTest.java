package io.kubequeue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;

/**
 * The layering of {@code src/main/java} (docs/architecture.md, "The map"), read from the compiled classes, so a
 * fully qualified name in code counts as much as an import. Each top-level package of {@code io.kubequeue} has a
 * rank ({@link #RANKS}); a class may use a class of its own package (subpackages included) or of a package of a lower
 * rank, never one of the same rank or above: no arrow runs back up, and two packages never lean on each other.
 * The core ({@code scheduler}) also uses no Kubernetes, fabric8, CDI or Quarkus type, so that it can be copied,
 * replayed and tested on its own.
 */
class ArchitectureTest {

    /**
     * Lowest first. Packages of one rank are siblings that may not use each other. A new top-level package must be
     * ranked here (the test fails on an unranked one).
     */
    static final Map<String, Integer> RANKS = Map.ofEntries(
            Map.entry("collections", 0), Map.entry("concurrent", 0), Map.entry("config", 0), Map.entry("input", 0),
            Map.entry("scheduler", 1), // the core: values and decisions, no Kubernetes
            Map.entry("resources", 2), // quantities and pod-request arithmetic (fabric8 model types)
            Map.entry("leader", 3),
            Map.entry("events", 4),
            Map.entry("pricing", 5), Map.entry("priority", 5), // watches feeding the job feed and the core
            Map.entry("job", 6), // the kinds and the feed into the core
            Map.entry("quota", 7), // the quota plugins (the ResourceQuota one counts managed jobs' pods)
            Map.entry("admission", 8), // the writes that change whether a job runs
            Map.entry("api", 9), // the read API and metrics
            Map.entry("webhook", 9), // the admission webhook's decisions
            Map.entry("visibility", 9), // the aggregated API: its resources, tables, who calls and what they may read
            Map.entry("serving", 10), // the HTTPS endpoint of the two above: TLS, certificates, the forward to the leader
            Map.entry("operator", 11)); // wiring and start-up

    private static final String ROOT = "io.kubequeue.";
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("io.kubequeue");

    /** {@code scheduler} for {@code io.kubequeue.scheduler.queue.QueueManager}; empty for a class outside our packages. */
    static Optional<String> topPackage(JavaClass type) {
        String name = type.getPackageName();
        if (!name.startsWith(ROOT)) {
            return Optional.empty();
        }
        String rest = name.substring(ROOT.length());
        int dot = rest.indexOf('.');
        return Optional.of(dot < 0 ? rest : rest.substring(0, dot));
    }

    /**
     * The core's parts, lowest first ({@code ""}: {@code scheduler} itself, where the cycle, the policies, the views,
     * the intake and the facade are): each uses the parts below it and never one above, so the ledger can be read
     * without the queue, and the queue without the eviction part. A new package of the core must be ranked here.
     */
    static final Map<String, Integer> CORE_RANKS = Map.of("model", 0, "ledger", 1, "queue", 2, "eviction", 3,
            "forecast", 4, "", 5);

    /** {@code queue} for {@code io.kubequeue.scheduler.queue.QueueManager}, {@code ""} for the core's own package. */
    static Optional<String> corePart(JavaClass type) {
        if (!inCore(type)) {
            return Optional.empty();
        }
        String rest = type.getPackageName().substring((ROOT + "scheduler").length());
        return Optional.of(rest.isEmpty() ? "" : rest.substring(1).split("\\.")[0]);
    }

    /** Each dependency that runs sideways or up, as "origin -> target (rank → rank)"; none is allowed. */
    static List<String> upwardArrows(JavaClasses classes, Map<String, Integer> ranks) {
        return upwardArrows(classes, ranks, ArchitectureTest::topPackage);
    }

    /** As {@link #upwardArrows(JavaClasses, Map)}, for the packages {@code packageOf} names. */
    static List<String> upwardArrows(JavaClasses classes, Map<String, Integer> ranks,
                                     Function<JavaClass, Optional<String>> packageOf) {
        List<String> arrows = new ArrayList<>();
        for (JavaClass origin : classes) {
            Optional<String> from = packageOf.apply(origin);
            if (from.isEmpty() || !ranks.containsKey(from.get())) {
                continue; // unranked packages fail everyPackageIsRanked
            }
            for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                Optional<String> to = packageOf.apply(d.getTargetClass());
                if (to.isEmpty() || to.get().equals(from.get()) || !ranks.containsKey(to.get())) {
                    continue;
                }
                if (ranks.get(to.get()) >= ranks.get(from.get())) {
                    arrows.add(origin.getName() + " -> " + d.getTargetClass().getName() + " (" + from.get() + " "
                            + ranks.get(from.get()) + " uses " + to.get() + " " + ranks.get(to.get()) + ")");
                }
            }
        }
        return arrows.stream().distinct().sorted().toList();
    }

    @Test
    void everyPackageIsRanked() {
        TreeSet<String> unranked = new TreeSet<>();
        for (JavaClass type : MAIN) {
            topPackage(type).filter(p -> !RANKS.containsKey(p)).ifPresent(unranked::add);
        }
        assertEquals(new TreeSet<>(), unranked, "rank each new top-level package in ArchitectureTest.RANKS");
        assertTrue(MAIN.size() > 100, "the main classes were not found: " + MAIN.size());
    }

    @Test
    void noDependencyRunsSidewaysOrBackUp() {
        assertEquals(List.of(), upwardArrows(MAIN, RANKS));
    }

    /** The rule can fail: ranked the other way round, the core's own users are arrows running up. */
    @Test
    void theRuleSeesAnArrowRunningUp() {
        Map<String, Integer> upsideDown = new HashMap<>(RANKS);
        upsideDown.put("scheduler", 11);
        assertTrue(upwardArrows(MAIN, upsideDown).stream().anyMatch(a -> a.startsWith("io.kubequeue.admission.")),
                "admission uses the core: with the core ranked on top that is an arrow running up");
    }

    @Test
    void everyPartOfTheCoreIsRanked() {
        TreeSet<String> unranked = new TreeSet<>();
        for (JavaClass type : MAIN) {
            corePart(type).filter(p -> !CORE_RANKS.containsKey(p)).ifPresent(unranked::add);
        }
        assertEquals(new TreeSet<>(), unranked, "rank each new package of the core in ArchitectureTest.CORE_RANKS");
        TreeSet<String> found = new TreeSet<>();
        MAIN.forEach(type -> corePart(type).ifPresent(found::add));
        assertEquals(new TreeSet<>(CORE_RANKS.keySet()), found, "a rank of CORE_RANKS names a part that is gone");
    }

    /** Inside the core: eviction above the queue, the queue above the ledger, the values at the bottom. */
    @Test
    void theCoresPartsRunOneWay() {
        assertEquals(List.of(), upwardArrows(MAIN, CORE_RANKS, ArchitectureTest::corePart));
    }

    /** The rule can fail: with the ledger ranked above the queue, the queue's use of it is an arrow running up. */
    @Test
    void theCoreRuleSeesAnArrowRunningUp() {
        Map<String, Integer> swapped = new HashMap<>(CORE_RANKS);
        swapped.put("ledger", 2);
        swapped.put("queue", 1);
        assertTrue(upwardArrows(MAIN, swapped, ArchitectureTest::corePart).stream()
                        .anyMatch(a -> a.startsWith(ROOT + "scheduler.queue.QueueManager -> " + ROOT + "scheduler.ledger.")),
                upwardArrows(MAIN, swapped, ArchitectureTest::corePart).toString());
    }

    @Test
    void theTopLevelPackagesHaveNoCycles() {
        SlicesRuleDefinition.slices().matching("io.kubequeue.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void theCoreUsesNoKubernetesNoCdiAndNoQuarkus() {
        ArchRuleDefinition.noClasses().that().resideInAPackage("io.kubequeue.scheduler..")
                .should().dependOnClassesThat().resideInAnyPackage("io.fabric8..", "io.javaoperatorsdk..",
                        "jakarta..", "io.quarkus..", "io.quarkiverse..", "org.eclipse.microprofile..")
                .check(MAIN);
    }

    /**
     * A client of the core depends on the roles it uses ({@code JobIntake}, {@code Cycles}, {@code AdmissionSettling},
     * {@code EvictionSettling}, {@code ClusterIntake}, {@code ReadViews}), never on {@code Scheduler} itself; only the
     * wiring ({@code operator}) builds and hands it out. The core's values ({@code scheduler.model}: {@code JobState},
     * {@code JobStatus}, …) are free to use.
     */
    @Test
    void onlyTheWiringKnowsTheSchedulerItself() {
        assertEquals(List.of(), usersOfTheScheduler(MAIN));
    }

    /** The rule can fail: the wiring itself uses the scheduler. */
    @Test
    void theSchedulerRuleSeesAUser() {
        assertTrue(usersOfTheScheduler(MAIN, "operator").stream().anyMatch(u -> u.contains("SchedulerProducer")),
                usersOfTheScheduler(MAIN, "operator").toString());
    }

    /**
     * The parts of the core and its values never lean on the facade: the facade uses its parts, the parts use one
     * another and {@code scheduler.model}, so a part can be read, tested and copied without {@code Scheduler}.
     */
    @Test
    void thePartsOfTheCoreDoNotUseTheFacade() {
        assertEquals(List.of(), partsUsingTheFacade(MAIN));
    }

    /** The rule can fail: the core's own tests use the facade. */
    @Test
    void theFacadeRuleSeesAUser() {
        JavaClasses tests = new ClassFileImporter().withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
                .importPackages(ROOT + "scheduler");
        assertTrue(partsUsingTheFacade(tests).stream().anyMatch(u -> u.contains("SchedulerTest")),
                partsUsingTheFacade(tests).toString());
    }

    /**
     * The rest of kube-queue sees the core through its values ({@code scheduler.model}) and its roles only: no
     * class outside the core names a part of it (the queue, the ledger, the eviction part, ...), so the parts can be
     * rearranged without touching their clients. The facade itself is the wiring's ({@link
     * #onlyTheWiringKnowsTheSchedulerItself}).
     */
    @Test
    void outsideTheCoreOnlyItsValuesAndRolesAreUsed() {
        assertEquals(List.of(), usesOfTheCoresParts(MAIN, ROLES));
    }

    /** The rule can fail: without its roles allowed, the admission side is seen using the core. */
    @Test
    void thePartsRuleSeesAUser() {
        assertTrue(usesOfTheCoresParts(MAIN, Set.of()).stream().anyMatch(u -> u.contains("AdmissionLoop")),
                usesOfTheCoresParts(MAIN, Set.of()).toString());
    }

    /** The core's roles, and the facade that implements them. */
    private static final Set<String> ROLES = Set.of("JobIntake", "Cycles", "AdmissionSettling", "EvictionSettling",
            "ClusterIntake", "ReadViews", "Forecasting", "Scheduler");

    private static final String FACADE = ROOT + "scheduler.Scheduler";

    private static List<String> usesOfTheCoresParts(JavaClasses classes, Set<String> allowed) {
        return dependencies(classes, origin -> topPackage(origin).map(p -> !p.equals("scheduler")).orElse(false),
                target -> corePart(target).filter(part -> !part.equals("model")).isPresent()
                        && !allowed.contains(outermost(target)),
                "uses a part of the core");
    }

    private static List<String> partsUsingTheFacade(JavaClasses classes) {
        return dependencies(classes, origin -> inCore(origin) && !outermostName(origin).equals(FACADE),
                target -> target.getName().equals(FACADE), "uses the facade");
    }

    private static List<String> usersOfTheScheduler(JavaClasses classes, String... exempt) {
        Set<String> allowed = new TreeSet<>(Set.of("scheduler", "operator"));
        allowed.removeAll(Set.of(exempt));
        return dependencies(classes, origin -> !topPackage(origin).map(allowed::contains).orElse(true),
                target -> target.getName().equals(FACADE), "uses Scheduler");
    }

    /**
     * Every dependency of a class {@code from} accepts on a class {@code to} accepts, as "origin {@code what}:
     * description", each once, sorted.
     */
    private static List<String> dependencies(JavaClasses classes, Predicate<JavaClass> from, Predicate<JavaClass> to,
                                             String what) {
        List<String> found = new ArrayList<>();
        for (JavaClass origin : classes) {
            if (!from.test(origin)) {
                continue;
            }
            for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                if (to.test(d.getTargetClass())) {
                    found.add(origin.getName() + " " + what + ": " + d.getDescription());
                }
            }
        }
        return found.stream().distinct().sorted().toList();
    }

    private static boolean inCore(JavaClass type) {
        return topPackage(type).map("scheduler"::equals).orElse(false);
    }

    /** The name of the top-level class {@code type} is or is nested in: {@code a.B} for {@code a.B$C}. */
    private static String outermostName(JavaClass type) {
        String name = type.getName();
        int nested = name.indexOf('$');
        return nested < 0 ? name : name.substring(0, nested);
    }

    /** The simple name of the top-level class {@code type} is or is nested in. */
    private static String outermost(JavaClass type) {
        String name = outermostName(type);
        return name.substring(name.lastIndexOf('.') + 1);
    }

    /**
     * Which classes write each field of the core's classes (a field set outside constructors and static initialisers,
     * by class). Owned state has one writing class: the part that owns it. {@code JobEntry}'s own methods (its
     * setters, which also keep its {@code Extras}) are not writers: a call to one counts as a write, by the caller, of
     * every field the method sets, directly or through another of {@code JobEntry}'s methods; {@code Extras}' fields
     * are named as {@code JobEntry}'s.
     */
    static Map<String, SortedSet<String>> writersOfCoreFields() {
        Map<String, SortedSet<String>> writers = new TreeMap<>();
        Map<JavaCodeUnit, Set<String>> entrySets = fieldsSetByEntryMethods();
        for (JavaClass type : MAIN) {
            if (!type.getPackageName().startsWith(ROOT + "scheduler") || isEntry(type)) {
                continue;
            }
            String writer = writerName(type);
            for (JavaFieldAccess access : type.getFieldAccessesFromSelf()) {
                if (access.getAccessType() != JavaFieldAccess.AccessType.SET || isInitialiser(access.getOrigin())
                        || !access.getTarget().getOwner().getName().startsWith(ROOT)) {
                    continue;
                }
                writers.computeIfAbsent(fieldName(access.getTarget().getOwner(), access.getTarget().getName()),
                        k -> new TreeSet<>()).add(writer);
            }
            for (JavaMethodCall call : type.getMethodCallsFromSelf()) {
                if (isInitialiser(call.getOrigin())) {
                    continue;
                }
                entryMethodCalled(call).map(entrySets::get).ifPresent(fields -> fields.forEach(
                        field -> writers.computeIfAbsent(field, k -> new TreeSet<>()).add(writer)));
            }
        }
        return writers;
    }

    private static boolean isEntry(JavaClass type) {
        return inCore(type) && outermost(type).equals("JobEntry");
    }

    /**
     * The method of {@code JobEntry} a call runs: its own, or its implementation of a method of an interface it
     * implements (a part below the queue sees an entry through such a port, e.g. the ledger's {@code Chargeable}).
     */
    private static Optional<JavaCodeUnit> entryMethodCalled(JavaMethodCall call) {
        Optional<? extends JavaCodeUnit> target = call.getTarget().resolveMember();
        if (target.isEmpty()) {
            return Optional.empty();
        }
        JavaCodeUnit method = target.get();
        if (isEntry(method.getOwner()) || !method.getOwner().isInterface()) {
            return Optional.of(method);
        }
        List<String> parameters = method.getRawParameterTypes().stream().map(JavaClass::getName).toList();
        return MAIN.stream().filter(ArchitectureTest::isEntry)
                .filter(entry -> entry.getAllRawInterfaces().contains(method.getOwner()))
                .flatMap(entry -> entry.getCodeUnits().stream())
                .filter(unit -> unit.getName().equals(method.getName()) && unit.getRawParameterTypes().stream()
                        .map(JavaClass::getName).toList().equals(parameters))
                .map(unit -> (JavaCodeUnit) unit).findFirst();
    }

    private static boolean isInitialiser(JavaCodeUnit unit) {
        return unit.isConstructor() || unit.getName().equals("<clinit>");
    }

    /**
     * A lambda or inner class writes for its outer class; a class is named by its part and name ({@code
     * queue.QueueManager}, {@code AdmissionAnswers} in the core's own package), so that two classes of one simple
     * name in two parts count as two writers.
     */
    private static String writerName(JavaClass type) {
        String name = outermostName(type);
        return name.startsWith(ROOT + "scheduler.") ? name.substring((ROOT + "scheduler.").length()) : name;
    }

    private static String fieldName(JavaClass owner, String field) {
        return (isEntry(owner) ? "JobEntry" : writerName(owner)) + "." + field;
    }

    /**
     * Each method of {@code JobEntry} and the fields it sets, directly or through the entry's other methods (not the
     * bookkeeping field {@code extras} itself).
     */
    private static Map<JavaCodeUnit, Set<String>> fieldsSetByEntryMethods() {
        Map<JavaCodeUnit, Set<String>> sets = new HashMap<>();
        List<JavaCodeUnit> units = new ArrayList<>();
        for (JavaClass type : MAIN) {
            if (isEntry(type)) {
                for (JavaCodeUnit unit : type.getCodeUnits()) {
                    if (isInitialiser(unit)) {
                        continue;
                    }
                    units.add(unit);
                    Set<String> fields = new TreeSet<>();
                    for (JavaFieldAccess access : unit.getFieldAccesses()) {
                        if (access.getAccessType() == JavaFieldAccess.AccessType.SET
                                && !access.getTarget().getName().equals("extras")) {
                            fields.add(fieldName(access.getTarget().getOwner(), access.getTarget().getName()));
                        }
                    }
                    sets.put(unit, fields);
                }
            }
        }
        for (boolean grew = true; grew; ) { // through the entry's own calls, until nothing is added
            grew = false;
            for (JavaCodeUnit unit : units) {
                for (JavaMethodCall call : unit.getMethodCallsFromSelf()) {
                    Optional<? extends JavaCodeUnit> callee = call.getTarget().resolveMember();
                    if (callee.isPresent() && sets.containsKey(callee.get())) {
                        grew |= sets.get(unit).addAll(sets.get(callee.get()));
                    }
                }
            }
        }
        sets.values().removeIf(Set::isEmpty);
        return sets;
    }

    /**
     * Every field of the core is written by one class, its owner (docs/architecture.md, "Who owns what"): the
     * placement of a job by {@code QueueManager}, its charge by {@code QuotaLedger}, the answer to its admission by
     * {@code AdmissionAnswers}, its evictions by {@code Evictions}. Another part asks the owner, by a named method.
     */
    @Test
    void everyFieldOfTheCoreHasOneWriter() {
        Map<String, SortedSet<String>> shared = new TreeMap<>();
        writersOfCoreFields().forEach((field, writers) -> {
            if (writers.size() > 1) {
                shared.put(field, writers);
            }
        });
        assertEquals(new TreeMap<>(), shared, "a field of the core is written by one class, its owner");
    }

    /**
     * The count sees both ways of writing: a direct assignment (the dry run's entry gets its group from the queue
     * manager, not from the views) and a call of one of the entry's setters (the admission's answer).
     */
    @Test
    void theWriterCountSeesWhoAssignsAField() {
        Map<String, SortedSet<String>> writers = writersOfCoreFields();
        assertEquals(Set.of("queue.QueueManager"), writers.get("JobEntry.group"));
        assertEquals(Set.of("queue.QueueManager"), writers.get("JobEntry.state"));
        assertEquals(Set.of("AdmissionAnswers"), writers.get("JobEntry.answer"), "through a setter");
        assertEquals(Set.of("queue.QueueManager"), writers.get("JobEntry.priority"), "through setJob");
        assertEquals(Set.of("ledger.QuotaLedger"), writers.get("JobEntry.charge"), "through the ledger's port");
        assertEquals(Set.of("ledger.QuotaLedger"), writers.get("JobEntry.admittedCountedIn"), "through the port");
        assertEquals(Set.of("queue.QueueManager"), writers.get("queue.BackoffWave.attempts"), "a wave's tries");
        assertTrue(writers.size() > 40, "fields found: " + writers.keySet());
    }
}
