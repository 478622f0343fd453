package io.ailb.sim.workload;

import io.ailb.sim.workload.TextBlocks.Segment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Retrieval-augmented questions over a shared corpus of {@code documents} documents. Each session sends
 * [system, user: k retrieved documents in rank order, then a question]; a share of the sessions ask follow-ups, each
 * sending the conversation so far ([…, assistant: answer, user: next question]) with the same documents.
 *
 * <p>Retrieval: document d is the top hit with probability ∝ 1 / (d + 1)^{@code zipfExponent} (document 0 is the
 * most popular); the next k − 1 are the top document's related documents in a fixed order (each document's list is
 * drawn once, by the same popularity), each replaced by an independent popularity draw with probability
 * {@code rankNoise}. So questions about the same document retrieve the same leading documents, and requests share
 * cache blocks as far as their document lists agree. The documents are separate segments of the block chain and
 * their texts follow one another in the user message, so equal leading documents are equal leading text.
 *
 * <p>Sessions start as a Poisson process of {@code sessionsPerSecond}; a follow-up follows its previous request after
 * the answer is decoded ({@code decodeMsPerToken} per output token) plus {@code thinkMs} ({@link Pacing}).
 */
public final class RagWorkload {
    private static final long NAMESPACE = 0x5A6L;
    /** Popularity draws tried before a duplicate is replaced by the most popular document not yet retrieved. */
    private static final int DRAW_ATTEMPTS = 64;

    /** Generator settings; the flag each comes from is in {@code Simulate}'s help. */
    public record Spec(
            int documents,
            IntRange documentTokens,
            double zipfExponent,
            int topK,
            double rankNoise,
            int systemTokens,
            IntRange questionTokens,
            IntRange answerTokens,
            double followUpShare,
            IntRange followUps,
            int sessions,
            double sessionsPerSecond,
            double thinkMs,
            double decodeMsPerToken,
            int blockTokens) {
        public Spec {
            Checks.count("--documents", documents, 1, 1_000_000);
            Checks.range("--doc-tokens", documentTokens, 1, Checks.MAX_PROMPT_TOKENS);
            Checks.number("--zipf", zipfExponent, 0, 10);
            Checks.count("--top-k", topK, 1, Math.min(documents, 1000));
            Checks.number("--rank-noise", rankNoise, 0, 1);
            Checks.count("--system-tokens", systemTokens, 0, Checks.MAX_PROMPT_TOKENS);
            Checks.range("--question-tokens", questionTokens, 1, Checks.MAX_PROMPT_TOKENS);
            Checks.range("--answer-tokens", answerTokens, 1, Checks.MAX_PROMPT_TOKENS);
            Checks.number("--follow-up-share", followUpShare, 0, 1);
            Checks.range("--follow-ups", followUps, 0, 1000);
            Checks.count("--sessions", sessions, 1, Checks.MAX_SESSIONS);
            Checks.positive("--rate", sessionsPerSecond, Checks.MAX_RATE);
            Checks.number("--think-ms", thinkMs, 0, Checks.MAX_THINK_MS);
            Checks.number("--itl-ms (pace of answers)", decodeMsPerToken, 0, 60_000);
            Checks.count("block tokens", blockTokens, 1, 1 << 20);
            Checks.prompt(
                    "a RAG session's last follow-up",
                    systemTokens
                            + (long) topK * documentTokens.max()
                            + (followUps.max() + 1L) * ((long) questionTokens.max() + answerTokens.max()));
        }

        public Spec withSessions(int value) {
            return new Spec(
                    documents,
                    documentTokens,
                    zipfExponent,
                    topK,
                    rankNoise,
                    systemTokens,
                    questionTokens,
                    answerTokens,
                    followUpShare,
                    followUps,
                    value,
                    sessionsPerSecond,
                    thinkMs,
                    decodeMsPerToken,
                    blockTokens);
        }

        public Spec withSessionsPerSecond(double value) {
            return new Spec(
                    documents,
                    documentTokens,
                    zipfExponent,
                    topK,
                    rankNoise,
                    systemTokens,
                    questionTokens,
                    answerTokens,
                    followUpShare,
                    followUps,
                    sessions,
                    value,
                    thinkMs,
                    decodeMsPerToken,
                    blockTokens);
        }
    }

    /** The defaults of {@code --workload rag} (and {@code --preset rag}): moderate load on 8 backends. */
    public static final Spec DEFAULT = new Spec(
            1000,
            new IntRange(1000, 4000),
            1.0,
            4,
            0.3,
            400,
            new IntRange(20, 100),
            new IntRange(100, 400),
            0.3,
            new IntRange(1, 3),
            2000,
            8,
            8000,
            12,
            ChatWorkload.BLOCK_TOKENS);

    /**
     * The workload, per session (request session id "r" + index) the documents it retrieved in rank order, and each
     * document's length in tokens.
     */
    record Generated(Workload workload, List<int[]> retrieved, int[] documentTokens) {}

    private RagWorkload() {}

    public static Workload generate(Spec spec, long seed) {
        return build(spec, seed).workload();
    }

