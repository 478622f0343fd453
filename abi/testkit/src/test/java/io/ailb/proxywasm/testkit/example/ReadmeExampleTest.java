package io.ailb.proxywasm.testkit.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every Java block of the testkit's README is code of this package, compiled and run by this module's tests. */
class ReadmeExampleTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);
    private static final Path EXAMPLES = Path.of("src/test/java/io/ailb/proxywasm/testkit/example");

    @Test
    void theReadmeShowsTheExampleCodeVerbatim() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        String sources = Files.readString(EXAMPLES.resolve("RequestCounter.java"))
                + Files.readString(EXAMPLES.resolve("RequestCounterTest.java"));
        List<String> blocks = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(readme);
        while (block.find()) {
            blocks.add(block.group(1));
        }

        assertEquals(2, blocks.size(), "the plugin and its test");
        for (String code : blocks) {
            assertTrue(sources.contains(code), "not in the example sources:\n" + code);
        }
    }
}
