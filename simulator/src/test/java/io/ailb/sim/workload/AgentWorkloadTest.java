package io.ailb.sim.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.model.SimRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentWorkloadTest {
    /** Two kinds with 1000-token system prompts (62 full blocks and a partial one), 3-5 steps. */
    private static final AgentWorkload.Spec SMALL = new AgentWorkload.Spec(
            2,
            12,
            2.0,
            IntRange.of(1000),
            new IntRange(100, 300),
            new IntRange(3, 5),
            new IntRange(50, 200),
            new IntRange(200, 2000),
            150,
            12,
            16,
            ToolFormat.INLINE);

    @Test
    void theSameSeedGivesTheSameWorkloadAndAnotherSeedAnother() {
        List<String> a = Sessions.fingerprint(AgentWorkload.generate(SMALL, 7));
        assertEquals(a, Sessions.fingerprint(AgentWorkload.generate(SMALL, 7)));
        assertNotEquals(a, Sessions.fingerprint(AgentWorkload.generate(SMALL, 8)));
    }

    @Test
    void sessionsOfAKindShareExactlyTheSystemPromptsBlocksAndText() throws Exception {
        Workload w = AgentWorkload.generate(SMALL, 3);
        Map<String, List<SimRequest>> sessions = Sessions.of(w);
        SimRequest kind0 = sessions.get("a0").get(0);
        SimRequest kind0Again = sessions.get("a2").get(0);
        SimRequest kind1 = sessions.get("a1").get(0);
        assertEquals(1000 / 16, Sessions.sharedPrefix(kind0.blockIds(), kind0Again.blockIds()));
        assertEquals(0, Sessions.sharedPrefix(kind0.blockIds(), kind1.blockIds()));

        List<Map<String, Object>> a = Sessions.messages(w, kind0);
        List<Map<String, Object>> b = Sessions.messages(w, kind0Again);
        List<Map<String, Object>> c = Sessions.messages(w, kind1);
        assertEquals(
                List.of("system", "user"), a.stream().map(m -> m.get("role")).toList());
        assertEquals(4000, a.get(0).get("content").toString().length(), "4 characters per token");
        assertEquals(a.get(0), b.get(0), "same kind: same system prompt and tools");
        assertNotEquals(a.get(0), c.get(0));
        assertNotEquals(a.get(1), b.get(1), "each session has its own task");
    }

    @Test
    void eachStepSendsTheHistoryWithTheLastCallAndItsResultAndFindsTheCallCached() throws Exception {
        Workload w = AgentWorkload.generate(SMALL, 5);
        for (List<SimRequest> steps : Sessions.of(w).values()) {
            assertTrue(steps.size() >= 3 && steps.size() <= 5, "steps drawn from 3-5");
            for (int k = 0; k + 1 < steps.size(); k++) {
                SimRequest step = steps.get(k);
                SimRequest next = steps.get(k + 1);
                int full = step.inputTokens() / 16;
                assertEquals(step.blockIds().subList(0, full), next.blockIds().subList(0, full));
                assertEquals(
                        step.outputBlockIds(),
                        next.blockIds()
                                .subList(full, full + step.outputBlockIds().size()),
                        "the tool call's blocks continue the chain");
                assertEquals(
                        (step.inputTokens() + step.outputTokens()) / 16 - full,
                        step.outputBlockIds().size());
                int result = next.inputTokens() - step.inputTokens() - step.outputTokens();
                assertTrue(result >= 200 && result <= 2000, "one tool result per step: " + result);
                assertTrue(step.outputTokens() >= 50 && step.outputTokens() <= 200);
            }
            List<Map<String, Object>> last = Sessions.messages(w, steps.get(steps.size() - 1));
            assertEquals(2 + 2 * (steps.size() - 1), last.size());
            for (int i = 2; i < last.size(); i += 2) {
                Map<String, Object> call = last.get(i);
                Map<String, Object> result = last.get(i + 1);
                assertEquals("assistant", call.get("role"));
                assertEquals("tool", result.get("role"));
                Map<?, ?> toolCall = (Map<?, ?>) ((List<?>) call.get("tool_calls")).get(0);
                assertEquals(toolCall.get("id"), result.get("tool_call_id"));
            }
            assertEquals(200, ((Number) Sessions.materialized(w, steps.get(0)).get("max_tokens")).intValue());
        }
    }

    @Test
    void theOpenAiFormatCarriesTheSamePromptInTheToolsArrayAndToolCalls() throws Exception {
        AgentWorkload.Spec openAi = new AgentWorkload.Spec(
                SMALL.kinds(),
                SMALL.sessions(),
                SMALL.sessionsPerSecond(),
                SMALL.systemTokens(),
                SMALL.taskTokens(),
                SMALL.steps(),
                SMALL.callTokens(),
                SMALL.resultTokens(),
                SMALL.thinkMs(),
                SMALL.decodeMsPerToken(),
                SMALL.blockTokens(),
                ToolFormat.OPENAI);
        Workload inline = AgentWorkload.generate(SMALL, 4);
        Workload tools = AgentWorkload.generate(openAi, 4);
        assertEquals(inline.requests().size(), tools.requests().size());
        for (int i = 0; i < inline.requests().size(); i++) {
            SimRequest a = inline.requests().get(i);
            SimRequest b = tools.requests().get(i);
            assertEquals(a.blockIds(), b.blockIds(), "the engine's prompt is the same");
            assertEquals(a.inputTokens(), b.inputTokens());
        }
        SimRequest lastStep =
                Sessions.of(tools).get("a0").get(Sessions.of(tools).get("a0").size() - 1);
        SimRequest lastInline =
                Sessions.of(inline).get("a0").get(Sessions.of(inline).get("a0").size() - 1);
        Map<String, Object> body = Sessions.materialized(tools, lastStep);
        List<Map<String, Object>> inlineMessages = Sessions.messages(inline, lastInline);
        List<Map<String, Object>> messages = Sessions.messages(tools, lastStep);
        Map<?, ?> definition = (Map<?, ?>) ((Map<?, ?>) ((List<?>) body.get("tools")).get(0)).get("function");
        assertEquals(inlineMessages.get(0).get("content"), definition.get("description"), "the system prompt");
        assertEquals(inlineMessages.size() - 1, messages.size());
        assertEquals(inlineMessages.get(1), messages.get(0), "the task");
        Map<String, Object> call = messages.get(1);
        assertEquals(null, call.get("content"));
        Map<?, ?> function = (Map<?, ?>) ((Map<?, ?>) ((List<?>) call.get("tool_calls")).get(0)).get("function");
        assertEquals("{\"input\":\"" + inlineMessages.get(2).get("content") + "\"}", function.get("arguments"));
        assertEquals(inlineMessages.get(3), messages.get(2), "tool results are alike");
    }

    @Test
    void aStepIsSentAfterThePreviousCallIsDecodedPlusTheThinkTime() {
        for (List<SimRequest> steps :
                Sessions.of(AgentWorkload.generate(SMALL, 9)).values()) {
            for (int k = 0; k + 1 < steps.size(); k++) {
                double gap = steps.get(k).outputTokens() * 12 + 150;
                assertEquals(gap, steps.get(k + 1).arrivalMs() - steps.get(k).arrivalMs(), 1.0);
            }
        }
    }

    @Test
    void aHigherRateStartsTheSameSessionsProportionallySooner() {
        Workload slow = AgentWorkload.generate(SMALL.withSessions(200), 11);
        Workload fast = AgentWorkload.generate(SMALL.withSessions(200).withSessionsPerSecond(4.0), 11);
        Map<String, List<SimRequest>> a = Sessions.of(slow);
        Map<String, List<SimRequest>> b = Sessions.of(fast);
        assertEquals(a.keySet(), b.keySet());
        for (String session : a.keySet()) {
            List<SimRequest> x = a.get(session);
            List<SimRequest> y = b.get(session);
            assertEquals(x.get(0).arrivalMs() / 2.0, y.get(0).arrivalMs(), 1.0, session);
            for (int k = 0; k < x.size(); k++) {
                assertEquals(x.get(k).blockIds(), y.get(k).blockIds());
                assertEquals(
                        x.get(k).arrivalMs() - x.get(0).arrivalMs(),
                        y.get(k).arrivalMs() - y.get(0).arrivalMs(),
                        2.0,
                        "the steps of a session keep their pace");
            }
        }
        double lastStartSlow = a.get("a199").get(0).arrivalMs();
        assertTrue(lastStartSlow > 199 * 500 * 0.8 && lastStartSlow < 199 * 500 * 1.2, "poisson 2/s: " + lastStartSlow);
    }

    @Test
    void badParametersAreRefusedNamingTheirFlag() {
        assertFlag("--steps", () -> spec(new IntRange(0, 4), IntRange.of(100), 2.0));
        assertFlag("--steps", () -> spec(new IntRange(5, 4), IntRange.of(100), 2.0));
        assertFlag("--result-tokens", () -> spec(IntRange.of(3), IntRange.of(0), 2.0));
        assertFlag("--rate", () -> spec(IntRange.of(3), IntRange.of(100), 0));
        assertFlag("--rate", () -> spec(IntRange.of(3), IntRange.of(100), Double.NaN));
        assertFlag("prompt tokens", () -> spec(IntRange.of(10_000), IntRange.of(1_000_000), 2.0));
        assertFlag("--steps wants N or MIN-MAX", () -> IntRange.parse("--steps", "-3"));
        assertFlag("--steps wants N or MIN-MAX", () -> IntRange.parse("--steps", "4-x"));
    }

    private static AgentWorkload.Spec spec(IntRange steps, IntRange results, double rate) {
        return new AgentWorkload.Spec(
                2,
                10,
                rate,
                IntRange.of(1000),
                IntRange.of(100),
                steps,
                IntRange.of(100),
                results,
                0,
                12,
                16,
                ToolFormat.INLINE);
    }

    static void assertFlag(String expected, org.junit.jupiter.api.function.Executable bad) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, bad);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
