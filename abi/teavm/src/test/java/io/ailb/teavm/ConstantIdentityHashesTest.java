package io.ailb.teavm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The JVM that {@link BuildWasm#main} compiles in hands every object the same identity hash. */
class ConstantIdentityHashesTest {

    /** Prints whether this JVM reports the option and whether fresh objects share their identity hash. */
    public static void main(String[] args) {
        boolean shared = System.identityHashCode(new Object()) == System.identityHashCode(new Object())
                && System.identityHashCode(new Object()) == System.identityHashCode(new StringBuilder());
        System.out.print("reported=" + ConstantIdentityHashes.inThisJvm() + " shared=" + shared);
    }

    @Test
    void theCommandStartsAJvmWithConstantIdentityHashesWhateverHashModeTheCallerHad() throws Exception {
        List<String> callerOptions =
                List.of("-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=3", "-XX:+UseSerialGC", "-Xmx256m");

        assertEquals("reported=true shared=true", runReport(callerOptions));
    }

    @Test
    void aJvmStartedWithoutTheOptionsIsToldApart() throws Exception {
        List<String> command =
                List.of(javaExecutable(), "-classpath", testClassPath(), ConstantIdentityHashesTest.class.getName());

        assertEquals("reported=false shared=false", output(command));
        assertFalse(ConstantIdentityHashes.inThisJvm(), "Surefire's JVM runs with the JVM's own hash mode");
    }

    @Test
    void theCallersJvmOptionsCarryOverButItsAgentsDoNot() {
        List<String> command = ConstantIdentityHashes.command(
                "/jdk",
                List.of("-Xmx2g", "-javaagent:/cov.jar", "-agentlib:jdwp=transport=dt_socket,server=y", "-Dk=v"),
                "a.jar",
                "x.Main",
                new String[] {"--out", "m.wasm"});

        assertEquals(
                List.of(
                        new File("/jdk/bin/java").getPath(),
                        "-Xmx2g",
                        "-Dk=v",
                        "-XX:+UnlockExperimentalVMOptions",
                        "-XX:hashCode=2",
                        "-D" + ConstantIdentityHashes.CHILD_PROPERTY + "=true",
                        "-classpath",
                        "a.jar",
                        "x.Main",
                        "--out",
                        "m.wasm"),
                command);
    }

    private static String runReport(List<String> callerOptions) throws Exception {
        return output(ConstantIdentityHashes.command(
                System.getProperty("java.home"),
                callerOptions,
                testClassPath(),
                ConstantIdentityHashesTest.class.getName(),
                new String[0]));
    }

    private static String output(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        return output;
    }

    private static String javaExecutable() {
        return new File(System.getProperty("java.home"), "bin/java").getPath();
    }

    private static String testClassPath() {
        return TestClassPath.files().stream().map(File::getPath).collect(Collectors.joining(File.pathSeparator));
    }
}
