package io.ailb.lb.request;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What the load balancer knows about one request body. Immutable; built by {@link RequestParser}. */
public final class RequestInfo {
    private static final RequestInfo NO_BODY =
            new RequestInfo(false, false, null, Collections.emptyList(), 0, -1, false, 0, 0);

    private final boolean hasBody;
    private final boolean parsed;
    private final String model;
    private final List<String> prefixHashes;
    private final List<Integer> prefixTokens;
    private final List<Integer> answeredTokens;
    private final int promptChars;
    private final int maxTokens;
    private final boolean stream;
    private final int bodyBytes;
    private final int messageCount;

    RequestInfo(
            boolean hasBody,
            boolean parsed,
            String model,
            List<String> prefixHashes,
            int promptChars,
            int maxTokens,
            boolean stream,
            int bodyBytes,
            int messageCount) {
        this(
                hasBody,
                parsed,
                model,
                prefixHashes,
                spread(prefixHashes.size(), (promptChars + 3) / 4),
                null,
                promptChars,
                maxTokens,
                stream,
                bodyBytes,
                messageCount);
    }

    /**
     * {@code prefixTokens}: cumulative estimated prompt tokens at the end of each block, one per hash;
     * {@code answeredTokens} the same plus the answer that follows each block (see {@link #answeredTokens()}), null
     * for none.
     */
    RequestInfo(
            boolean hasBody,
            boolean parsed,
            String model,
            List<String> prefixHashes,
            List<Integer> prefixTokens,
            List<Integer> answeredTokens,
            int promptChars,
            int maxTokens,
            boolean stream,
            int bodyBytes,
            int messageCount) {
        if (prefixTokens.size() != prefixHashes.size()) {
            throw new IllegalArgumentException(
                    "one token count per prefix hash: " + prefixTokens.size() + " vs " + prefixHashes.size());
        }
        this.hasBody = hasBody;
        this.parsed = parsed;
        this.model = model;
        this.prefixHashes = Collections.unmodifiableList(new ArrayList<>(prefixHashes));
        this.prefixTokens = Collections.unmodifiableList(new ArrayList<>(prefixTokens));
        if (answeredTokens != null && answeredTokens.size() != prefixTokens.size()) {
            throw new IllegalArgumentException(
                    "one answered count per prefix hash: " + answeredTokens.size() + " vs " + prefixTokens.size());
        }
        this.answeredTokens = answeredTokens == null
                ? this.prefixTokens
                : Collections.unmodifiableList(new ArrayList<>(answeredTokens));
        this.promptChars = promptChars;
        this.maxTokens = maxTokens;
        this.stream = stream;
        this.bodyBytes = bodyBytes;
        this.messageCount = messageCount;
    }

    /** A request without a body (GET, content-length 0...). */
    public static RequestInfo noBody() {
        return NO_BODY;
    }

    /** A body that was not read: binary, compressed, not JSON or malformed. Only its size is known. */
    public static RequestInfo unparsed(int bodyBytes) {
        return new RequestInfo(bodyBytes > 0, false, null, Collections.emptyList(), 0, -1, false, bodyBytes, 0);
    }

    public boolean hasBody() {
        return hasBody;
    }

    /** False for non-JSON, binary, compressed or malformed bodies; every other field is then empty. */
    public boolean parsed() {
        return parsed;
    }

    /** The {@code model} field, or null. */
    public String model() {
        return model;
    }

    /**
     * The chained hash of each prompt block h_1..h_n as 32 lower-case hex digits ({@link io.ailb.codec.hash.PrefixHash},
     * see {@link RequestParser}); h_i covers blocks 1..i, so two requests share h_1..h_k exactly when their first k
     * blocks are equal. At most {@link RequestParser#MAX_PREFIX_BLOCKS}. Empty when there is no prompt.
     */
    public List<String> prefixHashes() {
        return prefixHashes;
    }

    /**
     * For each block of {@link #prefixHashes()}, the estimated prompt tokens of blocks 1..i: {@code ceil(chars / 4)}
     * of the prompt text they hold (same rule as {@link #estimatedPromptTokens()}). Non-decreasing, same size as the
     * hashes, and a function of the prefix alone, so a host that holds h_i has about {@code prefixTokens().get(i-1)}
     * tokens of this prompt cached. The last value equals {@link #estimatedPromptTokens()}.
     */
    public List<Integer> prefixTokens() {
        return prefixTokens;
    }

    /**
     * For each block of {@link #prefixHashes()}, {@link #prefixTokens()} plus the estimated tokens of the assistant
     * messages that directly follow block i: an engine that served a prompt ending at block i generated that answer
     * and, caching generated tokens as vLLM and SGLang do, holds it too. Equal to {@code prefixTokens()} where no
     * answer follows, for completion prompts, and with {@link RequestParser.BlockBoundaries#AFTER_USER} blocks; at most
     * the whole prompt.
     */
    public List<Integer> answeredTokens() {
        return answeredTokens;
    }

    /** Unicode code points of prompt text (message contents, or completion prompts). */
    public int promptChars() {
        return promptChars;
    }

    /**
     * A tokenizer-free estimate: {@code ceil(promptChars / 4)}, the usual rule of thumb for English text with
     * BPE tokenizers. Good enough to weigh requests against each other, not to bill them.
     */
    public int estimatedPromptTokens() {
        return (promptChars + 3) / 4;
    }

    /** {@code max_tokens}, else {@code max_completion_tokens}, else -1. */
    public int maxTokens() {
        return maxTokens;
    }

    public boolean stream() {
        return stream;
    }

    public int bodyBytes() {
        return bodyBytes;
    }

    /** Chat messages, or completion prompt strings. */
    public int messageCount() {
        return messageCount;
    }

    /** Code points at each block end → {@code ceil(chars / 4)} each. */
    static List<Integer> tokensOf(int[] charsAtClose) {
        List<Integer> out = new ArrayList<>(charsAtClose.length);
        for (int chars : charsAtClose) {
            out.add((chars + 3) / 4);
        }
        return out;
    }

    /** For callers that know only the total: blocks share it evenly, the last one ends at {@code total}. */
    private static List<Integer> spread(int blocks, int total) {
        List<Integer> out = new ArrayList<>(blocks);
        for (int i = 1; i <= blocks; i++) {
            out.add((int) ((long) total * i / blocks));
        }
        return out;
    }

    @Override
    public String toString() {
        return "RequestInfo{parsed=" + parsed + ", model=" + model + ", blocks=" + prefixHashes.size()
                + ", promptChars=" + promptChars + ", maxTokens=" + maxTokens + ", stream=" + stream
                + ", bodyBytes=" + bodyBytes + ", messages=" + messageCount + "}";
    }
}
