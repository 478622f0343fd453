package io.ailb.sim.workload;

import io.ailb.sim.workload.TextBlocks.Segment;
import java.util.ArrayList;
import java.util.List;

/**
 * The messages of one session in order; each request sends the first n of them and produces message n. A message's
 * text is its segments' texts one after the other, and the block ids are chained over the same segments, so two
 * requests share text exactly where they share blocks.
 */
final class Transcript {
    static final String SYSTEM = "system";
    static final String USER = "user";
    static final String ASSISTANT = "assistant";
    static final String TOOL = "tool";

    /** {@code callId}: the tool call an assistant message makes or a tool message answers; null for plain text. */
    record Message(String role, List<Segment> segments, String callId) {
        int tokens() {
            int sum = 0;
            for (Segment s : segments) {
                sum += s.tokens();
            }
            return sum;
        }
    }

    private final List<Message> messages = new ArrayList<>();
    private final ToolFormat toolFormat;

    /** A transcript whose tool definitions and calls are written into its bodies as {@code format} says. */
    Transcript(ToolFormat format) {
        this.toolFormat = format;
    }

    /** Tools written {@link ToolFormat#INLINE}. */
    Transcript() {
        this(ToolFormat.INLINE);
    }

    Transcript add(String role, List<Segment> segments) {
        messages.add(new Message(role, List.copyOf(segments), null));
        return this;
    }

    Transcript add(String role, Segment segment) {
        return add(role, List.of(segment));
    }

    /** An assistant message that calls a tool ({@code callId}) with {@code call} as its text. */
    Transcript addToolCall(Segment call, String callId) {
        messages.add(new Message(ASSISTANT, List.of(call), callId));
        return this;
    }

    Transcript addToolResult(Segment result, String callId) {
        messages.add(new Message(TOOL, List.of(result), callId));
        return this;
    }

    int size() {
        return messages.size();
    }

    Message message(int index) {
        return messages.get(index);
    }

    int tokens(int count) {
        int sum = 0;
        for (int i = 0; i < count; i++) {
            sum += messages.get(i).tokens();
        }
        return sum;
    }

    List<Segment> segments(int count) {
        List<Segment> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.addAll(messages.get(i).segments());
        }
        return out;
    }

    /**
     * The chat-completions body of the first {@code count} messages. {@link ToolFormat#OPENAI}: a leading system
     * prompt (the instructions and tool definitions) is sent as the top-level {@code tools} array instead, after the
     * messages where OpenAI's SDKs put it, and a tool call is the assistant's {@code tool_calls} with null content; an
     * engine renders the same prompt either way (the definitions first).
     */
    String body(int count, int maxTokens) {
        StringBuilder body = new StringBuilder(tokens(count) * TextBlocks.CHARS_PER_TOKEN + 128 * count + 160);
        body.append("{\"model\":\"sim\",\"stream\":true,\"max_tokens\":")
                .append(maxTokens)
                .append(",\"messages\":[");
        String definitions = null;
        boolean openAi = toolFormat == ToolFormat.OPENAI;
        int written = 0;
        for (int i = 0; i < count; i++) {
            Message m = messages.get(i);
            String text = text(m);
            if (openAi && i == 0 && m.role().equals(SYSTEM)) {
                definitions = text;
                continue;
            }
            if (written++ > 0) {
                body.append(',');
            }
            body.append("{\"role\":\"").append(m.role()).append('"');
            if (m.role().equals(TOOL)) {
                body.append(",\"tool_call_id\":\"").append(m.callId()).append('"');
            }
            if (m.role().equals(ASSISTANT) && m.callId() != null) {
                String arguments = openAi ? "{\\\"input\\\":\\\"" + text + "\\\"}" : "{}";
                body.append(",\"content\":")
                        .append(openAi ? "null" : '"' + text + '"')
                        .append(",\"tool_calls\":[{\"id\":\"")
                        .append(m.callId())
                        .append("\",\"type\":\"function\",\"function\":{\"name\":\"tool\",\"arguments\":\"")
                        .append(arguments)
                        .append("\"}}]");
            } else {
                body.append(",\"content\":\"").append(text).append('"');
            }
            body.append('}');
        }
        body.append(']');
        if (definitions != null) {
            body.append(",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"tools\",\"description\":\"")
                    .append(definitions)
                    .append("\",\"parameters\":{\"type\":\"object\"}}}]");
        }
        return body.append('}').toString();
    }

    private static String text(Message m) {
        StringBuilder text = new StringBuilder(m.tokens() * TextBlocks.CHARS_PER_TOKEN);
        for (Segment s : m.segments()) {
            text.append(TextBlocks.text(s.id(), s.tokens() * TextBlocks.CHARS_PER_TOKEN));
        }
        return text.toString();
    }
}
