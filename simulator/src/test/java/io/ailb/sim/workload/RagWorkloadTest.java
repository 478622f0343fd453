package io.ailb.sim.workload;

import static io.ailb.sim.workload.AgentWorkloadTest.assertFlag;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.model.SimRequest;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RagWorkloadTest {
    /** 50 documents of 1000-4000 tokens, top 4, a 300-token system prompt, half the sessions asking 1-3 more. */
    private static final RagWorkload.Spec SMALL = new RagWorkload.Spec(
            50,
            new IntRange(1000, 4000),
            1.0,
            4,
            0.3,
            300,
            new IntRange(20, 100),
            new IntRange(100, 400),
            0.5,
            new IntRange(1, 3),
            300,
            4.0,
            5000,
            12,
            16);

    @Test
    void theSameSeedGivesTheSameWorkloadAndAnotherSeedAnother() {
        RagWorkload.Spec spec = SMALL.withSessions(40);
        List<String> a = Sessions.fingerprint(RagWorkload.generate(spec, 7));
        assertEquals(a, Sessions.fingerprint(RagWorkload.generate(spec, 7)));
        assertNotEquals(a, Sessions.fingerprint(RagWorkload.generate(spec, 8)));
    }

    @Test
    void requestsSharingTheirFirstTwoDocumentsShareExactlyThoseBlocksAndThatText() throws Exception {
        RagWorkload.Generated g = RagWorkload.build(SMALL.withSessions(120), 2);
        Map<String, List<SimRequest>> sessions = Sessions.of(g.workload());
        int pairs = 0;
        for (int i = 0; i < g.retrieved().size(); i++) {
            for (int j = i + 1; j < g.retrieved().size(); j++) {
                int[] a = g.retrieved().get(i);
                int[] b = g.retrieved().get(j);
                if (a[0] != b[0] || a[1] != b[1] || a[2] == b[2]) {
                    continue;
                }
                pairs++;
                SimRequest x = sessions.get("r" + i).get(0);
                SimRequest y = sessions.get("r" + j).get(0);
                int shared = 300 + g.documentTokens()[a[0]] + g.documentTokens()[a[1]];
                assertEquals(
                        shared / 16, Sessions.sharedPrefix(x.blockIds(), y.blockIds()), "sessions " + i + ", " + j);

                String userX =
                        Sessions.messages(g.workload(), x).get(1).get("content").toString();
                String userY =
                        Sessions.messages(g.workload(), y).get(1).get("content").toString();
                int sharedChars = (shared - 300) * TextBlocks.CHARS_PER_TOKEN;
                assertEquals(userX.substring(0, sharedChars), userY.substring(0, sharedChars));
                int thirdX = g.documentTokens()[a[2]] * TextBlocks.CHARS_PER_TOKEN;
                int thirdY = g.documentTokens()[b[2]] * TextBlocks.CHARS_PER_TOKEN;
                assertNotEquals(
                        userX.substring(sharedChars, sharedChars + thirdX),
                        userY.substring(sharedChars, sharedChars + thirdY));
            }
        }
        assertTrue(pairs > 10, "popular leading documents recur: " + pairs + " pairs");
    }

    @Test
    void theUserMessageIsTheDocumentsInRankOrderThenTheQuestion() throws Exception {
        RagWorkload.Generated g = RagWorkload.build(SMALL.withSessions(20), 4);
        SimRequest first = Sessions.of(g.workload()).get("r0").get(0);
        int[] documents = g.retrieved().get(0);
        List<Map<String, Object>> messages = Sessions.messages(g.workload(), first);
        assertEquals(
                List.of("system", "user"),
                messages.stream().map(m -> m.get("role")).toList());
        String user = messages.get(1).get("content").toString();
        int documentTokens =
                Arrays.stream(documents).map(d -> g.documentTokens()[d]).sum();
        int question = first.inputTokens() - 300 - documentTokens;
        assertTrue(question >= 20 && question <= 100, "question " + question);
        assertEquals((documentTokens + question) * TextBlocks.CHARS_PER_TOKEN, user.length());
        assertEquals(4, Arrays.stream(documents).distinct().count());
        assertEquals(400, ((Number) Sessions.materialized(g.workload(), first).get("max_tokens")).intValue());
    }

    @Test
    void aFollowUpResendsTheDocumentsAndTheAnswerItFindsCached() throws Exception {
        Workload w = RagWorkload.generate(SMALL, 6);
        int followUps = 0;
        for (List<SimRequest> turns : Sessions.of(w).values()) {
            assertTrue(turns.size() <= 4);
            for (int t = 0; t + 1 < turns.size(); t++) {
                followUps++;
                SimRequest ask = turns.get(t);
                SimRequest next = turns.get(t + 1);
                int full = ask.inputTokens() / 16;
                assertEquals(ask.blockIds().subList(0, full), next.blockIds().subList(0, full));
                assertEquals(
                        ask.outputBlockIds(),
                        next.blockIds()
                                .subList(full, full + ask.outputBlockIds().size()));
                List<Map<String, Object>> a = Sessions.messages(w, ask);
                List<Map<String, Object>> b = Sessions.messages(w, next);
                assertEquals(a, b.subList(0, a.size()));
                assertEquals(
                        List.of("assistant", "user"),
                        b.subList(a.size(), b.size()).stream()
                                .map(m -> m.get("role"))
                                .toList());
                assertEquals(ask.outputTokens() * 12 + 5000, next.arrivalMs() - ask.arrivalMs(), 1.0);
            }
        }
        assertTrue(followUps > 100, "half of 300 sessions ask 1-3 more: " + followUps);
    }

    @Test
    void popularDocumentsLeadMoreOftenAndWithoutNoiseATopDocumentBringsItsCompanions() {
        RagWorkload.Generated g = RagWorkload.build(SMALL.withSessions(2000), 8);
        int[] leads = new int[50];
        g.retrieved().forEach(r -> leads[r[0]]++);
        assertTrue(leads[0] > leads[9] && leads[9] > leads[49], Arrays.toString(leads));
        assertEquals(2000 / RagWorkload.cumulativePopularity(50, 1.0)[49], leads[0], 60, "zipf 1 over 50 documents");

        RagWorkload.Spec exact = new RagWorkload.Spec(
                50,
                new IntRange(1000, 4000),
                1.0,
                4,
                0.0,
                300,
                new IntRange(20, 100),
                new IntRange(100, 400),
                0,
                new IntRange(1, 3),
                300,
                4.0,
                5000,
                12,
                16);
        int[][] byTop = new int[50][];
        for (int[] r : RagWorkload.build(exact, 8).retrieved()) {
            if (byTop[r[0]] != null) {
                assertArrayEquals(byTop[r[0]], r);
            }
            byTop[r[0]] = r;
        }
    }

    @Test
    void aHigherRateStartsTheSameSessionsProportionallySooner() {
        Workload slow = RagWorkload.generate(SMALL, 12);
        Workload fast = RagWorkload.generate(SMALL.withSessionsPerSecond(12.0), 12);
        Map<String, List<SimRequest>> a = Sessions.of(slow);
        Map<String, List<SimRequest>> b = Sessions.of(fast);
        assertEquals(a.keySet(), b.keySet());
        for (String session : a.keySet()) {
            assertEquals(
                    a.get(session).get(0).arrivalMs() / 3.0,
                    b.get(session).get(0).arrivalMs(),
                    1.0);
            assertEquals(
                    a.get(session).stream().map(SimRequest::blockIds).toList(),
                    b.get(session).stream().map(SimRequest::blockIds).toList());
        }
    }

    @Test
    void badParametersAreRefusedNamingTheirFlag() {
        assertFlag("--top-k", () -> spec(60, 1.0, 0.3, new IntRange(1, 3)));
        assertFlag("--zipf", () -> spec(4, -1, 0.3, new IntRange(1, 3)));
        assertFlag("--rank-noise", () -> spec(4, 1.0, 1.5, new IntRange(1, 3)));
        assertFlag("--follow-ups", () -> spec(4, 1.0, 0.3, new IntRange(3, 1)));
        assertFlag("--doc-tokens wants N or MIN-MAX", () -> IntRange.parse("--doc-tokens", "1000-"));
    }

    private static RagWorkload.Spec spec(int topK, double zipf, double noise, IntRange followUps) {
        return new RagWorkload.Spec(
                50,
                new IntRange(1000, 4000),
                zipf,
                topK,
                noise,
                300,
                new IntRange(20, 100),
                new IntRange(100, 400),
                0.5,
                followUps,
                300,
                4.0,
                5000,
                12,
                16);
    }
}
