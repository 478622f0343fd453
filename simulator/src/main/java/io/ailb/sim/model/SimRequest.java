package io.ailb.sim.model;

import java.util.List;
import java.util.Objects;

/**
 * One request of a workload. {@code blockIds} are prefix-chained: two requests share an id at position i only when
 * their first i+1 blocks of {@code blockTokens} tokens are equal, as in the Mooncake traces. {@code body} is the
 * OpenAI chat-completions JSON a text- or message-based router (the plugin) sees; it carries the same reuse.
 * {@code outputBlockIds} (may be empty: unknown) continue the chain into the answer: the ids of the full blocks of
 * prompt + output after the prompt's full blocks, the i-th full once the sequence holds
 * {@code (inputTokens / blockTokens + i + 1) × blockTokens} tokens. A follow-up turn that sends the answer back
 * carries the same ids, so an engine that caches generated blocks serves them from cache.
 */
public final class SimRequest {
    private final long id;
    private final long arrivalMs;
    private final String sessionId;
    private final int inputTokens;
    private final int outputTokens;
    private final int blockTokens;
    private final List<Long> blockIds;
    private final String body;
    private final List<Long> outputBlockIds;

    public SimRequest(
            long id,
            long arrivalMs,
            String sessionId,
            int inputTokens,
            int outputTokens,
            int blockTokens,
            List<Long> blockIds,
            String body) {
        this(id, arrivalMs, sessionId, inputTokens, outputTokens, blockTokens, blockIds, body, List.of());
    }

    public SimRequest(
            long id,
            long arrivalMs,
            String sessionId,
            int inputTokens,
            int outputTokens,
            int blockTokens,
            List<Long> blockIds,
            String body,
            List<Long> outputBlockIds) {
        this.id = id;
        this.arrivalMs = arrivalMs;
        this.sessionId = sessionId;
        this.inputTokens = inputTokens;
        this.outputTokens = outputTokens;
        this.blockTokens = blockTokens;
        this.blockIds = List.copyOf(blockIds);
        this.body = Objects.requireNonNull(body, "body");
        this.outputBlockIds = List.copyOf(outputBlockIds);
    }

    /** This request with {@code ids} as its {@link #outputBlockIds()}. */
    public SimRequest withOutputBlockIds(List<Long> ids) {
        return new SimRequest(id, arrivalMs, sessionId, inputTokens, outputTokens, blockTokens, blockIds, body, ids);
    }

    public long id() {
        return id;
    }

    public long arrivalMs() {
        return arrivalMs;
    }

    /** The conversation this turn belongs to; null when the workload has no sessions. */
    public String sessionId() {
        return sessionId;
    }

    public int inputTokens() {
        return inputTokens;
    }

    public int outputTokens() {
        return outputTokens;
    }

    /** Tokens per prefix block (512 in the Mooncake traces). */
    public int blockTokens() {
        return blockTokens;
    }

    public List<Long> blockIds() {
        return blockIds;
    }

    public String body() {
        return body;
    }

    public List<Long> outputBlockIds() {
        return outputBlockIds;
    }
}
