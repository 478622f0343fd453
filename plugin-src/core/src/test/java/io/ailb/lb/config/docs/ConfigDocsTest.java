package io.ailb.lb.config.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.ailb.lb.policy.PolicyRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The files derived from the configuration descriptors agree with them: higress-config/spec.yaml (console schema),
 * the field tables of higress-config/README.md, higress-config/broken-configs.yaml, and the policy table of README.md.
 *
 * <p>Regenerate the generated parts after changing a descriptor or the registry (then review the diff):
 * <pre>{@value #REGENERATE}</pre>
 */
class ConfigDocsTest {
    static final String SWITCH = "regenerateConfigDocs";
    static final String REGENERATE = "mvn -B -o -q test -pl plugin-src/core -am -Dtest=ConfigDocsTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -D" + SWITCH + "=true";
    private static final String HOW_TO_FIX = "\nThe descriptors (io.ailb.lb.config.*Field constants, PolicyRegistry) "
            + "are the source: regenerate from the project root with\n  " + REGENERATE + "\nand review the diff.";
    /** Tests run in the module folder, plugin-src/core. */
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

    private static final Path SPEC = ROOT.resolve("higress-config/spec.yaml");
    private static final Path CONFIG_README = ROOT.resolve("higress-config/README.md");
    private static final Path BROKEN = ROOT.resolve("higress-config/broken-configs.yaml");
    private static final Path README = ROOT.resolve("README.md");

    @BeforeAll
    static void regenerateWhenAsked() throws IOException {
        if (!Boolean.getBoolean(SWITCH)) {
            return;
        }
        rewrite(SPEC, SpecYaml::generate);
        rewrite(CONFIG_README, ReadmeTables::generate);
        rewrite(BROKEN, BrokenConfigs::generate);
    }

    @Test
    void specYamlStatesWhatTheDescriptorsSay() throws IOException {
        List<String> differences = SpecYaml.differences(read(SPEC));
        if (!differences.isEmpty()) {
            fail(ROOT.relativize(SPEC) + " disagrees with the descriptors:\n  " + String.join("\n  ", differences)
                    + HOW_TO_FIX);
        }
    }

    @Test
    void specYamlIsInItsGeneratedForm() throws IOException {
        assertGenerated(SPEC, SpecYaml.generate(read(SPEC)));
    }

    @Test
    void theHigressReadmeFieldTablesAreGenerated() throws IOException {
        assertGenerated(CONFIG_README, ReadmeTables.generate(read(CONFIG_README)));
    }

    @Test
    void theReadmePolicyTableNamesEveryRegisteredPolicy() throws IOException {
        Set<String> listed = ReadmeTables.policyTableNames(read(README));
        Set<String> registered = new LinkedHashSet<>(PolicyRegistry.names());
        assertEquals(
                registered,
                listed,
                "README.md's policy table (the one under " + ReadmeTables.POLICY_TABLE_HEADER
                        + ") names policies in its first column in backquotes: add a row for each registered policy, "
                        + "remove names the registry does not have");
    }

    @Test
    void everyBrokenConfigIsRefusedWithItsMessage() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (BrokenConfigs.Case c : BrokenConfigs.cases(read(BROKEN))) {
            String error = BrokenConfigs.refusal(c.config());
            if (!c.error().equals(error)) {
                wrong.add("\"" + c.name() + "\": expected '" + c.error() + "', the core says "
                        + (error == null ? "nothing (accepted)" : "'" + error + "'"));
            }
        }
        if (!wrong.isEmpty()) {
            fail(ROOT.relativize(BROKEN) + ":\n  " + String.join("\n  ", wrong) + HOW_TO_FIX);
        }
    }

    @Test
    void everyBoundOfEveryRangedFieldHasABrokenConfig() throws IOException {
        List<BrokenConfigs.Case> cases = BrokenConfigs.cases(read(BROKEN));
        List<String> untested = new ArrayList<>();
        for (BrokenConfigs.Bound bound : BrokenConfigs.bounds()) {
            if (cases.stream().noneMatch(c -> BrokenConfigs.tests(c.error(), bound))) {
                untested.add(bound.describe());
            }
        }
        if (!untested.isEmpty()) {
            fail(ROOT.relativize(BROKEN) + " has no refused value for: " + untested + HOW_TO_FIX);
        }
        assertTrue(BrokenConfigs.bounds().size() > 10, "bounds found: " + BrokenConfigs.bounds());
    }

    @Test
    void brokenConfigsIsInItsGeneratedForm() throws IOException {
        assertGenerated(BROKEN, BrokenConfigs.generate(read(BROKEN)));
    }

    private static void assertGenerated(Path file, String expected) throws IOException {
        String actual = read(file);
        if (!expected.equals(actual)) {
            fail(ROOT.relativize(file) + " differs from what the descriptors generate:\n"
                    + LineDiff.describe(actual, expected) + HOW_TO_FIX);
        }
    }

    private static void rewrite(Path file, UnaryOperator<String> generator) throws IOException {
        String current = read(file);
        String next = generator.apply(current);
        if (!next.equals(current)) {
            Files.writeString(file, next, StandardCharsets.UTF_8);
            System.out.println("regenerated " + file);
        }
    }

    private static String read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            fail(file + " not found; ConfigDocsTest runs in plugin-src/core of the project");
        }
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
