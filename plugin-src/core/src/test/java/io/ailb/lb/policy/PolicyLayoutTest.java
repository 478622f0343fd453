package io.ailb.lb.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.redis.LuaScript;
import io.ailb.lb.util.TestConfig;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The core's layout, checked over the compiled classes and the Lua sources so it cannot drift: {@code io.ailb.lb.policy} holds only the
 * contract, every registered policy has a package of its own named after it, and every Lua script lives in a policy
 * package that embeds it.
 */
class PolicyLayoutTest {
    private static final String POLICY_PACKAGE = "io.ailb.lb.policy";
    /** Everything the contract package may hold. */
    private static final Set<String> CONTRACT = Set.of(
            "FallbackReason",
            "LoadBalancingPolicy",
            "PolicyRegistry",
            "RequestContext",
            "ResponseObserver",
            "SharedState",
            "ScrapeRequest",
            "Step",
            "package-info");
    /** Sub-packages that are no policy of their own but what several policies share. */
    private static final Set<String> SHARED = Set.of("inflight", "ratelimit", "clusterheader");
    /** Enough configuration for any registered policy, the Redis ones included. */
    private static final String ANY_POLICY_CONFIG = "{" + PolicyFieldsTest.REQUIRED + "}";

    private static Path classesRoot() throws URISyntaxException {
        return Path.of(LoadBalancingPolicy.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    }

    private static Path policyDirectory() throws URISyntaxException {
        return classesRoot().resolve(POLICY_PACKAGE.replace('.', '/'));
    }

    /** The registered names of each policy class. */
    private static Map<Class<?>, List<String>> namesByClass() throws ConfigException {
        Map<Class<?>, List<String>> out = new HashMap<>();
        for (String name : PolicyRegistry.names()) {
            LoadBalancingPolicy policy = PolicyRegistry.create(name, "lb_policy", TestConfig.view(ANY_POLICY_CONFIG));
            out.computeIfAbsent(policy.getClass(), c -> new ArrayList<>()).add(name);
        }
        return out;
    }

    @Test
    void thePolicyPackageHoldsOnlyTheContract() throws IOException, URISyntaxException {
        Set<String> topLevel;
        try (Stream<Path> files = Files.list(policyDirectory())) {
            topLevel = files.filter(Files::isRegularFile)
                    .map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()))
                    .map(n -> n.contains("$") ? n.substring(0, n.indexOf('$')) : n)
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertTrue(topLevel.containsAll(Set.of("LoadBalancingPolicy", "Step", "PolicyRegistry")), topLevel.toString());
        assertTrue(
                CONTRACT.containsAll(topLevel),
                "io.ailb.lb.policy may hold only the contract " + CONTRACT
                        + "; a policy and its parts belong in a sub-package: " + topLevel);
    }

    @Test
    void everyRegisteredPolicyHasAPackageOfItsOwnNamedAfterIt() throws ConfigException {
        Map<String, Class<?>> classByPackage = new HashMap<>();
        for (Map.Entry<Class<?>, List<String>> entry : namesByClass().entrySet()) {
            String pkg = entry.getKey().getPackageName();
            String names = entry.getValue().toString();
            assertTrue(pkg.startsWith(POLICY_PACKAGE + "."), names + " is in " + pkg);
            String leaf = pkg.substring(POLICY_PACKAGE.length() + 1);
            assertFalse(leaf.contains("."), names + " must be a direct sub-package of " + POLICY_PACKAGE + ": " + pkg);
            assertFalse(SHARED.contains(leaf), names + " must not live in the shared package " + pkg);
            assertTrue(
                    entry.getValue().stream()
                            .anyMatch(name -> name.replace("_", "").equals(leaf)),
                    "the package of " + names + " is named after one of them without underscores: " + pkg);
            Class<?> other = classByPackage.put(pkg, entry.getKey());
            assertNull(other, pkg + " holds two policies");
        }
    }

    @Test
    void everySubPackageIsAPolicyOrDeclaredShared() throws IOException, URISyntaxException, ConfigException {
        Set<String> policyPackages = new TreeSet<>();
        for (Class<?> policy : namesByClass().keySet()) {
            policyPackages.add(policy.getPackageName().substring(POLICY_PACKAGE.length() + 1));
        }
        Set<String> subPackages;
        try (Stream<Path> entries = Files.list(policyDirectory())) {
            subPackages = entries.filter(Files::isDirectory)
                    .map(p -> p.getFileName().toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        Set<String> unexplained = new TreeSet<>(subPackages);
        unexplained.removeAll(policyPackages);
        unexplained.removeAll(SHARED);
        assertEquals(Set.of(), unexplained, "neither a registered policy's package nor declared shared");
    }

    /** The sources, not the copies in the build output, which may keep files that no longer exist. */
    @Test
    void everyLuaScriptLivesInAPolicyPackageThatEmbedsIt() throws Exception {
        Path root = Path.of("src/main/resources");
        List<Path> scripts;
        try (Stream<Path> files = Files.walk(root)) {
            scripts = files.filter(p -> p.getFileName().toString().endsWith(".lua"))
                    .sorted()
                    .toList();
        }
        assertFalse(scripts.isEmpty(), "no Lua resources under " + root);
        for (Path script : scripts) {
            Path dir = root.relativize(script.getParent());
            String pkg = dir.toString().replace(dir.getFileSystem().getSeparator(), ".");
            assertTrue(pkg.startsWith(POLICY_PACKAGE + "."), script + " is outside the policy packages");
            String file = script.getFileName().toString();
            if (file.startsWith("_")) {
                continue;
            }
            String name = file.substring(0, file.length() - ".lua".length());
            assertTrue(
                    embeddedScriptNames(classesRoot().resolve(dir), pkg).contains(name),
                    file + " has no LuaScript constant named " + name + " in " + pkg);
        }
    }

    /** The names of the public LuaScript constants the classes of one package declare. */
    private static Set<String> embeddedScriptNames(Path packageDirectory, String pkg) throws Exception {
        Set<String> names = new TreeSet<>();
        List<Path> classes;
        try (Stream<Path> files = Files.list(packageDirectory)) {
            classes = files.filter(p -> p.getFileName().toString().endsWith(".class"))
                    .toList();
        }
        for (Path classFile : classes) {
            String simple = classFile.getFileName().toString().replace(".class", "");
            Class<?> type = Class.forName(pkg + "." + simple, false, PolicyLayoutTest.class.getClassLoader());
            for (Field field : type.getDeclaredFields()) {
                int modifiers = field.getModifiers();
                if (field.getType() == LuaScript.class
                        && Modifier.isStatic(modifiers)
                        && Modifier.isPublic(modifiers)) {
                    field.setAccessible(true);
                    names.add(((LuaScript) field.get(null)).name());
                }
            }
        }
        return names;
    }
}
