package io.ailb.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.sim.report.RequestsCsv;
import io.ailb.sim.router.baseline.Baselines;
import io.ailb.sim.workload.ChatWorkload;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateTest {

    /** "the plugin's a, b, then c, d" (README and --help) as router names: plugin:a, plugin:b, c, d. */
    private static List<String> documentedDefaults(String text) {
        String list = text.replaceAll("\\s+", " ");
        String plugin =
                list.substring(list.indexOf("the plugin's ") + "the plugin's ".length(), list.indexOf(", then "));
        String rest = list.substring(list.indexOf(", then ") + ", then ".length());
        List<String> routers = new ArrayList<>();
        for (String policy : plugin.split(", ")) {
            routers.add("plugin:" + policy.trim());
        }
        for (String name : rest.split(", ")) {
            routers.add(name.trim());
        }
        return routers;
    }

    @Test
    void theReadmeAndTheHelpListTheDefaultRoutersTheCodeRuns() throws Exception {
        List<String> defaults = List.of(Simulate.DEFAULT_ROUTERS.split(","));
        String readme = Files.readString(Path.of("README.md"));
        String readmeDefault = readme.substring(readme.indexOf("Default: the plugin's") + "Default: ".length());
        readmeDefault = readmeDefault.substring(0, readmeDefault.indexOf(" |"));
        assertEquals(defaults, documentedDefaults(readmeDefault), "simulator/README.md, --routers");

        String usage =
                Simulate.USAGE.substring(Simulate.USAGE.indexOf("(default: the plugin's") + "(default: ".length());
        assertEquals(defaults, documentedDefaults(usage.substring(0, usage.indexOf(')'))), "--help, --routers");

        String baselines = readme.substring(readme.indexOf("### Baselines"));
        for (String name : Baselines.names()) {
            assertTrue(baselines.contains("`" + name + "`"), name + " is not in the README's baselines table");
        }
    }

    @Test
    void theCliPrintsATableAndWritesJsonAndTheBenchmarksSection(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path json = dir.resolve("r.json");
        Path doc = dir.resolve("benchmarks.md");
        int code = Simulate.run(
                new String[] {
                    "--preset",
                    "higress-article",
                    "--sessions",
                    "9",
                    "--routers",
                    "random,round_robin",
                    "--json",
                    json.toString(),
                    "--doc",
                    doc.toString(),
                    "--section",
                    "sim-test"
                },
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        assertTrue(text.contains("round_robin") && text.contains("TTFT mean"), text);
        Map<String, Object> result = JSON.std.mapFrom(Files.readString(json));
        List<?> results = (List<?>) result.get("results");
        assertEquals(2, results.size());
        Map<?, ?> random = (Map<?, ?>) results.get(0);
        assertEquals("random", random.get("router"));
        assertEquals(45, ((Number) random.get("completed")).intValue());
        String md = Files.readString(doc);
        assertTrue(md.contains("<!-- BEGIN sim-test -->") && md.contains("--preset higress-article"), md);
        assertTrue(md.contains("| round_robin |"), md);
    }

    @Test
    void requestsWritesOneCsvRowPerFinishedRequestOfEveryRouterAndRate(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("requests.csv");
        runQuietly(
                "--workload",
                "chat",
                "--sessions",
                "6",
                "--turns",
                "2",
                "--rate",
                "2",
                "--sweep",
                "1,2",
                "--routers",
                "random,round_robin",
                "--requests",
                csv.toString());
        List<String> lines = Files.readAllLines(csv);
        assertEquals(RequestsCsv.HEADER, lines.get(0));
        // 2 rates × 2 routers × 6 sessions × 2 turns.
        assertEquals(1 + 2 * 2 * 12, lines.size());
        String[] first = lines.get(1).split(",");
        assertEquals("x1", first[0]);
        assertEquals("random", first[1]);
        assertTrue(first[3].startsWith("s"), lines.get(1));
        assertTrue(Double.parseDouble(first[6]) > 0, "TTFT: " + lines.get(1));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("x2,round_robin,")));
        for (String line : lines.subList(1, lines.size())) {
            String[] row = line.split(",", -1);
            double ttft = Double.parseDouble(row[6]);
            long cached = Long.parseLong(row[9]);
            double lone = Double.parseDouble(row[11]);
            long boundCached = Long.parseLong(row[12]);
            double boundTtft = Double.parseDouble(row[13]);
            // No router finds more than the infinite cache, and no request beats itself alone on an idle instance
            // holding what was cached there, which no instance beats holding the infinite cache's hit.
            assertTrue(cached <= boundCached, line);
            assertTrue(boundTtft > 0 && boundTtft <= lone + 1e-3 && lone <= ttft + 1e-3, line);
            // The anchors do not say what they counted as cached: that column stays empty.
            assertEquals("", row[14], line);
        }
        // A session's second turn finds its first in the infinite cache.
        assertTrue(lines.stream().skip(1).anyMatch(l -> Long.parseLong(l.split(",")[12]) > 0));
        // Each session's second turn continues its first: one per session, per rate and router, in the same session.
        Map<String, String> sessionOf = new HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] row = line.split(",", -1);
            sessionOf.put(row[2], row[3]);
        }
        List<String[]> continuing = lines.subList(1, lines.size()).stream()
                .map(l -> l.split(",", -1))
                .filter(row -> !row[15].isEmpty())
                .toList();
        assertEquals(2 * 2 * 6, continuing.size());
        for (String[] row : continuing) {
            assertEquals(row[3], sessionOf.get(row[15]), String.join(",", row));
            assertTrue(Long.parseLong(row[15]) < Long.parseLong(row[2]), String.join(",", row));
        }
    }

    @Test
    void theLookaheadReferenceHasNoRegretAndARandomChoiceHasSome(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("requests.csv");
        runQuietly(
                "--workload",
                "trace",
                "--limit",
                "200",
                "--backends",
                "4",
                "--routers",
                "random,lookahead_ttft",
                "--requests",
                csv.toString());
        Map<String, Double> regret = new HashMap<>();
        Map<String, Integer> rows = new HashMap<>();
        for (String line : Files.readAllLines(csv).subList(1, 1 + 2 * 200)) {
            String[] row = line.split(",", -1);
            double ms = Double.parseDouble(row[16]);
            assertTrue(ms >= 0, line);
            regret.merge(row[1], ms, Double::sum);
            rows.merge(row[1], 1, Integer::sum);
        }
        assertEquals(Map.of("random", 200, "lookahead_ttft", 200), rows);
        // The reference takes the least lookahead TTFT it computes: by its own estimate it never regrets a choice.
        assertEquals(0.0, regret.get("lookahead_ttft"));
        assertTrue(regret.get("random") / 200 > 10, "random's mean regret: " + regret.get("random") / 200);
    }

    @Test
    void servicesOfDifferentSpeedGetATableWithEachServicesShare(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path doc = dir.resolve("benchmarks.md");
        Path csv = dir.resolve("requests.csv");
        int code = Simulate.run(
                new String[] {
                    "--workload",
                    "trace",
                    "--limit",
                    "40",
                    "--services",
                    "2",
                    "--service-speeds",
                    "1,0.25",
                    "--service-backends",
                    "2,1",
                    "--routers",
                    "round_robin,weighted,least_outstanding",
                    "--sweep",
                    "1,2",
                    "--doc",
                    doc.toString(),
                    "--requests",
                    csv.toString()
                },
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        assertTrue(text.contains("2 services, backends × speed: svc-a 2 × 1, svc-b 1 × 0.25"), text);
        assertTrue(text.contains("x1 % svc-a/svc-b") && text.contains("x2 total mean"), text);
        assertTrue(text.contains("| round_robin |") && text.contains(" 50/50 |"), text);
        // capacities 2 and 0.25: 8 of every 9 requests to svc-a, 36 of the 40 (smooth weighted round robin)
        assertTrue(text.contains("| weighted |") && text.contains(" 90/10 |"), text);
        String md = Files.readString(doc);
        assertTrue(md.contains("<!-- BEGIN simulator-clusters -->") && md.contains("--services 2"), md);
        assertTrue(md.contains("| least_outstanding |"), md);
        // Instances of different speed have no single lone TTFT: the request rows leave it and the bounds empty.
        List<String> rows = Files.readAllLines(csv);
        assertEquals(1 + 2 * 3 * 40, rows.size());
        for (String row : rows.subList(1, rows.size())) {
            assertTrue(row.endsWith(",,,") && Double.parseDouble(row.split(",")[6]) > 0, row);
        }
    }

    @Test
    void serviceFlagsWithoutServicesOrOfTheWrongLengthAreRefused() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        PrintStream errors = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(2, Simulate.run(new String[] {"--service-speeds", "1,0.5"}, sink, errors));
        assertEquals(2, Simulate.run(new String[] {"--services", "3", "--service-speeds", "1,0.5"}, sink, errors));
        String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("--service-speeds needs --services"), text);
        assertTrue(text.contains("--service-speeds wants 3 values (one per service), got 1,0.5"), text);
    }

    @Test
    void aSweepRunsEveryRouterAtEachRateAndWritesItsSectionAndPlots(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path doc = dir.resolve("benchmarks.md");
        Path plots = dir.resolve("plots");
        int code = Simulate.run(
                new String[] {
                    "--workload",
                    "trace",
                    "--limit",
                    "60",
                    "--backends",
                    "2",
                    "--routers",
                    "round_robin,sglang_cache_aware,lookahead_ttft",
                    "--sweep",
                    "1,4",
                    "--doc",
                    doc.toString(),
                    "--section",
                    "sweep-test",
                    "--plots",
                    plots.toString()
                },
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        assertTrue(text.contains("| router | x1 hit % tok | x1 TTFT mean ms | x1 p99 ms | x4 hit % tok |"), text);
        assertTrue(text.contains("TTFT lower bound"), text);
        String md = Files.readString(doc);
        assertTrue(md.contains("<!-- BEGIN sweep-test -->") && md.contains("--sweep 1,4"), md);
        assertTrue(md.contains("| lookahead_ttft |") && md.contains("| *bound* |"), md);
        assertTrue(Files.size(plots.resolve("sweep-ttft-mean.png")) > 1000);
        assertTrue(Files.size(plots.resolve("sweep-ttft-p99.png")) > 1000);
    }

    @Test
    void aSweepNeedsArrivalsItCanSpeedUp() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Simulate.run(
                new String[] {"--preset", "higress-article", "--routers", "random", "--sweep", "1,2"},
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--rate"));
    }

    @Test
    void theBackendModelIsChosenByName() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Simulate.run(
                new String[] {
                    "--preset", "higress-article", "--sessions", "3", "--routers", "random", "--backend-model", "serial"
                },
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream()));
        assertEquals(0, code);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("serial prefill: overhead 30.0 ms"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(
                2,
                Simulate.run(
                        new String[] {"--backend-model", "tgi"},
                        new PrintStream(out),
                        new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("vllm, serial or parallel"));
    }

    @Test
    void badFlagsAreRefusedWithUsage() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Simulate.run(
                new String[] {"--routers", "random", "--no-such-flag", "1"},
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--no-such-flag"));
    }

    @Test
    void theAgentRagAndChatGroupsPresetsSweepTheirSessionRates() throws Exception {
        Map<String, String> name =
                Map.of("agent", "agent 12 sessions", "rag", "rag 12 sessions", "chat-groups", "chat 12x4");
        Map<String, Integer> rate = Map.of("agent", 5, "rag", 8, "chat-groups", 20);
        for (String preset : List.of("agent", "rag", "chat-groups")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Simulate.run(
                    new String[] {"--preset", preset, "--limit", "12", "--routers", "round_robin", "--sweep", "1,3"},
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, code, preset + ": " + err.toString(StandardCharsets.UTF_8));
            for (int m : new int[] {1, 3}) {
                String line = name.get(preset) + ".*poisson " + rate.get(preset) * m + " sessions/s: \\d+ requests.*";
                assertTrue(text.lines().anyMatch(l -> l.matches(line)), line + "\n" + text);
            }
            assertTrue(text.contains("| round_robin |"), text);
        }
    }

    @Test
    void theHigressArticlePresetIsTheArticlesChatSpec() {
        assertEquals(
                ChatWorkload.HIGRESS_ARTICLE,
                Simulate.chatSpec(Simulate.withPreset(Map.of("preset", "higress-article")), 12));
        Map<String, String> open = Simulate.withPreset(Map.of("preset", "higress-article", "rate", "2"));
        assertEquals(0, Simulate.chatSpec(open, 12).concurrency(), "--rate alone makes the preset open loop");
    }

    @Test
    void workloadFlagsAreCheckedAndNamedInErrors() throws Exception {
        assertRefused("--steps must be", "--workload", "agent", "--steps", "0");
        assertRefused("--zipf wants a number", "--workload", "rag", "--zipf", "abc");
        assertRefused("--doc-tokens wants N or MIN-MAX", "--workload", "rag", "--doc-tokens", "-4");
        assertRefused("--steps belongs to --workload agent, not chat", "--workload", "chat", "--steps", "3");
        assertRefused("--turns belongs to --workload chat, not agent", "--preset", "agent", "--turns", "3");
        assertRefused("--sessions wants an integer", "--workload", "agent", "--sessions", "1e3");
        assertRefused("known: higress-article, chat-groups, agent, rag", "--preset", "nope");
        assertRefused(
                "--unstreamed-share must be in [0, 1], got 1.5", "--preset", "agent", "--unstreamed-share", "1.5");
    }

    private static void assertRefused(String message, String... args) throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = Stream.concat(Arrays.stream(args), Stream.of("--routers", "random"))
                .toArray(String[]::new);
        int code = Simulate.run(
                all, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code, String.join(" ", args));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(message), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void failuresParseIntoHealthChanges() {
        assertEquals(2, Simulate.parseFailure("1@1000-5000").size());
        assertEquals(1, Simulate.parseFailure("0@250").size());
    }

    /** Runs the simulator with its output discarded, expecting success. */
    private static void runQuietly(String... args) throws IOException {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(0, Simulate.run(args, sink, sink));
    }
}
