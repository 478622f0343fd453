package io.ailb.sim.bench;

import static io.ailb.lb.request.RequestParser.BlockBoundaries.EVERY_MESSAGE_BUT_ASSISTANT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import org.junit.jupiter.api.Test;

class ChatBodiesTest {
    private static final String JSON = "application/json";

    @Test
    void everyBenchmarkSizeIsExactAndParsesAsAChatWithManyMessages() {
        for (int size : PluginCostBench.DEFAULT_SIZES) {
            byte[] body = ChatBodies.chat(size, 7);
            assertEquals(size, body.length);
            RequestInfo info = RequestParser.parse(JSON, null, body, body.length);
            assertTrue(info.parsed(), "size " + size);
            assertEquals(ChatBodies.messageCount(body), info.messageCount(), "size " + size);
            assertFalse(info.prefixHashes().isEmpty(), "size " + size);
            assertTrue(info.messageCount() >= 4, "size " + size + ": " + info.messageCount());
        }
        assertTrue(ChatBodies.messageCount(ChatBodies.chat(4 << 20, 7)) > 3000);
    }

    @Test
    void everyAgentBodyIsExactAndParsesWithItsToolDefinitionsAsPrompt() {
        for (int size : V8CostBench.DEFAULT_SIZES) {
            byte[] body = ChatBodies.agent(size, 7);
            assertEquals(size, body.length);
            RequestInfo info = RequestParser.parse(JSON, null, body, body.length, true, EVERY_MESSAGE_BUT_ASSISTANT);
            assertTrue(info.parsed(), "size " + size);
            assertEquals(ChatBodies.messageCount(body), info.messageCount(), "size " + size);
            assertTrue(info.messageCount() >= 3, "size " + size + ": " + info.messageCount());
            assertTrue(info.promptChars() > size / 2, "definitions and calls are prompt text: " + info.promptChars());
        }
    }

    @Test
    void bodiesAreDeterministic() {
        assertArrayEquals(ChatBodies.chat(16 << 10, 7), ChatBodies.chat(16 << 10, 7));
    }

    @Test
    void sizesParseWithUnits() {
        assertEquals(1024, PluginCostBench.parseSize("1k"));
        assertEquals(4 << 20, PluginCostBench.parseSize("4m"));
        assertEquals("256 KiB", PluginCostBench.sizeName(256 << 10));
        assertEquals("4 MiB", PluginCostBench.sizeName(4 << 20));
    }
}
