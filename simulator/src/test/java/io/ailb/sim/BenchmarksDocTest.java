package io.ailb.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.report.BenchmarksDoc;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchmarksDocTest {
    @Test
    void rewritingOneSectionKeepsTheOthers(@TempDir Path dir) throws Exception {
        Path doc = dir.resolve("benchmarks.md");
        BenchmarksDoc.replaceSection(doc, "a", "first A");
        BenchmarksDoc.replaceSection(doc, "b", "first B");
        BenchmarksDoc.replaceSection(doc, "a", "second A");

        String text = Files.readString(doc);
        assertTrue(text.contains("second A") && text.contains("first B"), text);
        assertEquals(-1, text.indexOf("first A"));
        assertTrue(text.indexOf("second A") < text.indexOf("first B"), "a section keeps its place");
    }
}
