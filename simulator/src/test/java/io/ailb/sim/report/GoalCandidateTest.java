package io.ailb.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class GoalCandidateTest {
    private static final String TABLE =
            """
            | router | x1 hit % tok | x1 TTFT mean ms | x1 p99 ms |
            |---|---:|---:|---:|
            | plugin:cache_aware | 20.0% | 950.0 | 5000 |
            | sglang_cache_aware | 18.0% | 1000.0 | 6000 |
            | *bound* | 30.0% | 400.0 | 3000 |
            """;

    private static String section(String name, String command, String table) {
        return "<!-- BEGIN " + name + " -->\n### a sweep\n\n" + command + "\n\n" + table + "<!-- END " + name
                + " -->\n";
    }

    @Test
    void theSectionsAreThoseTheScoreboardReadsThatDocumentTheirCommand() {
        String run = "`mvn -q -pl simulator exec:java -Dexec.args=\"--preset rag --sweep 1 --routers a,b\"`";
        String doc = section("rag", run, TABLE)
                + section("no-command", "", TABLE)
                + section("no-anchor", run, TABLE.replace("| sglang_cache_aware | 18.0% | 1000.0 | 6000 |\n", ""));
        List<GoalCandidate.Section> sections = GoalCandidate.goalSections(doc);
        assertEquals(1, sections.size());
        assertEquals("rag", sections.get(0).name());
        assertEquals("--preset rag --sweep 1 --routers a,b", sections.get(0).args());
    }

    @Test
    void theCandidateIsTheOnlyRouterAndTheRunWritesNoFile() {
        List<String> args = GoalCandidate.candidateArgs(
                "--workload trace --limit 1000 --routers plugin:cache_aware,dynamo --doc docs/benchmarks.md"
                        + " --section s --plots docs/plots/s --sweep 0.5,1",
                "plugin:cache_aware",
                Path.of("/tmp/x.wasm"));
        assertEquals(
                List.of(
                        "--workload",
                        "trace",
                        "--limit",
                        "1000",
                        "--sweep",
                        "0.5,1",
                        "--routers",
                        "plugin:cache_aware",
                        "--wasm",
                        "/tmp/x.wasm"),
                args);
        assertEquals(
                List.of("--preset", "agent", "--routers", "plugin:@simulator/configs/x.json"),
                GoalCandidate.candidateArgs("--preset agent --routers a", "plugin:@simulator/configs/x.json", null));
    }

    @Test
    void theRerunRowReplacesThePolicyRowOnlyAndMovesTheVerdict() {
        String printed = "trace x1: 1000 requests\n| router | x1 hit % tok | x1 TTFT mean ms | x1 p99 ms |\n"
                + "|---|---:|---:|---:|\n| plugin:@simulator/configs/x.json | 21.0% | 800.0 | 5900 |\n"
                + "| *bound* | 30.0% | 400.0 | 3000 |\n";
        String row = GoalCandidate.policyRow(printed);
        assertEquals("| plugin:@simulator/configs/x.json | 21.0% | 800.0 | 5900 |", row);
        assertNull(GoalCandidate.policyRow("no table"));
        assertEquals(
                "Exception in thread \"main\" java.nio.file.NoSuchFileException: ../synthetic_trace.jsonl",
                GoalCandidate.failureLine("trace synthetic_trace.jsonl\n"
                        + "Exception in thread \"main\" java.nio.file.NoSuchFileException: ../synthetic_trace.jsonl\n"
                        + "\tat io.ailb.sim.Simulate.run(Simulate.java:195)\n"
                        + "\tat io.ailb.sim.Simulate.main(Simulate.java:154)\n"));
        assertEquals("exit", GoalCandidate.failureLine("exit\n"));

        String body = section("s", "", TABLE);
        String replaced = GoalCandidate.withPolicyRow(body, row);
        assertEquals(body.replace("| 20.0% | 950.0 | 5000 |", "| 21.0% | 800.0 | 5900 |"), replaced);
        GoalStatus.Cell documented = GoalStatus.read(body).get(0);
        GoalStatus.Cell candidate = GoalStatus.read(replaced).get(0);
        assertEquals("**missed: mean**", documented.verdict(), "950 > 0.9 x 1000");
        assertEquals("met", candidate.verdict());
    }
}
