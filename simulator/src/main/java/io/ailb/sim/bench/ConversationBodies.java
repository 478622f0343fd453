package io.ailb.sim.bench;

import java.nio.charset.StandardCharsets;

/**
 * OpenAI chat-completions bodies of a given size with a fixed conversation: a system prompt, then 5 user and 4
 * assistant turns alternating (10 messages), each message's text growing with the body. This is the shape issue 9's
 * Go-plugin reference figures were measured with; {@link ChatBodies} adds messages instead as the body grows.
 */
final class ConversationBodies {
    static final int MESSAGES = 10;

    private ConversationBodies() {}

    /** A body of exactly {@code targetBytes} UTF-8 bytes (at least 512). */
    static byte[] conversation(int targetBytes, long seed) {
        if (targetBytes < 512) {
            throw new IllegalArgumentException("conversation bodies start at 512 bytes: " + targetBytes);
        }
        StringBuilder body = new StringBuilder(targetBytes + 64);
        body.append("{\"model\":\"qwen2.5-7b-instruct\",\"stream\":true,\"max_tokens\":512,\"messages\":[");
        String tail = "]}";
        String end = "\"}";
        int framing = body.length() + tail.length();
        for (int turn = 0; turn < MESSAGES; turn++) {
            framing += head(turn).length() + end.length();
        }
        // Equal shares of text; the last message takes the remainder so the size is exact.
        int text = targetBytes - framing;
        long state = seed;
        for (int turn = 0; turn < MESSAGES; turn++) {
            int length = turn == MESSAGES - 1 ? text - (MESSAGES - 1) * (text / MESSAGES) : text / MESSAGES;
            body.append(head(turn));
            state = ChatBodies.appendText(body, length, state);
            body.append(end);
        }
        body.append(tail);
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length != targetBytes) {
            throw new IllegalStateException("built " + bytes.length + " bytes for " + targetBytes);
        }
        return bytes;
    }

    private static String head(int turn) {
        String role = turn == 0 ? "system" : turn % 2 == 1 ? "user" : "assistant";
        return (turn == 0 ? "" : ",") + "{\"role\":\"" + role + "\",\"content\":\"";
    }
}
