package io.ailb.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SweepTableTest {
    private static RunResult run(String router, double hit, double mean, double p99) {
        RunResult.Latency latency = new RunResult.Latency(100, mean, mean, mean, p99, p99);
        return new RunResult(
                router,
                "w",
                2,
                0,
                1,
                100,
                100,
                1000,
                Math.round(1000 * hit),
                10,
                1000,
                latency,
                latency,
                new long[2],
                new long[2],
                0,
                null,
                List.of(),
                List.of());
    }

    private static final List<SweepTable.Point> POINTS = List.of(
            new SweepTable.Point(
                    "x1",
                    1.0,
                    List.of(
                            run("plugin:prefix_cache", 0.2, 120, 400),
                            run("plugin:cache_aware", 0.1, 110, 500),
                            run("sglang_cache_aware", 0.25, 100, 300),
                            run("llmd", 0.3, 90, 450),
                            run("greedy_ttft", 0.3, 50, 100))),
            new SweepTable.Point(
                    "x2",
                    2.0,
                    List.of(
                            run("plugin:prefix_cache", 0.2, 200, 900),
                            run("plugin:cache_aware", 0.1, 300, 800),
                            run("sglang_cache_aware", 0.25, 400, 1000),
                            run("llmd", 0.3, 250, 1200),
                            run("greedy_ttft", 0.3, 60, 120))));

    @Test
    void anchorsAreTheProductRoutersAndOursThePluginPolicies() {
        for (String name : List.of(
                "sglang_cache_aware",
                "sglang_cache_aware_2025",
                "smg_cache_aware",
                "llmd",
                "llmd_precise",
                "dynamo",
                "dynamo_kv_events")) {
            assertTrue(SweepTable.isAnchor(name), name);
        }
        for (String name : List.of("plugin:prefix_cache", "greedy_ttft", "lookahead_ttft", "random", "max_prefix")) {
            assertTrue(!SweepTable.isAnchor(name), name);
        }
        assertTrue(SweepTable.isPlugin("plugin:cache_aware"));
    }

    @Test
    void oneRowPerRouterWithHitMeanAndP99AtEachRateThenTheBound() {
        String md = SweepTable.markdown(POINTS, new SweepTable.Bounds(0.4, 0.35, 40, 90));
        String[] lines = md.split("\n");
        assertEquals(
                "| router | x1 hit % tok | x1 TTFT mean ms | x1 p99 ms | x2 hit % tok | x2 TTFT mean ms | x2 p99 ms |",
                lines[0]);
        assertEquals("| plugin:prefix_cache | 20.0% | 120.0 | 400.0 | 20.0% | 200.0 | 900.0 |", lines[2]);
        assertEquals("| *bound* | 40.0% | 40.0 | 90.0 | 40.0% | 40.0 | 90.0 |", lines[lines.length - 1]);
        assertEquals(2 + 5 + 1, lines.length);
    }

    @Test
    void theBestPluginPolicyIsComparedWithTheBestAnchorPerRate() {
        List<String> lines = SweepTable.comparisons(POINTS);
        assertEquals(2, lines.size());
        // x1: best plugin mean 110 (cache_aware) vs best anchor 90 (llmd); p99 400 (prefix_cache) vs 300 (sglang)
        assertTrue(
                lines.get(0)
                        .startsWith("x1 (1.00 req/s): TTFT mean plugin:cache_aware 110.0 / llmd 90.0 = 1.22;"
                                + " p99 plugin:prefix_cache 400.0 / sglang_cache_aware 300.0 = 1.33"),
                lines.get(0));
        // x2: 200 vs 250 = 0.80; p99 800 vs 1000 = 0.80
        assertTrue(lines.get(1).contains("TTFT mean plugin:prefix_cache 200.0 / llmd 250.0 = 0.80"), lines.get(1));
        assertTrue(
                lines.get(1).contains("p99 plugin:cache_aware 800.0 / sglang_cache_aware 1000.0 = 0.80"), lines.get(1));
        assertEquals(120, SweepTable.series(POINTS, false).get("plugin:prefix_cache")[0]);
        assertEquals(900, SweepTable.series(POINTS, true).get("plugin:prefix_cache")[1]);
    }

    @Test
    void theResultTableShowsTtftAsAMultipleOfTheLowerBound() {
        String md = ResultTable.markdown(List.of(run("llmd", 0.3, 90, 450)), 45);
        assertTrue(md.startsWith("| router | hit % tok | TTFT mean ms | ×LB | p50 ms |"), md);
        assertTrue(md.contains("| llmd | 30.0% | 90.0 | 2.00 | 90.0 |"), md);
        assertTrue(!ResultTable.markdown(List.of(run("llmd", 0.3, 90, 450))).contains("×LB"));
    }
}
