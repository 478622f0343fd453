package io.ailb.sim.workload;

import io.ailb.sim.workload.TextBlocks.Segment;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;

/**
 * Agent loops: {@code kinds} kinds of agent, each with its own long system prompt holding the tool definitions
 * (shared by every session of the kind; session s is of kind s mod kinds), and {@code sessions} sessions of a few
 * steps each. Step k sends [system + tools, user task, (assistant tool call, tool result) × k] and produces the next
 * tool call (the last step: the final answer), so histories grow by one short call and one medium tool result per
 * step. Sessions start as a Poisson process of {@code sessionsPerSecond}; a step follows the previous one after its
 * call is decoded ({@code decodeMsPerToken} per output token) plus {@code thinkMs}, the tool's running time
 * ({@link Pacing}). Lengths are drawn uniformly from their ranges; the system prompt's length once per kind.
 * {@code toolFormat} says how the bodies carry the definitions and calls; the prompt (tokens, blocks) is the same.
 */
public final class AgentWorkload {
    private static final long NAMESPACE = 0xA6E7L;

    /** Generator settings; the flag each comes from is in {@code Simulate}'s help. */
    public record Spec(
            int kinds,
            int sessions,
            double sessionsPerSecond,
            IntRange systemTokens,
            IntRange taskTokens,
            IntRange steps,
            IntRange callTokens,
            IntRange resultTokens,
            double thinkMs,
            double decodeMsPerToken,
            int blockTokens,
            ToolFormat toolFormat) {
        public Spec {
            Checks.count("--groups (agent kinds)", kinds, 1, 100_000);
            Checks.count("--sessions", sessions, 1, Checks.MAX_SESSIONS);
            Checks.positive("--rate", sessionsPerSecond, Checks.MAX_RATE);
            Checks.range("--system-tokens", systemTokens, 0, Checks.MAX_PROMPT_TOKENS);
            Checks.range("--task-tokens", taskTokens, 1, Checks.MAX_PROMPT_TOKENS);
            Checks.range("--steps", steps, 1, 10_000);
            Checks.range("--call-tokens", callTokens, 1, Checks.MAX_PROMPT_TOKENS);
            Checks.range("--result-tokens", resultTokens, 1, Checks.MAX_PROMPT_TOKENS);
            Checks.number("--think-ms", thinkMs, 0, Checks.MAX_THINK_MS);
            Checks.number("--itl-ms (pace of answers)", decodeMsPerToken, 0, 60_000);
            Checks.count("block tokens", blockTokens, 1, 1 << 20);
            Objects.requireNonNull(toolFormat, "toolFormat");
            Checks.prompt(
                    "an agent's last step",
                    (long) systemTokens.max()
                            + taskTokens.max()
                            + (steps.max() - 1L) * ((long) callTokens.max() + resultTokens.max()));
        }

        public Spec withSessions(int value) {
            return new Spec(
                    kinds,
                    value,
                    sessionsPerSecond,
                    systemTokens,
                    taskTokens,
                    steps,
                    callTokens,
                    resultTokens,
                    thinkMs,
                    decodeMsPerToken,
                    blockTokens,
                    toolFormat);
        }

        public Spec withSessionsPerSecond(double value) {
            return new Spec(
                    kinds,
                    sessions,
                    value,
                    systemTokens,
                    taskTokens,
                    steps,
                    callTokens,
                    resultTokens,
                    thinkMs,
                    decodeMsPerToken,
                    blockTokens,
                    toolFormat);
        }
    }

    /** The defaults of {@code --workload agent} (and {@code --preset agent}): moderate load on 8 backends. */
    public static final Spec DEFAULT = new Spec(
            4,
            600,
            5,
            new IntRange(4000, 8000),
            new IntRange(100, 400),
            new IntRange(4, 12),
            new IntRange(50, 200),
            new IntRange(200, 2000),
            200,
            12,
            ChatWorkload.BLOCK_TOKENS,
            ToolFormat.OPENAI);

    private AgentWorkload() {}

    public static Workload generate(Spec spec, long seed) {
        Random random = new Random(seed);
        Pacing pacing = new Pacing(spec.sessionsPerSecond(), spec.thinkMs(), spec.decodeMsPerToken());
        long namespace = TextBlocks.mix(seed, NAMESPACE);
        int[] systemTokens = new int[spec.kinds()];
        for (int k = 0; k < spec.kinds(); k++) {
            systemTokens[k] = spec.systemTokens().draw(random);
        }
        SessionRequests requests = new SessionRequests(spec.blockTokens());
        double start = 0;
        for (int s = 0; s < spec.sessions(); s++) {
            int kind = s % spec.kinds();
            if (s > 0) {
                start = pacing.nextStart(random, start);
            }
            long sessionKey = TextBlocks.mix(namespace, s);
            Transcript transcript = new Transcript(spec.toolFormat());
            if (systemTokens[kind] > 0) {
                transcript.add(
                        Transcript.SYSTEM, new Segment(TextBlocks.mix(namespace, -1 - kind), systemTokens[kind]));
            }
            transcript.add(
                    Transcript.USER,
                    new Segment(TextBlocks.mix(sessionKey, 0), spec.taskTokens().draw(random)));
            int steps = spec.steps().draw(random);
            double arrival = start;
            for (int step = 0; step < steps; step++) {
                boolean last = step == steps - 1;
                int sent = transcript.size();
                Segment output = new Segment(
                        TextBlocks.mix(sessionKey, 2L * step + 1),
                        spec.callTokens().draw(random));
                String callId = "call_" + step;
                if (last) {
                    transcript.add(Transcript.ASSISTANT, output);
                } else {
                    transcript.addToolCall(output, callId);
                }
                requests.add(
                        transcript, "a" + s, sent, arrival, spec.callTokens().max());
                if (!last) {
                    transcript.addToolResult(
                            new Segment(
                                    TextBlocks.mix(sessionKey, 2L * step + 2),
                                    spec.resultTokens().draw(random)),
                            callId);
                }
                arrival = pacing.next(arrival, output.tokens());
            }
        }
        return requests.workload(String.format(
                Locale.ROOT,
                "agent %d sessions x %s steps, %d kinds, poisson %s sessions/s%s",
                spec.sessions(),
                spec.steps(),
                spec.kinds(),
                MooncakeTrace.trim(spec.sessionsPerSecond()),
                spec.toolFormat() == ToolFormat.INLINE ? ", tools inline" : ""));
    }
}