    static Generated build(Spec spec, long seed) {
        Random random = new Random(seed);
        Pacing pacing = new Pacing(spec.sessionsPerSecond(), spec.thinkMs(), spec.decodeMsPerToken());
        long namespace = TextBlocks.mix(seed, NAMESPACE);
        int[] documentTokens = new int[spec.documents()];
        for (int d = 0; d < documentTokens.length; d++) {
            documentTokens[d] = spec.documentTokens().draw(random);
        }
        double[] popularity = cumulativePopularity(spec.documents(), spec.zipfExponent());
        int[][] related = new int[spec.documents()][];
        for (int d = 0; d < related.length; d++) {
            int[] list = new int[spec.topK()];
            list[0] = d;
            for (int i = 1; i < list.length; i++) {
                list[i] = distinctDraw(random, popularity, list, i);
            }
            related[d] = list;
        }
        SessionRequests requests = new SessionRequests(spec.blockTokens());
        List<int[]> retrieved = new ArrayList<>();
        double start = 0;
        for (int s = 0; s < spec.sessions(); s++) {
            if (s > 0) {
                start = pacing.nextStart(random, start);
            }
            int[] documents = retrieve(random, popularity, related, spec.rankNoise());
            retrieved.add(documents);
            long sessionKey = TextBlocks.mix(namespace, s);
            Transcript transcript = new Transcript();
            if (spec.systemTokens() > 0) {
                transcript.add(Transcript.SYSTEM, new Segment(TextBlocks.mix(namespace, -1), spec.systemTokens()));
            }
            List<Segment> user = new ArrayList<>();
            for (int d : documents) {
                user.add(new Segment(TextBlocks.mix(namespace, -2L - d), documentTokens[d]));
            }
            user.add(new Segment(
                    TextBlocks.mix(sessionKey, 0), spec.questionTokens().draw(random)));
            transcript.add(Transcript.USER, user);
            boolean followsUp = random.nextDouble() < spec.followUpShare();
            int followUps = spec.followUps().draw(random);
            int turns = 1 + (followsUp ? followUps : 0);
            double arrival = start;
            for (int t = 0; t < turns; t++) {
                int sent = transcript.size();
                Segment answer = new Segment(
                        TextBlocks.mix(sessionKey, 2L * t + 1),
                        spec.answerTokens().draw(random));
                transcript.add(Transcript.ASSISTANT, answer);
                requests.add(
                        transcript, "r" + s, sent, arrival, spec.answerTokens().max());
                if (t + 1 < turns) {
                    transcript.add(
                            Transcript.USER,
                            new Segment(
                                    TextBlocks.mix(sessionKey, 2L * t + 2),
                                    spec.questionTokens().draw(random)));
                }
                arrival = pacing.next(arrival, answer.tokens());
            }
        }
        String name = String.format(
                Locale.ROOT,
                "rag %d sessions, %d documents (zipf %s), top %d, poisson %s sessions/s",
                spec.sessions(),
                spec.documents(),
                MooncakeTrace.trim(spec.zipfExponent()),
                spec.topK(),
                MooncakeTrace.trim(spec.sessionsPerSecond()));
        return new Generated(requests.workload(name), retrieved, documentTokens);
    }

    /** The top document by popularity, then its related documents, each replaced by a fresh draw at {@code noise}. */
    private static int[] retrieve(Random random, double[] popularity, int[][] related, double noise) {
        int[] top = related[draw(random, popularity)];
        int[] out = new int[top.length];
        out[0] = top[0];
        for (int i = 1; i < out.length; i++) {
            boolean replaced = random.nextDouble() < noise;
            int candidate = replaced ? draw(random, popularity) : top[i];
            out[i] = contains(out, i, candidate) ? distinctDraw(random, popularity, out, i) : candidate;
        }
        return out;
    }

    /** Cumulative weights 1 / (d + 1)^exponent. */
    static double[] cumulativePopularity(int documents, double exponent) {
        double[] cumulative = new double[documents];
        double sum = 0;
        for (int d = 0; d < documents; d++) {
            sum += Math.pow(d + 1, -exponent);
            cumulative[d] = sum;
        }
        return cumulative;
    }

    static int draw(Random random, double[] cumulative) {
        double u = random.nextDouble() * cumulative[cumulative.length - 1];
        int i = Arrays.binarySearch(cumulative, u);
        return Math.min(cumulative.length - 1, i >= 0 ? i + 1 : -i - 1);
    }

    /** A popularity draw not among {@code taken[0, count)}; after a few tries, the most popular document not taken. */
    private static int distinctDraw(Random random, double[] cumulative, int[] taken, int count) {
        for (int attempt = 0; attempt < DRAW_ATTEMPTS; attempt++) {
            int d = draw(random, cumulative);
            if (!contains(taken, count, d)) {
                return d;
            }
        }
        for (int d = 0; ; d++) {
            if (!contains(taken, count, d)) {
                return d;
            }
        }
    }

    private static boolean contains(int[] values, int count, int value) {
        for (int i = 0; i < count; i++) {
            if (values[i] == value) {
                return true;
            }
        }
        return false;
    }
}
