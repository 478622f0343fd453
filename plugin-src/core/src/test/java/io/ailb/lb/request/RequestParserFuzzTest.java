package io.ailb.lb.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ailb.lb.request.RequestParser.BlockBoundaries;
import java.util.Arrays;
import java.util.List;

/**
 * Any request body (docs/reliability.md, "Fuzzing"): {@link RequestParser#parse} returns, never throws, and what it
 * returns keeps its bounds: at most {@link RequestParser#MAX_PREFIX_BLOCKS} blocks, one token count per block, counts
 * that never go down. Both block modes and the scalar-only read agree on what the body is.
 */
final class RequestParserFuzzTest {
    private static final String JSON = "application/json";

    @FuzzTest(maxDuration = "60s")
    void anyBodyGivesABoundedRequestInfo(byte[] body) {
        RequestInfo afterUser = RequestParser.parse(JSON, null, body, body.length, true, BlockBoundaries.AFTER_USER);
        RequestInfo everyMessage =
                RequestParser.parse(JSON, null, body, body.length, true, BlockBoundaries.EVERY_MESSAGE_BUT_ASSISTANT);
        RequestInfo scalarsOnly = RequestParser.parse(JSON, null, body, body.length, false);
        for (RequestInfo info : List.of(afterUser, everyMessage, scalarsOnly)) {
            assertEquals(body.length > 0, info.hasBody());
            assertEquals(body.length, info.bodyBytes());
            checkBlocks(info);
            assertSameScalars(afterUser, info);
        }
        assertTrue(scalarsOnly.prefixHashes().isEmpty(), "no prefix read when the prompt is skipped");
        assertEquals(afterUser.messageCount(), everyMessage.messageCount());
        assertEquals(afterUser.promptChars(), everyMessage.promptChars(), "the same text, cut differently");

        // Bytes past the length are not the body's: the shell's buffer may be larger than the body.
        byte[] padded = Arrays.copyOf(body, body.length + 8);
        Arrays.fill(padded, body.length, padded.length, (byte) ']');
        RequestInfo again = RequestParser.parse(JSON, null, padded, body.length, true, BlockBoundaries.AFTER_USER);
        assertSameScalars(afterUser, again);
        assertEquals(afterUser.prefixHashes(), again.prefixHashes());
        assertEquals(afterUser.prefixTokens(), again.prefixTokens());
    }

    @FuzzTest(maxDuration = "60s")
    void anyHeadersAndBodyGiveARequestInfo(FuzzedDataProvider data) {
        String contentType = data.consumeBoolean() ? null : data.consumeString(40);
        String contentEncoding = data.consumeBoolean() ? null : data.consumeString(20);
        byte[] body = data.consumeRemainingAsBytes();
        RequestInfo info = RequestParser.parse(contentType, contentEncoding, body, body.length);
        checkBlocks(info);
        if (body.length > 0 && !RequestParser.inspectable(contentType, contentEncoding)) {
            assertFalse(info.parsed(), "a binary or encoded body is never read");
            assertEquals(body.length, info.bodyBytes());
        }
    }

    private static void checkBlocks(RequestInfo info) {
        List<String> hashes = info.prefixHashes();
        List<Integer> tokens = info.prefixTokens();
        assertTrue(hashes.size() <= RequestParser.MAX_PREFIX_BLOCKS, hashes.size() + " blocks");
        assertEquals(hashes.size(), tokens.size());
        int previous = 0;
        for (int i = 0; i < hashes.size(); i++) {
            assertTrue(hashes.get(i).matches("[0-9a-f]{32}"), hashes.get(i));
            assertTrue(tokens.get(i) >= previous, "token counts never go down: " + tokens);
            previous = tokens.get(i);
        }
        if (!info.parsed()) {
            assertTrue(hashes.isEmpty());
            assertEquals(null, info.model());
        }
    }

    private static void assertSameScalars(RequestInfo expected, RequestInfo actual) {
        assertEquals(expected.parsed(), actual.parsed(), "valid in one read, invalid in another");
        assertEquals(expected.model(), actual.model());
        assertEquals(expected.maxTokens(), actual.maxTokens());
        assertEquals(expected.stream(), actual.stream());
    }
}
