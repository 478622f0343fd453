package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.WasmArtifacts;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example of abi/emulator/README.md compiles and runs as a reader would copy it. */
class EmulatorReadmeExampleTest {
    private static final Path README =
            Path.of("../../abi/emulator/README.md").toAbsolutePath().normalize();
    private static final String MODULE_PATH = "Path.of(\"wasm-out/ai-load-balancer.wasm\")";

    @Test
    void theReadmeExampleRunsAsWritten(@TempDir Path dir) throws Exception {
        String readme = Files.readString(README);
        int start = readme.indexOf("```java\n") + "```java\n".length();
        String snippet = readme.substring(start, readme.indexOf("```", start));
        assertTrue(
                snippet.contains(MODULE_PATH) && snippet.indexOf(MODULE_PATH) == snippet.lastIndexOf(MODULE_PATH),
                "the example loads the module once, from " + MODULE_PATH + ": " + snippet);
        // the README runs from the project root; this test runs in its module's folder
        String module = WasmArtifacts.path("ai-load-balancer").toAbsolutePath().toString();
        String body = snippet.replace(MODULE_PATH, "Path.of(\"" + module.replace("\\", "\\\\") + "\")");

        Path source = dir.resolve("src/ReadmeExample.java");
        Files.createDirectories(source.getParent());
        Files.writeString(
                source,
                """
                import io.ailb.emulator.*;
                import io.ailb.emulator.bindings.LogLevel;
                import java.nio.file.Path;
                import java.time.Instant;
                import java.util.List;

                public class ReadmeExample {
                    public static void run() {
                %s
                    }
                }
                """
                        .formatted(body));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter diagnostics = new StringWriter();
        boolean compiled = javac.getTask(
                        diagnostics,
                        null,
                        null,
                        List.of(
                                "-classpath",
                                System.getProperty("java.class.path"),
                                "-d",
                                classes.toString(),
                                "-proc:none"),
                        null,
                        javac.getStandardFileManager(null, null, null).getJavaFileObjects(source))
                .call();
        assertTrue(compiled, diagnostics.toString());

        try (URLClassLoader loader = new URLClassLoader(
                new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
            Method run = loader.loadClass("ReadmeExample").getMethod("run");
            run.invoke(null);
        }
    }
}
