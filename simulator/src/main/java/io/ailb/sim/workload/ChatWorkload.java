package io.ailb.sim.workload;

import io.ailb.sim.model.SimRequest;
import io.ailb.sim.workload.TextBlocks.Segment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Synthetic multi-turn chat: {@code groups} system prompts, {@code sessions} conversations (session s uses group
 * s mod groups, or with {@code groupZipf} > 0 a group drawn with weight 1 / (g + 1)^groupZipf: a few popular
 * assistants and a long tail) of {@code turns} turns; turn t sends [system, user1, assistant1, …, user t] where the assistant
 * messages are the earlier turns' outputs (each request knows the block ids its answer will have, so an engine that
 * caches generated blocks serves them to the next turn). Lengths are normal(mean, stddev) clipped at 1. Closed loop
 * ({@code concurrency} sessions at a time, next turn {@code thinkMs} after the previous completes) or open loop
 * (sessions start as a Poisson process of {@code sessionsPerSecond}; a turn follows the previous one after its answer
 * is decoded, {@code decodeMsPerToken} per output token, plus {@code thinkMs}: {@link Pacing}).
 */
public final class ChatWorkload {
    public static final int BLOCK_TOKENS = 16;

    /** Generator settings; {@link #HIGRESS_ARTICLE} reproduces Higress's published prefix_cache benchmark. */
    public record Spec(
            int groups,
            int sessions,
            int turns,
            int systemTokens,
            double inputMean,
            double inputStddev,
            double outputMean,
            double outputStddev,
            int concurrency,
            double sessionsPerSecond,
            double thinkMs,
            double decodeMsPerToken,
            int blockTokens,
            double groupZipf) {
        public Spec {
            Checks.count("--groups", groups, 1, 100_000);
            Checks.count("--sessions", sessions, 1, Checks.MAX_SESSIONS);
            Checks.count("--turns", turns, 1, 10_000);
            Checks.count("--system-tokens", systemTokens, 0, Checks.MAX_PROMPT_TOKENS);
            Checks.number("--input-tokens", inputMean, 1, Checks.MAX_PROMPT_TOKENS);
            Checks.number("--input-stddev", inputStddev, 0, Checks.MAX_PROMPT_TOKENS);
            Checks.number("--output-tokens", outputMean, 1, Checks.MAX_PROMPT_TOKENS);
            Checks.number("--output-stddev", outputStddev, 0, Checks.MAX_PROMPT_TOKENS);
            Checks.count("--concurrency", concurrency, 0, Checks.MAX_SESSIONS);
            if (concurrency == 0) {
                Checks.positive("--rate", sessionsPerSecond, Checks.MAX_RATE);
            } else {
                Checks.number("--rate", sessionsPerSecond, 0, Checks.MAX_RATE);
            }
            Checks.number("--think-ms", thinkMs, 0, Checks.MAX_THINK_MS);
            Checks.number("--itl-ms (pace of answers)", decodeMsPerToken, 0, 60_000);
            Checks.count("block tokens", blockTokens, 1, 1 << 20);
            Checks.number("--group-zipf", groupZipf, 0, 10);
            Checks.prompt("a chat's last turn", Math.round(systemTokens + turns * (inputMean + outputMean)));
        }

        public Spec withSessions(int value) {
            return new Spec(
                    groups,
                    value,
                    turns,
                    systemTokens,
                    inputMean,
                    inputStddev,
                    outputMean,
                    outputStddev,
                    concurrency,
                    sessionsPerSecond,
                    thinkMs,
                    decodeMsPerToken,
                    blockTokens,
                    groupZipf);
        }

        public Spec withSessionsPerSecond(double value) {
            return new Spec(
                    groups,
                    sessions,
                    turns,
                    systemTokens,
                    inputMean,
                    inputStddev,
                    outputMean,
                    outputStddev,
                    concurrency,
                    value,
                    thinkMs,
                    decodeMsPerToken,
                    blockTokens,
                    groupZipf);
        }
    }

    /** GenAI-Perf run of Higress's article: 200 input / 800 output tokens per turn, 5 turns, 60 sessions, 20 at a time. */
    public static final Spec HIGRESS_ARTICLE = new Spec(1, 60, 5, 0, 200, 0, 800, 0, 20, 0, 0, 12, BLOCK_TOKENS, 0);

    private ChatWorkload() {}

