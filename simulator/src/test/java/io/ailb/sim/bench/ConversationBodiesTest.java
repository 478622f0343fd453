package io.ailb.sim.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ConversationBodiesTest {

    @Test
    void everyBenchmarkSizeIsExactAndParsesAsTenMessages() {
        for (int size : V8CostBench.DEFAULT_SIZES) {
            byte[] body = ConversationBodies.conversation(size, 7);
            assertEquals(size, body.length);
            RequestInfo info = RequestParser.parse("application/json", null, body, body.length);
            assertTrue(info.parsed(), "size " + size);
            assertEquals(ConversationBodies.MESSAGES, info.messageCount(), "size " + size);
            assertEquals(ConversationBodies.MESSAGES, ChatBodies.messageCount(body), "size " + size);
        }
    }

    @Test
    void aSystemPromptThenFiveUserAndFourAssistantTurns() {
        String text = new String(ConversationBodies.conversation(2 << 10, 7), StandardCharsets.UTF_8);
        assertEquals(1, count(text, "\"role\":\"system\""));
        assertEquals(5, count(text, "\"role\":\"user\""));
        assertEquals(4, count(text, "\"role\":\"assistant\""));
        assertTrue(text.indexOf("\"role\":\"system\"") < text.indexOf("\"role\":\"user\""));
    }

    @Test
    void messagesGrowWithTheBody() {
        int small = longestContent(ConversationBodies.conversation(2 << 10, 7));
        int large = longestContent(ConversationBodies.conversation(256 << 10, 7));
        assertTrue(large > 100 * small, small + " vs " + large);
    }

    @Test
    void bodiesAreDeterministicAndStartAt512Bytes() {
        assertArrayEquals(ConversationBodies.conversation(32 << 10, 7), ConversationBodies.conversation(32 << 10, 7));
        assertThrows(IllegalArgumentException.class, () -> ConversationBodies.conversation(511, 7));
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
            n++;
        }
        return n;
    }

    private static int longestContent(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        int longest = 0;
        String open = "\"content\":\"";
        for (int at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + 1)) {
            int end = text.indexOf("\"}", at + open.length());
            longest = Math.max(longest, end - at - open.length());
        }
        return longest;
    }
}
