package io.ailb.lb.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RequestInfo#prefixTokens()}: cumulative estimated prompt tokens at the end of each prefix block. */
class PrefixTokensTest {
    private static RequestInfo parse(String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return RequestParser.parse("application/json", null, body, body.length);
    }

    private static String msg(String role, String content) {
        return "{\"role\":\"" + role + "\",\"content\":\"" + content + "\"}";
    }

    private static String chat(String... messages) {
        return "{\"model\":\"m\",\"messages\":[" + String.join(",", messages) + "]}";
    }

    private static String text(int chars) {
        StringBuilder out = new StringBuilder(chars);
        for (int i = 0; i < chars; i++) {
            out.append((char) ('a' + i % 26));
        }
        return out.toString();
    }

    @Test
    void eachBlockCarriesTheTokensOfThePromptUpToItsEnd() {
        // (system 40 + user 8) | (assistant 20 + user 13): 48 → 12 tokens, 81 → ceil(81/4) = 21.
        RequestInfo info = parse(
                chat(msg("system", text(40)), msg("user", text(8)), msg("assistant", text(20)), msg("user", text(13))));
        assertEquals(2, info.prefixHashes().size());
        assertEquals(Arrays.asList(12, 21), info.prefixTokens());
        assertEquals(info.estimatedPromptTokens(), (int) info.prefixTokens().get(1));
    }

    @Test
    void rolesMarkupAndImagesAddNoTokens() {
        RequestInfo info = parse(chat(
                msg("user", text(4)),
                "{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:xyz\"}},"
                        + "{\"type\":\"text\",\"text\":\"" + text(8) + "\"}]}"));
        assertEquals(Arrays.asList(1, 3), info.prefixTokens());
    }

    @Test
    void codePointsCountNotBytes() {
        // 8 CJK characters (24 UTF-8 bytes) and 1 emoji (4 bytes, one code point) → 9 code points → 3 tokens.
        RequestInfo info = parse(chat(msg("user", "你好你好你好你好\uD83D\uDE00")));
        assertEquals(9, info.promptChars());
        assertEquals(Collections.singletonList(3), info.prefixTokens());
    }

    @Test
    void escapedTextCountsItsDecodedCharacters() {
        RequestInfo info = parse(chat(msg("user", "a\\nb\\u00e9c")));
        assertEquals(5, info.promptChars());
        assertEquals(Collections.singletonList(2), info.prefixTokens());
    }

    @Test
    void theSamePrefixGivesTheSameTokensWhateverFollows() {
        RequestInfo turn1 = parse(chat(msg("system", text(100)), msg("user", text(30))));
        RequestInfo turn2 = parse(chat(
                msg("system", text(100)), msg("user", text(30)), msg("assistant", text(500)), msg("user", text(7))));
        assertEquals(turn1.prefixHashes().get(0), turn2.prefixHashes().get(0));
        assertEquals(turn1.prefixTokens().get(0), turn2.prefixTokens().get(0));
        assertEquals(Arrays.asList(33, 160), turn2.prefixTokens());
    }

    @Test
    void completionPromptsCountTokensPerChunk() {
        // 5000 ASCII characters: chunks of 2048 bytes; the first one starts with the piece's 1-byte tag.
        RequestInfo info = parse("{\"prompt\":\"" + text(5000) + "\"}");
        List<Integer> tokens = info.prefixTokens();
        assertEquals(3, tokens.size());
        assertEquals(Arrays.asList((2047 + 3) / 4, (2047 + 2048 + 3) / 4, 1250), tokens);
    }

    @Test
    void requestsWithoutBlocksHaveNoTokens() {
        assertEquals(Collections.emptyList(), RequestInfo.noBody().prefixTokens());
        assertEquals(Collections.emptyList(), RequestInfo.unparsed(100).prefixTokens());
        assertEquals(Collections.emptyList(), parse("{\"model\":\"m\"}").prefixTokens());
    }

    @Test
    void tokensNeverDecreaseAndMatchTheHashes() {
        RequestInfo info =
                parse(chat(msg("user", ""), msg("assistant", text(9)), msg("user", ""), msg("user", text(3))));
        List<Integer> tokens = info.prefixTokens();
        assertEquals(info.prefixHashes().size(), tokens.size());
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) >= tokens.get(i - 1), tokens.toString());
        }
        assertEquals(Arrays.asList(0, 3, 3), tokens);
    }

    @Test
    void theOlderConstructorSpreadsTheTotalOverTheBlocks() {
        RequestInfo info = new RequestInfo(true, true, "m", Arrays.asList("h1", "h2", "h3"), 40, -1, false, 100, 3);
        assertEquals(Arrays.asList(3, 6, 10), info.prefixTokens());
        assertThrows(
                IllegalArgumentException.class,
                () -> new RequestInfo(
                        true, true, "m", Arrays.asList("h1"), Arrays.asList(1, 2), null, 4, -1, false, 10, 1));
    }

    private static RequestInfo parseCacheAware(String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return RequestParser.parse(
                "application/json",
                null,
                body,
                body.length,
                true,
                RequestParser.BlockBoundaries.EVERY_MESSAGE_BUT_ASSISTANT);
    }

    @Test
    void theAnswerToABlockCountsForItsBlock() {
        // (system 40) | (user 8) | (assistant 20 + user 13): the engine that answered the prompt ending at the user
        // block holds 48 + 20 = 68 characters, 17 tokens, of this one.
        RequestInfo info = parseCacheAware(
                chat(msg("system", text(40)), msg("user", text(8)), msg("assistant", text(20)), msg("user", text(13))));
        assertEquals(Arrays.asList(10, 12, 21), info.prefixTokens());
        assertEquals(Arrays.asList(10, 17, 21), info.answeredTokens());
    }

    @Test
    void consecutiveAnswersAllCountAndALongAnswerCountsWholeAcrossItsChunks() {
        int chunkChars = RequestParser.MESSAGE_CHUNK_BYTES;
        RequestInfo info = parseCacheAware(chat(
                msg("user", text(8)),
                msg("assistant", text(chunkChars + 100)),
                msg("assistant", text(12)),
                msg("user", text(4))));
        // (user) | (assistant chunk) | (rest of the assistant messages + user)
        assertEquals(3, info.prefixHashes().size());
        int answered = (8 + chunkChars + 100 + 12 + 3) / 4;
        assertEquals(answered, (int) info.answeredTokens().get(0));
        assertEquals(info.prefixTokens().subList(1, 3), info.answeredTokens().subList(1, 3));
    }

    @Test
    void noAnswerWithoutAPromptBeforeItNorOutsideCacheAwareBlocks() {
        RequestInfo opening = parseCacheAware(chat(msg("assistant", text(40)), msg("user", text(8))));
        assertEquals(opening.prefixTokens(), opening.answeredTokens());
        RequestInfo tool = parseCacheAware(chat(msg("user", text(8)), msg("tool", text(40)), msg("user", text(8))));
        assertEquals(tool.prefixTokens(), tool.answeredTokens());
        RequestInfo afterUser = parse(chat(msg("user", text(8)), msg("assistant", text(40)), msg("user", text(8))));
        assertEquals(afterUser.prefixTokens(), afterUser.answeredTokens());
    }
}
