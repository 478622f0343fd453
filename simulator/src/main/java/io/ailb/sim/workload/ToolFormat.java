package io.ailb.sim.workload;

import java.util.Locale;

/** How an agent's tool definitions and calls appear in its request bodies. */
public enum ToolFormat {
    /** In the text: the definitions in the system prompt, a call as the assistant's content. */
    INLINE,
    /** As OpenAI's function calling sends them: a top-level {@code tools} array and {@code tool_calls}. */
    OPENAI;

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ToolFormat fromCli(String value) {
        for (ToolFormat f : values()) {
            if (f.cliName().equals(value)) {
                return f;
            }
        }
        throw new IllegalArgumentException("--tool-format must be inline or openai, got " + value);
    }
}