    public static Workload generate(Spec spec, long seed) {
        Random random = new Random(seed);
        // Its own stream, so the other draws are the same with and without popularity.
        Random groupDraws = new Random(TextBlocks.mix(seed, 0x67726f7570L));
        double[] popularity =
                spec.groupZipf() > 0 ? RagWorkload.cumulativePopularity(spec.groups(), spec.groupZipf()) : null;
        Pacing pacing = new Pacing(spec.sessionsPerSecond(), spec.thinkMs(), spec.decodeMsPerToken());
        List<List<SimRequest>> sessions = new ArrayList<>();
        long id = 0;
        double start = 0;
        for (int s = 0; s < spec.sessions(); s++) {
            int group = popularity == null ? s % spec.groups() : RagWorkload.draw(groupDraws, popularity);
            long sessionKey = TextBlocks.mix(seed, 1000003L * s + 7);
            List<Segment> prompt = new ArrayList<>();
            if (spec.systemTokens() > 0) {
                prompt.add(new Segment(TextBlocks.mix(seed, -1 - group), spec.systemTokens()));
            }
            if (spec.concurrency() < 1 && s > 0) {
                start = pacing.nextStart(random, start);
            }
            List<SimRequest> turns = new ArrayList<>();
            double sendAt = start;
            for (int t = 0; t < spec.turns(); t++) {
                int input = draw(random, spec.inputMean(), spec.inputStddev());
                int output = draw(random, spec.outputMean(), spec.outputStddev());
                prompt.add(new Segment(TextBlocks.mix(sessionKey, 2L * t), input));
                int tokens = prompt.stream().mapToInt(Segment::tokens).sum();
                long arrival = spec.concurrency() > 0 ? 0 : Math.round(sendAt);
                sendAt = pacing.next(sendAt, output);
                List<Long> ids = TextBlocks.chainIds(prompt, spec.blockTokens());
                String body = body(spec, prompt);
                prompt.add(new Segment(TextBlocks.mix(sessionKey, 2L * t + 1), output));
                List<Long> withAnswer = TextBlocks.chainIds(prompt, spec.blockTokens());
                List<Long> answerIds =
                        withAnswer.subList(tokens / spec.blockTokens(), (tokens + output) / spec.blockTokens());
                turns.add(new SimRequest(
                        id++, arrival, "s" + s, tokens, output, spec.blockTokens(), ids, body, answerIds));
            }
            sessions.add(turns);
        }
        String name = "chat " + spec.sessions() + "x" + spec.turns() + " turns"
                + (popularity == null
                        ? ""
                        : ", " + spec.groups() + " groups zipf " + MooncakeTrace.trim(spec.groupZipf()));
        if (spec.concurrency() > 0) {
            return Workload.closedLoop(
                    name + ", concurrency " + spec.concurrency(), sessions, spec.concurrency(), spec.thinkMs(), null);
        }
        List<SimRequest> all = new ArrayList<>();
        sessions.forEach(all::addAll);
        all.sort((a, b) -> a.arrivalMs() != b.arrivalMs()
                ? Long.compare(a.arrivalMs(), b.arrivalMs())
                : Long.compare(a.id(), b.id()));
        return Workload.openLoop(
                name + ", poisson " + MooncakeTrace.trim(spec.sessionsPerSecond()) + " sessions/s", all, null);
    }

    private static int draw(Random random, double mean, double stddev) {
        double v = stddev > 0 ? mean + stddev * random.nextGaussian() : mean;
        return (int) Math.max(1, Math.round(v));
    }

    private static String body(Spec spec, List<Segment> prompt) {
        StringBuilder body = new StringBuilder("{\"model\":\"sim\",\"stream\":true,\"messages\":[");
        int i = 0;
        boolean system = spec.systemTokens() > 0;
        for (Segment s : prompt) {
            String role;
            if (system && i == 0) {
                role = "system";
            } else {
                int turnIndex = system ? i - 1 : i;
                role = turnIndex % 2 == 0 ? "user" : "assistant";
            }
            if (i > 0) {
                body.append(',');
            }
            body.append("{\"role\":\"")
                    .append(role)
                    .append("\",\"content\":\"")
                    .append(TextBlocks.text(s.id(), s.tokens() * TextBlocks.CHARS_PER_TOKEN))
                    .append("\"}");
            i++;
        }
        return body.append("]}").toString();
    }
}
