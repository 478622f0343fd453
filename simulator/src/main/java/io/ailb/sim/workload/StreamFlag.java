package io.ailb.sim.workload;

/**
 * The {@code "stream"} member of a chat-completion body. A streamed answer reaches the gateway token by token, so its
 * first byte is the first token; an unstreamed one arrives whole when the request completes, and the gateway never
 * sees when its first token came. Bodies here are the simulator's own or a user's log: a top-level member found by
 * text is enough (no message text in them spells the quoted key followed by a colon before the member itself).
 */
public final class StreamFlag {
    private static final String KEY = "\"stream\"";

    private StreamFlag() {}

    /** Whether the body asks for a streamed answer ({@code "stream": true}). */
    public static boolean streams(String body) {
        int value = valueAt(body);
        return value >= 0 && body.startsWith("true", value);
    }

    /** The body with {@code "stream": true} turned into {@code "stream": false}; other bodies as they are. */
    public static String unstreamed(String body) {
        int value = valueAt(body);
        if (value < 0 || !body.startsWith("true", value)) {
            return body;
        }
        return body.substring(0, value) + "false" + body.substring(value + "true".length());
    }

    /** Where the value of the first {@code "stream":} member starts, or -1. */
    private static int valueAt(String body) {
        int from = 0;
        while (true) {
            int key = body.indexOf(KEY, from);
            if (key < 0) {
                return -1;
            }
            int i = skipSpaces(body, key + KEY.length());
            if (i < body.length() && body.charAt(i) == ':') {
                return skipSpaces(body, i + 1);
            }
            from = key + KEY.length();
        }
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }
}
