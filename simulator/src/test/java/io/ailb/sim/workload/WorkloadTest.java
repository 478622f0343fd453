package io.ailb.sim.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.workload.TextBlocks.Segment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WorkloadTest {
    @Test
    void chainIdsAreSharedExactlyAsFarAsThePromptsAgree() {
        List<Long> a = TextBlocks.chainIds(List.of(new Segment(1, 40), new Segment(2, 10)), 16);
        List<Long> b = TextBlocks.chainIds(List.of(new Segment(1, 40), new Segment(3, 30)), 16);
        assertEquals(4, a.size()); // 50 tokens: 3 full blocks and a partial one
        assertEquals(a.subList(0, 2), b.subList(0, 2), "the first 32 tokens are equal");
        assertNotEquals(a.get(2), b.get(2), "block 3 mixes in different segments");
        List<Long> longer = TextBlocks.chainIds(List.of(new Segment(1, 40), new Segment(2, 10), new Segment(4, 5)), 16);
        assertEquals(a.subList(0, 3), longer.subList(0, 3));
        assertNotEquals(a.get(3), longer.get(3), "a partial block is not the full block that extends it");
    }

    @Test
    void blockTextIsDeterministicJsonSafeAndDistinct() {
        String text = TextBlocks.text(42, 2048);
        assertEquals(2048, text.length());
        assertEquals(text, TextBlocks.text(42, 2048));
        assertNotEquals(text, TextBlocks.text(43, 2048));
        assertTrue(text.matches("[a-z0-9 ]+"), text.substring(0, 40));
    }

    @Test
    void aMooncakeLineBecomesTheSystemMessageThenOneUserMessagePerBlock(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.writeString(
                trace,
                """
                {"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [0, 1]}
                {"timestamp": 400, "input_length": 1300, "output_length": 7, "hash_ids": [0, 1, 2]}
                {"timestamp": 800, "input_length": 10, "output_length": 1, "hash_ids": [0]}
                """);
        Workload w = MooncakeTrace.load(trace, 2.0, 2);
        assertEquals("trace " + trace.getFileName() + " x2", w.name(), "the run header names the file replayed");
        assertEquals(2, w.requests().size());
        SimRequest second = w.requests().get(1);
        assertEquals(200, second.arrivalMs(), "speed-up 2");
        assertEquals(List.of(0L, 1L, 2L), second.blockIds());
        assertEquals(512, second.blockTokens());
        assertEquals("", second.body(), "bodies are rendered when sent");

        Map<String, Object> body = JSON.std.mapFrom(w.materialize(second, 200).body());
        List<?> messages = (List<?>) body.get("messages");
        assertEquals(3, messages.size());
        Map<?, ?> first = (Map<?, ?>) messages.get(0);
        assertEquals("system", first.get("role"));
        assertEquals(TextBlocks.text(0, MooncakeTrace.BLOCK_CHARS), first.get("content"));
        Map<?, ?> last = (Map<?, ?>) messages.get(2);
        assertEquals("user", last.get("role"));
        assertEquals(TextBlocks.text(2, MooncakeTrace.BLOCK_CHARS), last.get("content"));
    }

    @Test
    void theShippedTraceIsFoundFromTheProject() {
        Path trace = MooncakeTrace.defaultTrace();
        assertTrue(Files.isRegularFile(trace), trace.toString());
    }

    @Test
    void theHigressPresetHasFiveGrowingTurnsPerSession() throws Exception {
        Workload w = ChatWorkload.generate(ChatWorkload.HIGRESS_ARTICLE, 1);
        assertTrue(w.closedLoop());
        assertEquals(20, w.concurrency());
        assertEquals(60, w.sessions().size());
        assertEquals(300, w.requests().size());
        List<SimRequest> s = w.sessions().get(0);
        assertEquals(
                List.of(200, 1200, 2200, 3200, 4200),
                s.stream().map(SimRequest::inputTokens).toList());
        assertEquals(800, s.get(0).outputTokens());
        // turn 2 starts with turn 1's prompt (12 full 16-token blocks of its 200 tokens)
        assertEquals(s.get(0).blockIds().subList(0, 12), s.get(1).blockIds().subList(0, 12));
        List<?> messages = (List<?>) JSON.std.mapFrom(s.get(2).body()).get("messages");
        assertEquals(5, messages.size());
        assertEquals("assistant", ((Map<?, ?>) messages.get(1)).get("role"));
    }

    @Test
    void aChatTurnKnowsTheBlocksOfItsAnswerWhichTheNextTurnSendsBack() {
        List<SimRequest> s = ChatWorkload.generate(ChatWorkload.HIGRESS_ARTICLE, 1)
                .sessions()
                .get(0);
        SimRequest first = s.get(0);
        SimRequest second = s.get(1);
        // 200 prompt tokens (12 full 16-token blocks) + 800 answer tokens = 1000 tokens: 62 full blocks, 50 of them
        // after the prompt's full blocks
        assertEquals(50, first.outputBlockIds().size());
        assertEquals(first.outputBlockIds(), second.blockIds().subList(12, 62));
        assertEquals(second.outputBlockIds().get(0), s.get(2).blockIds().get(1200 / 16));
    }

    @Test
    void openLoopChatTurnsFollowTheAnswersDecodePlusThinkTimeAndGroupsShareTheirSystemPrompt() {
        ChatWorkload.Spec spec = new ChatWorkload.Spec(3, 9, 4, 500, 200, 50, 300, 100, 0, 2.0, 1000, 12, 16, 0);
        Workload w = ChatWorkload.generate(spec, 5);
        assertTrue(!w.closedLoop());
        Map<String, List<SimRequest>> sessions = Sessions.of(w);
        for (List<SimRequest> turns : sessions.values()) {
            for (int t = 0; t + 1 < turns.size(); t++) {
                assertEquals(
                        turns.get(t).outputTokens() * 12 + 1000,
                        turns.get(t + 1).arrivalMs() - turns.get(t).arrivalMs(),
                        1.0);
            }
        }
        assertEquals(
                500 / 16,
                Sessions.sharedPrefix(
                        sessions.get("s0").get(0).blockIds(),
                        sessions.get("s3").get(0).blockIds()));
        assertEquals(
                0,
                Sessions.sharedPrefix(
                        sessions.get("s0").get(0).blockIds(),
                        sessions.get("s1").get(0).blockIds()));
        Workload twice = ChatWorkload.generate(spec.withSessionsPerSecond(4.0), 5);
        assertEquals(
                sessions.get("s8").get(0).arrivalMs() / 2.0,
                Sessions.of(twice).get("s8").get(0).arrivalMs(),
                1.0);
    }

    @Test
    void popularGroupsGetMoreSessionsAndTheOtherDrawsStayTheSame() {
        ChatWorkload.Spec even = new ChatWorkload.Spec(8, 400, 2, 500, 200, 50, 300, 100, 0, 2.0, 1000, 12, 16, 0);
        ChatWorkload.Spec skewed = new ChatWorkload.Spec(8, 400, 2, 500, 200, 50, 300, 100, 0, 2.0, 1000, 12, 16, 1.0);
        Map<String, List<SimRequest>> evenSessions = Sessions.of(ChatWorkload.generate(even, 5));
        Map<String, List<SimRequest>> skewedSessions = Sessions.of(ChatWorkload.generate(skewed, 5));
        // Sessions per system prompt (the first block stands for the group's prompt).
        Map<Long, Integer> evenGroups = new java.util.HashMap<>();
        Map<Long, Integer> skewedGroups = new java.util.HashMap<>();
        for (String s : evenSessions.keySet()) {
            evenGroups.merge(evenSessions.get(s).get(0).blockIds().get(0), 1, Integer::sum);
            skewedGroups.merge(skewedSessions.get(s).get(0).blockIds().get(0), 1, Integer::sum);
            assertEquals(
                    evenSessions.get(s).get(0).arrivalMs(),
                    skewedSessions.get(s).get(0).arrivalMs());
            assertEquals(
                    evenSessions.get(s).get(1).inputTokens(),
                    skewedSessions.get(s).get(1).inputTokens());
        }
        assertEquals(8, evenGroups.size());
        assertTrue(evenGroups.values().stream().allMatch(n -> n == 50));
        // Weights 1, 1/2, ..., 1/8 (sum 2.72): the first group takes about 37 % of 400 sessions, the last about 5 %.
        int most = skewedGroups.values().stream().max(Integer::compare).orElseThrow();
        int least = skewedGroups.values().stream().min(Integer::compare).orElseThrow();
        assertTrue(most > 110 && most < 185, "most popular group: " + most);
        assertTrue(least < 40, "least popular group: " + least);
        assertTrue(ChatWorkload.generate(skewed, 5).name().contains("8 groups zipf 1"));
        assertThrows(
                IllegalArgumentException.class,
                () -> new ChatWorkload.Spec(8, 4, 2, 500, 200, 50, 300, 100, 0, 2.0, 1000, 12, 16, -1),
                "--group-zipf");
    }

    @Test
    void chatParametersAreRefusedNamingTheirFlag() {
        AgentWorkloadTest.assertFlag(
                "--think-ms", () -> new ChatWorkload.Spec(1, 9, 4, 0, 200, 0, 300, 0, 0, 2.0, -5, 12, 16, 0));
        AgentWorkloadTest.assertFlag(
                "--rate", () -> new ChatWorkload.Spec(1, 9, 4, 0, 200, 0, 300, 0, 0, 0, 0, 12, 16, 0));
        AgentWorkloadTest.assertFlag(
                "--input-stddev", () -> new ChatWorkload.Spec(1, 9, 4, 0, 200, -1, 300, 0, 20, 0, 0, 12, 16, 0));
    }

    @Test
    void aMooncakeRequestsAnswerBlocksComeFromItsContinuation(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("t.jsonl");
        // request 0: 1100 prompt tokens (2 full blocks), 600 answer tokens → blocks 2 and 3 of the next turn (full
        // once the sequence holds 1536 tokens); request 1 continues it; request 2 only shares block 0
        Files.writeString(
                trace,
                """
                {"timestamp": 0, "input_length": 1100, "output_length": 600, "hash_ids": [0, 1, 2]}
                {"timestamp": 10, "input_length": 700, "output_length": 5, "hash_ids": [0, 5]}
                {"timestamp": 400, "input_length": 2000, "output_length": 7, "hash_ids": [0, 1, 7, 8]}
                """);
        List<SimRequest> r = MooncakeTrace.load(trace, 1.0, 0).requests();
        assertEquals(List.of(7L), r.get(0).outputBlockIds(), "1700 tokens: 3 full blocks, one after the prompt's 2");
        assertEquals(List.of(), r.get(1).outputBlockIds(), "no continuation");
        assertEquals(List.of(), r.get(2).outputBlockIds());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "-5 | 10 | arrival_ms must be a number from 0 to 31536000000, got -5.0",
                "1e15 | 10 | arrival_ms must be a number from 0 to 31536000000, got 1.0E15",
                "0 | -3 | output_tokens must be an integer from 0 to 2000000, got -3",
                "0 | 5000000000 | output_tokens must be an integer from 0 to 2000000, got 5000000000",
                "0 | 2.5 | output_tokens must be a whole number, got 2.5"
            })
    void aUserLogRefusesNegativeOrAbsurdNumbersNamingTheLine(
            String arrival, String output, String message, @TempDir Path dir) throws Exception {
        Path log = dir.resolve("log.jsonl");
        String good = "{\"arrival_ms\": 1, \"output_tokens\": 2, \"body\": {\"messages\": []}}";
        Files.writeString(
                log,
                good + "\n\n{\"arrival_ms\": " + arrival + ", \"output_tokens\": " + output
                        + ", \"body\": {\"messages\": []}}\n");

        IOException e = assertThrows(IOException.class, () -> UserLog.load(log, 1.0, 0));

        assertEquals(log + ":3: " + message, e.getMessage());
    }

    @Test
    void aUserLogWithAPromptLongerThanAnyContextIsRefused(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("log.jsonl");
        String huge = "x".repeat(4 * 2_000_000 + 8);
        Files.writeString(
                log,
                "{\"arrival_ms\": 1, \"output_tokens\": 2, \"body\": {\"messages\": [{\"role\": \"user\", "
                        + "\"content\": \"" + huge + "\"}]}}\n");

        IOException e = assertThrows(IOException.class, () -> UserLog.load(log, 1.0, 0));

        assertTrue(e.getMessage().startsWith(log + ":1: the request has about 2000002 prompt tokens"), e.getMessage());
    }

    @Test
    void invalidUtf8InAUserLogIsReportedWithItsFileAndLine(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("log.jsonl");
        // far past the first 8 KiB, where a buffered reader would have failed without knowing the line
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            lines.append("{\"arrival_ms\": ")
                    .append(i)
                    .append(", \"output_tokens\": 2, \"body\": {\"messages\": ")
                    .append("[{\"role\": \"user\", \"content\": \"")
                    .append("hello ".repeat(10))
                    .append("\"}]}}\n");
        }
        byte[] head = lines.toString().getBytes(StandardCharsets.UTF_8);
        byte[] bad = "{\"arrival_ms\": 1, \"output_tokens\": 2, \"body\": \"caf\u00e9\"}\n"
                .getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[head.length + bad.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(bad, 0, all, head.length, bad.length);
        Files.write(log, all);

        IOException e = assertThrows(IOException.class, () -> UserLog.load(log, 1.0, 0));

        assertEquals(log + ":201: invalid UTF-8 (the log must be UTF-8 text)", e.getMessage());
    }

    @Test
    void aUserLogDerivesBlocksFromItsMessages(@TempDir Path dir) throws Exception {
        String system = "You are a helpful assistant. ".repeat(10);
        Path log = dir.resolve("log.jsonl");
        Files.writeString(
                log,
                "{\"arrival_ms\": 50, \"output_tokens\": 20, \"body\": {\"model\": \"m\", \"messages\": "
                        + "[{\"role\": \"system\", \"content\": \"" + system
                        + "\"}, {\"role\": \"user\", \"content\": \"hi\"}]}}\n"
                        + "{\"arrival_ms\": 10, \"output_tokens\": 30, \"session_id\": \"x\", \"body\": \"{\\\"messages\\\": "
                        + "[{\\\"role\\\": \\\"system\\\", \\\"content\\\": \\\"" + system
                        + "\\\"}, {\\\"role\\\": \\\"user\\\","
                        + " \\\"content\\\": \\\"hello there\\\"}]}\"}\n");
        Workload w = UserLog.load(log, 1.0, 0);
        SimRequest first = w.requests().get(0);
        SimRequest second = w.requests().get(1);
        assertEquals(10, first.arrivalMs(), "sorted by arrival");
        assertEquals("x", first.sessionId());
        assertEquals(30, first.outputTokens());
        assertEquals((system.length() + 3) / 4 + 3, first.inputTokens()); // ceil(chars / 4) per message
        int shared = system.length() / 4 / 16;
        assertEquals(first.blockIds().subList(0, shared), second.blockIds().subList(0, shared));
        assertTrue(first.body().contains("hello there"));
    }

    @Test
    void aUserLogCountsToolDefinitionsAfterTheSystemPromptAndToolCalls(@TempDir Path dir) throws Exception {
        String system = "You are an agent. ".repeat(40);
        String tools = "[{\"type\":\"function\",\"function\":{\"name\":\"weather\",\"description\":\""
                + "Looks the weather up. ".repeat(40) + "\"}}]";
        String otherTools = tools.replace("weather", "clock");
        String call = "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\","
                + "\"function\":{\"name\":\"weather\",\"arguments\":\"{}\"}}]}";
        String messages =
                "[{\"role\":\"system\",\"content\":\"" + system + "\"},{\"role\":\"user\",\"content\":\"hi\"}";
        Path log = dir.resolve("tools.jsonl");
        Files.writeString(
                log,
                "{\"arrival_ms\":1,\"output_tokens\":5,\"body\":{\"messages\":" + messages + "]}}\n"
                        + "{\"arrival_ms\":2,\"output_tokens\":5,\"body\":{\"messages\":" + messages
                        + "],\"tools\":" + tools + "}}\n"
                        + "{\"arrival_ms\":3,\"output_tokens\":5,\"body\":{\"messages\":" + messages
                        + "],\"tools\":" + otherTools + "}}\n"
                        + "{\"arrival_ms\":4,\"output_tokens\":5,\"body\":{\"messages\":" + messages + "," + call
                        + "],\"tools\":" + tools + "}}\n");
        List<SimRequest> r = UserLog.load(log, 1.0, 0).requests();
        int systemBlocks = system.length() / 4 / 16;
        assertEquals(
                r.get(0).blockIds().subList(0, systemBlocks),
                r.get(1).blockIds().subList(0, systemBlocks));
        assertTrue(
                r.get(1).inputTokens() >= r.get(0).inputTokens() + tools.length() / 4,
                "the definitions are prompt tokens: " + r.get(1).inputTokens());
        assertNotEquals(
                r.get(1).blockIds().get(systemBlocks), r.get(0).blockIds().get(systemBlocks));
        assertNotEquals(
                r.get(1).blockIds().get(systemBlocks), r.get(2).blockIds().get(systemBlocks), "other tools");
        int prompt = r.get(1).blockIds().size() - 1;
        assertEquals(r.get(1).blockIds().subList(0, prompt), r.get(3).blockIds().subList(0, prompt));
        assertTrue(r.get(3).inputTokens() >= r.get(1).inputTokens() + 15, "the tool call's JSON is prompt text");
    }
}
