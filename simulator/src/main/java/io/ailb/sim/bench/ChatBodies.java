package io.ailb.sim.bench;

import java.nio.charset.StandardCharsets;

/**
 * OpenAI chat-completions bodies of a given size made of many messages: a system prompt, then alternating user and
 * assistant turns of equal length (about an eighth of the body, at most 1 KiB of text each), so a 4 MiB body has
 * about 4,000 messages. Text is deterministic pseudo-random words with an occasional JSON escape ({@code \n},
 * {@code \"}), so the parser's escape path is exercised too.
 */
final class ChatBodies {
    static final int MAX_MESSAGE_TEXT = 1024;
    private static final String[] WORDS = {
        "the",
        "model",
        "token",
        "cache",
        "prefix",
        "request",
        "gateway",
        "latency",
        "batch",
        "kv",
        "attention",
        "prompt",
        "reply",
        "stream",
        "route",
        "backend",
        "queue",
        "GPU",
        "answer",
        "question",
        "context",
        "window",
        "decode",
        "prefill",
        "weights",
        "shard",
        "replica",
        "load"
    };

    private static final String MESSAGES_START =
            "{\"model\":\"qwen2.5-7b-instruct\",\"stream\":true,\"max_tokens\":512,\"messages\":[";

    private ChatBodies() {}

    /** A body of exactly {@code targetBytes} UTF-8 bytes (at least 200). */
    static byte[] chat(int targetBytes, long seed) {
        if (targetBytes < 200) {
            throw new IllegalArgumentException("bodies start at 200 bytes: " + targetBytes);
        }
        int textLength = Math.max(16, Math.min(MAX_MESSAGE_TEXT, targetBytes / 8 - 40));
        Turns turns = new Turns() {
            @Override
            public String head(int turn) {
                String role = turn == 0 ? "system" : turn % 2 == 1 ? "user" : "assistant";
                return (turn == 0 ? "" : ",") + "{\"role\":\"" + role + "\",\"content\":\"";
            }

            @Override
            public String end(int turn) {
                return "\"}";
            }

            @Override
            public int maxText(int turn) {
                return textLength;
            }
        };
        return fill(targetBytes, MESSAGES_START, "]}", turns, seed);
    }

    /**
     * An OpenAI function-calling agent's body of exactly {@code targetBytes} UTF-8 bytes (at least 400): a task, then
     * tool calls (null content, the call in {@code tool_calls}) and tool results of about an eighth of the body, at
     * most 1 KiB each, and the tool definitions, a quarter of the body, in {@code tools} after the messages, where
     * OpenAI's SDKs put them (the parser then hashes the messages a second time).
     */
    static byte[] agent(int targetBytes, long seed) {
        if (targetBytes < 400) {
            throw new IllegalArgumentException("agent bodies start at 400 bytes: " + targetBytes);
        }
        long state = seed;
        StringBuilder tools = new StringBuilder(targetBytes / 4 + 128);
        tools.append("],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"search\",\"description\":\"");
        state = appendText(tools, targetBytes / 4, state);
        tools.append("\",\"parameters\":{\"type\":\"object\"}}}]}");
        int textLength = Math.max(16, Math.min(MAX_MESSAGE_TEXT, targetBytes / 8 - 40));
        Turns turns = new Turns() {
            @Override
            public String head(int turn) {
                if (turn == 0) {
                    return "{\"role\":\"user\",\"content\":\"";
                }
                return turn % 2 == 1
                        ? ",{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_" + turn
                                + "\",\"type\":\"function\",\"function\":{\"name\":\"search\",\"arguments\":\""
                        : ",{\"role\":\"tool\",\"tool_call_id\":\"call_" + (turn - 1) + "\",\"content\":\"";
            }

            @Override
            public String end(int turn) {
                return turn % 2 == 1 ? "\"}}]}" : "\"}";
            }

            @Override
            public int maxText(int turn) {
                return turn % 2 == 1 ? textLength / 4 : textLength;
            }
        };
        return fill(targetBytes, MESSAGES_START, tools.toString(), turns, state);
    }

    /** How the n-th message of a body opens and closes, and at most how much text it holds. */
    private interface Turns {
        String head(int turn);

        String end(int turn);

        int maxText(int turn);
    }

    /**
     * {@code start}, then messages as {@code turns} shape them while they fit, spaces and {@code tail}: exactly
     * {@code targetBytes} bytes of ASCII.
     */
    private static byte[] fill(int targetBytes, String start, String tail, Turns turns, long state) {
        StringBuilder body = new StringBuilder(targetBytes + 64).append(start);
        for (int turn = 0; ; turn++) {
            String head = turns.head(turn);
            String end = turns.end(turn);
            int room = targetBytes - body.length() - tail.length() - head.length() - end.length();
            if (room < 1) {
                break;
            }
            int length = Math.min(turns.maxText(turn), room);
            // The last message takes what is left if another full one would not fit.
            if (room - length < head.length() + end.length() + 16) {
                length = room;
            }
            body.append(head);
            state = appendText(body, length, state);
            body.append(end);
        }
        // Pad to the exact size with spaces inside the JSON (whitespace between tokens is valid).
        while (body.length() + tail.length() < targetBytes) {
            body.append(' ');
        }
        body.append(tail);
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length != targetBytes) {
            throw new IllegalStateException("built " + bytes.length + " bytes for " + targetBytes);
        }
        return bytes;
    }

    /** Number of messages in a body built by {@link #chat}. */
    static int messageCount(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        int count = 0;
        for (int at = text.indexOf("{\"role\""); at >= 0; at = text.indexOf("{\"role\"", at + 1)) {
            count++;
        }
        return count;
    }

    /** Appends exactly {@code length} characters of ASCII text, JSON-escaped; returns the generator state. */
    static long appendText(StringBuilder out, int length, long state) {
        int written = 0;
        while (written < length) {
            state = next(state);
            int pick = (int) ((state >>> 33) % (WORDS.length + 2));
            String piece;
            if (pick == WORDS.length) {
                piece = "\\n";
            } else if (pick == WORDS.length + 1) {
                piece = "\\\"";
            } else {
                piece = WORDS[pick] + " ";
            }
            if (written + piece.length() > length) {
                piece = "xxxxxxxxxxxxxxxx".substring(0, length - written);
            }
            out.append(piece);
            written += piece.length();
        }
        return state;
    }

    private static long next(long state) {
        long z = state + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
