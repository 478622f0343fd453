package io.ailb.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class GoalStatusTest {
    private static final String HEADER =
            "| router | x1 hit % tok | x1 TTFT mean ms | x1 p99 ms | x2 hit % tok | x2 TTFT mean ms"
                    + " | x2 p99 ms |\n|---|---:|---:|---:|---:|---:|---:|\n";

    private static String section(String name, String rows) {
        return "<!-- BEGIN " + name + " -->\n### a sweep\n\n" + HEADER + rows + "\nHit-rate bounds: …\n<!-- END " + name
                + " -->\n";
    }

    @Test
    void theMeanIsJudgedAgainstTheBestAnchorAndTheP99AgainstTheLowestAnchorP99() {
        String doc = section(
                "trace",
                """
                | plugin:cache_aware | 20.0% | 850.0 | 5000 | 19.0% | 950.0 | 9000 |
                | plugin:prefix_cache | 25.0% | 500.0 | 100 | 25.0% | 500.0 | 100 |
                | sglang_cache_aware | 18.0% | 1000.0 | 6000 | 20.0% | 1000.0 | 8500 |
                | dynamo | 10.0% | 1200.0 | 4900 | 10.0% | 1100.0 | 9500 |
                | lookahead_ttft | 20.0% | 800.0 | 5000 | 20.0% | 880.0 | 9000 |
                | *bound* | 30.0% | 400.0 | 3000 | 30.0% | 400.0 | 3000 |
                """);
        List<GoalStatus.Cell> cells = GoalStatus.read(doc);
        assertEquals(2, cells.size());
        GoalStatus.Cell x1 = cells.get(0);
        assertEquals("trace", x1.section());
        assertEquals("x1", x1.rate());
        assertEquals(0.85, x1.meanRatio(), 1e-9, "against SGLang's mean; prefix_cache is not the policy");
        assertEquals(5000.0 / 4900, x1.p99Ratio(), 1e-9, "against Dynamo's p99, the lowest");
        assertEquals(0.8, x1.lookaheadRatio(), 1e-9);
        assertTrue(x1.meanMet());
        assertFalse(x1.p99Met());
        assertFalse(x1.met());
        GoalStatus.Cell x2 = cells.get(1);
        assertEquals(0.95, x2.meanRatio(), 1e-9);
        assertFalse(x2.meanMet(), "0.95 > 0.9 with the anchor 2.5x the bound");
        assertFalse(x2.hitMet(), "19 % against the best anchor's 20 %");
        assertTrue(
                GoalStatus.markdown(cells)
                        .startsWith(
                                "0 of 2 cells meet the goal, 0 more all but the hit rate. Of the 1 whose mean misses it,"
                                        + " `lookahead_ttft` (every queue and cache known exactly) misses 0.9× the best anchor too in 0."));
    }

    @Test
    void nearTheBoundTheMeanIsJudgedAgainstTheBoundAndAP99AtTheBoundIsATie() {
        String doc = section(
                "chat",
                """
                | plugin:cache_aware | 90.0% | 104.0 | 202.0 | 90.0% | 106.0 | 200.0 |
                | smg_cache_aware | 90.0% | 105.0 | 200.0 | 90.0% | 105.0 | 200.0 |
                | *bound* | 90.0% | 100.0 | 200.0 | 90.0% | 100.0 | 200.0 |
                """);
        List<GoalStatus.Cell> cells = GoalStatus.read(doc);
        assertTrue(cells.get(0).meanMet(), "104 <= 1.05 x 100 with the anchor within 1.1x of the bound");
        assertFalse(cells.get(0).p99Met());
        assertTrue(cells.get(0).p99AtBound(), "202 within 1 % of the bound's 200");
        assertTrue(cells.get(0).met());
        assertFalse(cells.get(1).meanMet(), "106 > 1.05 x 100");
        String table = GoalStatus.markdown(cells);
        assertTrue(
                table.contains(
                        "| chat | x1 | 0.99 | 1.01 | 90.0 / 90.0 | 1.05 | 1.04 | – | met (p99 tie at the bound) |"),
                table);
        assertTrue(
                table.contains("| chat | x2 | 1.01 | 1.00 | 90.0 / 90.0 | 1.05 | 1.06 | – | **missed: mean** |"),
                table);
    }

    @Test
    void sectionsWithoutAnAnchorTheBoundOrThePolicyAreLeftOut() {
        String configsOnly = section(
                "configs",
                """
                | plugin:cache_aware | 20.0% | 850.0 | 5000 | 19.0% | 950.0 | 9000 |
                | plugin:cache_aware-local.json | 20.0% | 860.0 | 5000 | 19.0% | 940.0 | 9000 |
                | *bound* | 30.0% | 400.0 | 3000 | 30.0% | 400.0 | 3000 |
                """);
        String noBound = section(
                "clusters",
                """
                | plugin:cache_aware | 20.0% | 850.0 | 5000 | 19.0% | 950.0 | 9000 |
                | dynamo | 10.0% | 1200.0 | 4900 | 10.0% | 1100.0 | 9500 |
                """);
        String noPolicy = section(
                "anchors",
                """
                | dynamo | 10.0% | 1200.0 | 4900 | 10.0% | 1100.0 | 9500 |
                | *bound* | 30.0% | 400.0 | 3000 | 30.0% | 400.0 | 3000 |
                """);
        assertEquals(
                List.of(),
                GoalStatus.read(configsOnly + noBound + noPolicy + "<!-- BEGIN prose -->\ntext\n<!-- END prose -->"));
    }

    private static final String TRACE = section(
            "trace",
            """
            | plugin:cache_aware | 20.0% | 850.0 | 5000 | 21.0% | 1100.0 | 9000 |
            | plugin:cache_aware-old.json | 20.0% | 950.0 | 6000 | 21.0% | 900.0 | 9000 |
            | sglang_cache_aware | 18.0% | 1000.0 | 6000 | 20.0% | 1000.0 | 8500 |
            | lookahead_ttft | 20.0% | 800.0 | 5000 | 20.0% | 880.0 | 9000 |
            | *bound* | 30.0% | 400.0 | 3000 | 30.0% | 400.0 | 3000 |
            """);
    private static final String CHAT = section(
            "chat",
            """
            | plugin:cache_aware | 90.0% | 104.0 | 200.0 | 90.0% | 106.0 | 200.0 |
            | smg_cache_aware | 90.0% | 105.0 | 200.0 | 90.0% | 105.0 | 200.0 |
            | *bound* | 90.0% | 100.0 | 200.0 | 90.0% | 100.0 | 200.0 |
            """);

    @Test
    void theSummaryKeepsItsLabelsRewritesEveryCellAndAddsTheSectionsNoRowNames() {
        String current =
                """
                | workload (section) | old header |
                |---|---|
                | the trace (`trace`) | 0.50 / 0.50 |
                | old (`trace`, `plugin:cache_aware-old.json`) | stale |
                """;
        String summary = GoalStatus.summary(TRACE + CHAT, current);
        assertEquals(
                """
                | workload (section) | rates from the lowest: mean / p99 [lookahead] | | | | |
                |---|---|---|---|---|---|
                | the trace (`trace`) | ×1 0.85 / 0.83 [0.80] ✓ | ×2 **1.10** / **1.06** [0.88] | | | |
                | old (`trace`, `plugin:cache_aware-old.json`) | ×1 0.95 / 1.00 [0.80] | ×2 0.90 / **1.06** [0.88] | | | |
                | `chat` | ×1 0.99 / 1.00 ✓ | ×2 **1.01** / 1.00 | | | |
                """,
                summary);
    }

    @Test
    void aSummaryRowNamingNoSectionIsRefused() {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> GoalStatus.summary(TRACE, "| the chat (`chat`) | 1.00 / 1.00 |\n"));
        assertTrue(refused.getMessage().contains("the chat (`chat`)"), refused.getMessage());
    }

    @Test
    void theBenchmarksFilesTablesAreWhatItsSectionsSay() throws Exception {
        Path doc = Path.of("../docs/benchmarks.md");
        String text = Files.readString(doc);
        String regenerate = "mvn -q -o -pl simulator compile exec:java@goal-status -Dexec.args=\"docs/benchmarks.md"
                + " --section goal-status --summary goal-summary\"";
        assertEquals(
                GoalStatus.markdown(GoalStatus.read(text)).strip(),
                body(text, "goal-status"),
                "the goal's table is behind its sections: " + regenerate);
        assertEquals(
                GoalStatus.summary(text, body(text, "goal-summary")).strip(),
                body(text, "goal-summary"),
                "the summary is behind its sections: " + regenerate);
    }

    private static String body(String doc, String name) {
        String begin = "<!-- BEGIN " + name + " -->";
        return doc.substring(doc.indexOf(begin) + begin.length(), doc.indexOf("<!-- END " + name + " -->"))
                .strip();
    }
}
