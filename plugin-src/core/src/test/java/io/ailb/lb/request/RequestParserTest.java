package io.ailb.lb.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestParserTest {
    private static final String JSON = "application/json";

    private static RequestInfo parse(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return RequestParser.parse(JSON, null, bytes, bytes.length);
    }

    private static String chat(String... messages) {
        return "{\"model\":\"m\",\"messages\":[" + String.join(",", messages) + "]}";
    }

    private static String msg(String role, String content) {
        return "{\"role\":\"" + role + "\",\"content\":\"" + content + "\"}";
    }

    private static List<String> hashes(String body) {
        return parse(body).prefixHashes();
    }

    /** Blocks as cache_aware cuts them: after every non-assistant message and every chunk inside one. */
    private static RequestInfo parseByMessage(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return RequestParser.parse(
                JSON, null, bytes, bytes.length, true, RequestParser.BlockBoundaries.EVERY_MESSAGE_BUT_ASSISTANT);
    }

    private static List<String> hashesByMessage(String body) {
        return parseByMessage(body).prefixHashes();
    }

    @Test
    void chatBodiesYieldModelStreamTokensAndCounts() {
        RequestInfo info = parse("{\"model\":\"qwen\",\"stream\":true,\"max_tokens\":256,\"messages\":["
                + msg("system", "be brief") + "," + msg("user", "h\u00e9llo") + "]}");
        assertTrue(info.hasBody());
        assertTrue(info.parsed());
        assertEquals("qwen", info.model());
        assertTrue(info.stream());
        assertEquals(256, info.maxTokens());
        assertEquals(2, info.messageCount());
        assertEquals(13, info.promptChars());
        assertEquals(4, info.estimatedPromptTokens());
        assertEquals(1, info.prefixHashes().size());
        assertEquals(32, info.prefixHashes().get(0).length());
    }

    @Test
    void withoutThePromptOnlyTheScalarFieldsAreReadAndTheBodyIsStillChecked() {
        String body = "{\"messages\":[" + msg("system", "be brief") + "," + msg("user", "h\u00e9llo")
                + "],\"model\":\"qwen\",\"stream\":true,\"max_tokens\":256}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);

        RequestInfo info = RequestParser.parse(JSON, null, bytes, bytes.length, false);

        assertTrue(info.parsed());
        assertEquals("qwen", info.model(), "found after the skipped messages");
        assertTrue(info.stream());
        assertEquals(256, info.maxTokens());
        assertEquals(List.of(), info.prefixHashes());
        assertEquals(0, info.promptChars());
        assertEquals(1, parse(body).prefixHashes().size(), "the full parse of the same body hashes it");
        byte[] broken =
                "{\"messages\":[{\"role\":\"user\",\"content\":\"x}],\"model\":\"q\"}".getBytes(StandardCharsets.UTF_8);
        assertFalse(
                RequestParser.parse(JSON, null, broken, broken.length, false).parsed());
    }

    @Test
    void maxCompletionTokensIsUsedWhenMaxTokensIsAbsent() {
        assertEquals(99, parse("{\"max_completion_tokens\":99,\"messages\":[]}").maxTokens());
        assertEquals(5, parse("{\"max_completion_tokens\":99,\"max_tokens\":5}").maxTokens());
        assertEquals(-1, parse("{\"max_tokens\":\"5\"}").maxTokens());
    }

    @Test
    void blocksCloseAfterEachUserMessageAndAfterTheLast() {
        assertEquals(
                2,
                hashes(chat(msg("system", "s"), msg("user", "u1"), msg("assistant", "a"), msg("user", "u2")))
                        .size());
        assertEquals(
                3,
                hashes(chat(msg("user", "u1"), msg("assistant", "a"), msg("user", "u2"), msg("assistant", "partial")))
                        .size());
    }

    @Test
    void aGrowingConversationKeepsItsEarlierHashes() {
        List<String> turn1 = hashes(chat(msg("system", "s"), msg("user", "u1")));
        List<String> turn2 =
                hashes(chat(msg("system", "s"), msg("user", "u1"), msg("assistant", "a1"), msg("user", "u2")));
        List<String> turn3 = hashes(chat(
                msg("system", "s"),
                msg("user", "u1"),
                msg("assistant", "a1"),
                msg("user", "u2"),
                msg("assistant", "a2"),
                msg("user", "u3")));
        assertEquals(turn1, turn2.subList(0, 1));
        assertEquals(turn2, turn3.subList(0, 2));
    }

    @Test
    void swappingBlocksChangesEveryHashFromTheSwap() {
        List<String> ab = hashes(chat(msg("user", "A"), msg("user", "B")));
        List<String> ba = hashes(chat(msg("user", "B"), msg("user", "A")));
        assertNotEquals(ab.get(0), ba.get(0));
        assertNotEquals(ab.get(1), ba.get(1));
    }

    @Test
    void repeatedIdenticalBlocksDoNotCancel() {
        List<String> aaa = hashes(chat(msg("user", "A"), msg("user", "A"), msg("user", "A")));
        assertEquals(3, aaa.stream().distinct().count());
        assertNotEquals("0".repeat(32), aaa.get(1));
    }

    @Test
    void roleAndContentBoundariesAreUnambiguous() {
        assertNotEquals(hashes(chat(msg("user:", "x"))), hashes(chat(msg("user", ":x"))));
        assertNotEquals(
                hashes(chat("{\"role\":\"user\",\"content\":[\"a\",\"bc\"]}")),
                hashes(chat("{\"role\":\"user\",\"content\":[\"ab\",\"c\"]}")));
    }

    @Test
    void memberOrderAndEscapingDoNotChangeTheHash() {
        assertEquals(
                hashes(chat(msg("user", "A\\n"))),
                hashes(chat("{\"content\":\"\\u0041\\n\",\"name\":\"n\",\"role\":\"user\"}")));
    }

    @Test
    void contentBeforeRoleAndRepeatedMembersHashAsTheUsualOrderWithTheLastMemberWinning() {
        List<String> usual = hashes(chat(msg("system", "s"), msg("user", "u"), msg("assistant", "a")));
        assertEquals(
                usual,
                hashes(chat(
                        "{\"content\":\"s\",\"role\":\"system\"}",
                        msg("user", "u"),
                        "{\"content\":[\"a\"],\"role\":\"assistant\"}")));
        assertEquals(
                usual,
                hashes(chat(
                        msg("system", "s"),
                        "{\"role\":\"assistant\",\"content\":\"x\",\"role\":\"user\",\"content\":\"u\"}",
                        msg("assistant", "a"))));
        assertEquals(
                usual,
                hashes(chat(
                        msg("system", "s"),
                        "{\"role\":7,\"content\":\"u\",\"role\":\"user\"}",
                        msg("assistant", "a"))));
        assertNotEquals(
                usual,
                hashes(chat(
                        msg("system", "s"),
                        "{\"role\":\"user\",\"content\":\"u\",\"role\":7}",
                        msg("assistant", "a"))));
    }

    @Test
    void byMessageASharedSystemPromptIsABlockOfItsOwnAndAssistantTurnsJoinTheNextMessage() {
        List<String> a =
                hashesByMessage(chat(msg("system", "s"), msg("user", "u1"), msg("assistant", "a"), msg("user", "u2")));
        List<String> b = hashesByMessage(chat(msg("system", "s"), msg("user", "other")));
        assertEquals(3, a.size(), "(system), (user), (assistant+user)");
        assertEquals(a.get(0), b.get(0));
        assertNotEquals(a.get(1), b.get(1));
        assertNotEquals(hashes(chat(msg("system", "s"), msg("user", "u1"))).get(0), a.get(0));
        assertEquals(
                3,
                hashesByMessage(chat(msg("system", "s"), msg("tool", "t"), msg("assistant", "a"), msg("user", "u")))
                        .size(),
                "(system), (tool), (assistant+user)");
    }

    @Test
    void byMessageLongMessagesSharingTheirStartShareItsFullChunks() {
        int chunk = RequestParser.MESSAGE_CHUNK_BYTES;
        String documents = "d".repeat(chunk * 2 + 100);
        RequestInfo a = parseByMessage(chat(msg("system", "s"), msg("user", documents + " first question")));
        List<String> b = hashesByMessage(chat(msg("system", "s"), msg("user", documents + " second question")));
        // (system), then the user message: two full chunks and the rest.
        assertEquals(4, a.prefixHashes().size());
        assertEquals(a.prefixHashes().subList(0, 3), b.subList(0, 3));
        assertNotEquals(a.prefixHashes().get(3), b.get(3));
        List<Integer> tokens = a.prefixTokens();
        assertTrue(tokens.get(1) > tokens.get(0) && tokens.get(2) > tokens.get(1) && tokens.get(3) > tokens.get(2));
        assertEquals(a.estimatedPromptTokens(), (int) tokens.get(3));
        assertEquals(
                1, hashesByMessage(chat(msg("user", "d".repeat(chunk - 100)))).size());
    }

    @Test
    void byMessageAMessageReadAgainInTheUsualOrderDropsTheChunksItClosedOnTheFirstRead() {
        String longText = "x".repeat(RequestParser.MESSAGE_CHUNK_BYTES * 3);
        List<String> usual = hashesByMessage(chat(msg("system", "s"), msg("user", longText), msg("user", "q")));
        assertEquals(
                usual,
                hashesByMessage(chat(
                        msg("system", "s"),
                        "{\"role\":\"user\",\"content\":\"" + longText + "\",\"role\":\"user\"}",
                        msg("user", "q"))));
        assertEquals(
                usual,
                hashesByMessage(chat(
                        msg("system", "s"),
                        "{\"role\":\"user\",\"content\":\"" + longText + longText + "\",\"content\":\"" + longText
                                + "\"}",
                        msg("user", "q"))));
    }

    @Test
    void blocksBeyondTheCapFoldIntoTheLastBlock() {
        int cap = RequestParser.MAX_PREFIX_BLOCKS;
        StringBuilder turns = new StringBuilder();
        for (int i = 0; i < cap + 50; i++) {
            turns.append(i == 0 ? "" : ",").append(msg("user", "turn " + i));
        }
        List<String> long1 = hashes("{\"messages\":[" + turns + "]}");
        List<String> long2 = hashes("{\"messages\":[" + turns + "," + msg("user", "one more") + "]}");
        assertEquals(cap, long1.size());
        assertEquals(cap, long2.size());
        assertEquals(long1.subList(0, cap - 1), long2.subList(0, cap - 1), "the first cap - 1 blocks are shared");
        assertNotEquals(long1.get(cap - 1), long2.get(cap - 1), "the last block covers everything after them");
        RequestInfo info = parse("{\"messages\":[" + turns + "]}");
        assertEquals(info.estimatedPromptTokens(), (int) info.prefixTokens().get(cap - 1));
        assertEquals(cap + 50, info.messageCount());
    }

    private static final String WEATHER_TOOL =
            "[{\"type\":\"function\",\"function\":{\"name\":\"weather\",\"parameters\":{\"type\":\"object\"}}}]";
    private static final String CLOCK_TOOL =
            "[{\"type\":\"function\",\"function\":{\"name\":\"clock\",\"parameters\":{\"type\":\"object\"}}}]";

    private static String chatWithTools(String toolsMember, boolean toolsFirst, String... messages) {
        String list = "\"messages\":[" + String.join(",", messages) + "]";
        return toolsFirst ? "{" + toolsMember + "," + list + "}" : "{" + list + "," + toolsMember + "}";
    }

    @Test
    void toolDefinitionsAreABlockAfterTheSystemPromptWhereverTheMemberIs() {
        String[] conversation = {msg("system", "s"), msg("user", "u1"), msg("assistant", "a"), msg("user", "u2")};
        RequestInfo none = parseByMessage(chat(conversation));
        RequestInfo after = parseByMessage(chatWithTools("\"tools\":" + WEATHER_TOOL, false, conversation));
        RequestInfo before = parseByMessage(chatWithTools("\"tools\":" + WEATHER_TOOL, true, conversation));
        RequestInfo other = parseByMessage(chatWithTools("\"tools\":" + CLOCK_TOOL, false, conversation));
        assertEquals(after.prefixHashes(), before.prefixHashes(), "the member's place in the body");
        assertEquals(3, none.prefixHashes().size(), "(system), (user), (assistant+user)");
        assertEquals(4, after.prefixHashes().size(), "(system), (tools), (user), (assistant+user)");
        assertEquals(none.prefixHashes().get(0), after.prefixHashes().get(0));
        assertEquals(other.prefixHashes().get(0), after.prefixHashes().get(0));
        for (int i = 1; i < 4; i++) {
            assertNotEquals(other.prefixHashes().get(i), after.prefixHashes().get(i), "block " + i);
            assertNotEquals(none.prefixHashes().get(i - 1), after.prefixHashes().get(i), "block " + i);
        }
        assertEquals(none.promptChars() + WEATHER_TOOL.length(), after.promptChars());
        assertEquals(
                ("s".length() + WEATHER_TOOL.length() + 3) / 4,
                (int) after.prefixTokens().get(1),
                "the definitions are prompt text of their block");
        assertEquals(
                after.prefixHashes().subList(0, 2),
                hashesByMessage(chatWithTools("\"tools\":" + WEATHER_TOOL, false, msg("system", "s"), msg("user", "x")))
                        .subList(0, 2),
                "another conversation with the same instructions and tools shares both blocks");
        assertEquals(
                hashesByMessage(chatWithTools(
                                "\"tools\":" + WEATHER_TOOL, true, msg("developer", "s"), msg("user", "q")))
                        .size(),
                3,
                "(developer), (tools), (user)");
    }

    /**
     * Definitions after the messages are hashed by reading the messages again only up to where the first reading's
     * blocks can be taken over: for any conversation (roles, member orders, long messages cut in chunks, answers, tool
     * calls, the block cap) the blocks, their token counts and the answers are those of the definitions sent first.
     */
    @Test
    void toolDefinitionsAfterTheMessagesGiveTheBlocksOfDefinitionsSentFirstForAnyConversation() {
        java.util.Random random = new java.util.Random(7);
        String[] roles = {"system", "developer", "user", "assistant", "tool", null};
        for (int round = 0; round < 1500; round++) {
            int count = random.nextInt(10) == 0 ? 250 + random.nextInt(12) : random.nextInt(24);
            String[] messages = new String[count];
            for (int i = 0; i < count; i++) {
                String role = i == 0 && random.nextBoolean() ? "system" : roles[random.nextInt(roles.length)];
                String text = random.nextInt(12) == 0
                        ? "x".repeat(3000 + random.nextInt(7000))
                        : "m" + random.nextInt(5) + "w".repeat(random.nextInt(80));
                String content = random.nextInt(5) == 0
                        ? "[{\"type\":\"text\",\"text\":\"" + text + "\"},{\"type\":\"image_url\",\"u\":1}]"
                        : "\"" + text + "\"";
                String roleMember = role == null ? null : "\"role\":\"" + role + "\"";
                String contentMember = "\"content\":" + content;
                String calls = random.nextInt(8) == 0 ? ",\"tool_calls\":[{\"id\":\"c" + i + "\"}]" : "";
                messages[i] = roleMember == null
                        ? "{" + contentMember + calls + "}"
                        : random.nextInt(6) == 0
                                ? "{" + contentMember + "," + roleMember + calls + "}"
                                : "{" + roleMember + "," + contentMember + calls + "}";
            }
            String definitions = random.nextInt(4) == 0
                    ? "[{\"type\":\"function\",\"d\":\"" + "t".repeat(4000 + random.nextInt(9000)) + "\"}]"
                    : WEATHER_TOOL;
            String member = (random.nextInt(5) == 0 ? "\"functions\":" : "\"tools\":") + definitions;
            String first = chatWithTools(member, true, messages);
            String after = chatWithTools(member, false, messages);
            for (RequestParser.BlockBoundaries mode : RequestParser.BlockBoundaries.values()) {
                RequestInfo expected = parseIn(mode, first);
                RequestInfo actual = parseIn(mode, after);
                String where = "round " + round + ", " + mode + ": " + after;
                assertEquals(expected.prefixHashes(), actual.prefixHashes(), where);
                assertEquals(expected.prefixTokens(), actual.prefixTokens(), where);
                assertEquals(expected.answeredTokens(), actual.answeredTokens(), where);
                assertEquals(expected.promptChars(), actual.promptChars(), where);
                assertEquals(expected.messageCount(), actual.messageCount(), where);
            }
        }
    }

    @Test
    void definitionsAfterTheMessagesThatReachTheBlockCapGiveTheBlocksOfDefinitionsSentFirst() {
        // System, users and a last answer: one block short of the cap without the definitions, at the cap with them,
        // where the answer no longer follows a block of its own.
        int users = RequestParser.MAX_PREFIX_BLOCKS - 3;
        String[] messages = new String[users + 2];
        messages[0] = msg("system", "s");
        for (int i = 1; i <= users; i++) {
            messages[i] = msg("user", "u" + i);
        }
        messages[users + 1] = msg("assistant", "a".repeat(400));
        RequestInfo first = parseByMessage(chatWithTools("\"tools\":" + WEATHER_TOOL, true, messages));
        RequestInfo after = parseByMessage(chatWithTools("\"tools\":" + WEATHER_TOOL, false, messages));
        assertEquals(RequestParser.MAX_PREFIX_BLOCKS, first.prefixHashes().size());
        assertEquals(first.prefixHashes(), after.prefixHashes());
        assertEquals(first.answeredTokens(), after.answeredTokens());
    }

    private static RequestInfo parseIn(RequestParser.BlockBoundaries mode, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return RequestParser.parse(JSON, null, bytes, bytes.length, true, mode);
    }

    @Test
    void withoutASystemPromptTheDefinitionsComeFirstAndConversationsWithTheSameToolsShareThem() {
        List<String> a = hashesByMessage(chatWithTools("\"tools\":" + WEATHER_TOOL, false, msg("user", "task one")));
        List<String> b = hashesByMessage(chatWithTools("\"tools\":" + WEATHER_TOOL, false, msg("user", "task two")));
        List<String> c = hashesByMessage(chatWithTools("\"tools\":" + CLOCK_TOOL, false, msg("user", "task one")));
        assertEquals(2, a.size(), "(tools), (user)");
        assertEquals(a.get(0), b.get(0));
        assertNotEquals(a.get(1), b.get(1));
        assertNotEquals(a.get(0), c.get(0));
        List<String> afterUser = hashes(chatWithTools("\"tools\":" + WEATHER_TOOL, false, msg("user", "task one")));
        assertEquals(1, afterUser.size(), "by user turn the definitions join the first block");
        assertNotEquals(hashes(chat(msg("user", "task one"))), afterUser);
    }

    @Test
    void nullOrEmptyToolDefinitionsAreNoneAndLegacyFunctionsCountWithoutTools() {
        List<String> none = hashes(chat(msg("system", "s"), msg("user", "u")));
        assertEquals(none, hashes(chatWithTools("\"tools\":null", false, msg("system", "s"), msg("user", "u"))));
        assertEquals(none, hashes(chatWithTools("\"tools\":[]", true, msg("system", "s"), msg("user", "u"))));
        List<String> functions =
                hashes(chatWithTools("\"functions\":" + WEATHER_TOOL, false, msg("system", "s"), msg("user", "u")));
        assertNotEquals(none, functions);
        assertEquals(
                hashes(chatWithTools("\"tools\":" + CLOCK_TOOL, false, msg("system", "s"), msg("user", "u"))),
                hashes(chatWithTools(
                        "\"tools\":" + CLOCK_TOOL + ",\"functions\":" + WEATHER_TOOL,
                        false,
                        msg("system", "s"),
                        msg("user", "u"))),
                "tools wins over functions");
    }

    @Test
    void anAssistantsToolCallsArePromptTextOfItsBlockWhateverTheMemberOrder() {
        String weatherCall = "[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"weather\","
                + "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]";
        String clockCall = weatherCall.replace("weather", "clock");
        String callsAfter = "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":" + weatherCall + "}";
        String callsBefore = "{\"tool_calls\":" + weatherCall + ",\"role\":\"assistant\",\"content\":null}";
        String otherCall = "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":" + clockCall + "}";
        String noCall = "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":null}";
        String result = "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"sunny\"}";
        RequestInfo usual = parseByMessage(chat(msg("system", "s"), msg("user", "u"), callsAfter, result));
        RequestInfo reordered = parseByMessage(chat(msg("system", "s"), msg("user", "u"), callsBefore, result));
        RequestInfo other = parseByMessage(chat(msg("system", "s"), msg("user", "u"), otherCall, result));
        RequestInfo without = parseByMessage(chat(msg("system", "s"), msg("user", "u"), noCall, result));
        assertEquals(usual.prefixHashes(), reordered.prefixHashes());
        assertEquals(3, usual.prefixHashes().size(), "(system), (user), (assistant + tool result)");
        assertEquals(usual.prefixHashes().subList(0, 2), other.prefixHashes().subList(0, 2));
        assertNotEquals(usual.prefixHashes().get(2), other.prefixHashes().get(2));
        assertNotEquals(usual.prefixHashes().get(2), without.prefixHashes().get(2));
        assertEquals(without.promptChars() + weatherCall.length(), usual.promptChars());
        assertEquals(
                hashesByMessage(chat(
                        msg("system", "s"), msg("user", "u"), "{\"role\":\"assistant\",\"content\":null}", result)),
                without.prefixHashes(),
                "null tool calls are none");
    }

    @Test
    void stringContentEqualsASingleTextPart() {
        assertEquals(
                hashes(chat(msg("user", "hi"))),
                hashes(chat("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}")));
    }

    @Test
    void textPartsAreJoinedAndCountedAsPromptText() {
        RequestInfo info = parse(chat("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"ab\"},"
                + "{\"text\":\"cd\",\"type\":\"text\"}]}"));
        assertEquals(4, info.promptChars());
        assertEquals(1, info.prefixHashes().size());
    }

    @Test
    void theSameImageGivesTheSameBlockAndAnotherImageDoesNot() {
        String image1 = "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/1.png\"}}";
        String image2 = "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/2.png\"}}";
        String text = "{\"type\":\"text\",\"text\":\"what is this?\"}";
        List<String> first = hashes(chat("{\"role\":\"user\",\"content\":[" + text + "," + image1 + "]}"));
        List<String> again = hashes(chat("{\"role\":\"user\",\"content\":[" + text + "," + image1 + "]}"));
        List<String> other = hashes(chat("{\"role\":\"user\",\"content\":[" + text + "," + image2 + "]}"));
        assertEquals(first, again);
        assertNotEquals(first, other);
    }

    @Test
    void messagesWithoutRoleOrContentCountAsEmptyRoleAndText() {
        RequestInfo info = parse(chat("{\"content\":\"x\"}", "{\"role\":\"user\"}", "7"));
        assertTrue(info.parsed());
        assertEquals(3, info.messageCount());
        assertEquals(2, info.prefixHashes().size());
        assertEquals(
                hashes(chat("{\"content\":\"x\"}", "{\"role\":\"user\",\"content\":null}", "{}")), info.prefixHashes());
    }

    @Test
    void aShortCompletionPromptIsOneBlock() {
        RequestInfo info = parse("{\"model\":\"m\",\"prompt\":\"once upon a time\"}");
        assertEquals(1, info.prefixHashes().size());
        assertEquals(1, info.messageCount());
        assertEquals(16, info.promptChars());
    }

    @Test
    void longCompletionPromptsShareTheHashesOfTheirCommonFullChunks() {
        String shared = "x".repeat(5000);
        List<String> a = hashes("{\"prompt\":\"" + shared + "tail one\"}");
        List<String> b = hashes("{\"prompt\":\"" + shared + "another tail\"}");
        assertEquals(3, a.size());
        assertEquals(a.subList(0, 2), b.subList(0, 2));
        assertNotEquals(a.get(2), b.get(2));
    }

    @Test
    void aCompletionPromptLongerThanTheCapFoldsIntoTheLastChunk() {
        int cap = RequestParser.MAX_PREFIX_BLOCKS;
        String shared = "x".repeat(RequestParser.PROMPT_CHUNK_BYTES * (cap + 3));
        RequestInfo a = parse("{\"prompt\":\"" + shared + "a\"}");
        List<String> b = hashes("{\"prompt\":\"" + shared + "b\"}");
        assertEquals(cap, a.prefixHashes().size());
        assertEquals(a.prefixHashes().subList(0, cap - 1), b.subList(0, cap - 1));
        assertNotEquals(a.prefixHashes().get(cap - 1), b.get(cap - 1));
        assertEquals(shared.length() + 1, a.promptChars());
    }

    @Test
    void promptArraysKeepTheirElementBoundaries() {
        RequestInfo split = parse("{\"prompt\":[\"ab\",\"c\"]}");
        assertEquals(2, split.messageCount());
        assertNotEquals(split.prefixHashes(), hashes("{\"prompt\":[\"a\",\"bc\"]}"));
    }

    @Test
    void aBodyWithoutPromptIsParsedWithNoHashes() {
        RequestInfo info = parse("{\"model\":\"m\",\"input\":\"embed me\"}");
        assertTrue(info.parsed());
        assertEquals("m", info.model());
        assertTrue(info.prefixHashes().isEmpty());
    }

    @Test
    void binaryContentTypesAreNotParsed() {
        byte[] body = chat(msg("user", "x")).getBytes(StandardCharsets.UTF_8);
        assertFalse(
                RequestParser.parse("application/grpc", null, body, body.length).parsed());
        assertFalse(RequestParser.parse("application/octet-stream", null, body, body.length)
                .parsed());
    }

    @Test
    void encodedBodiesAreNotParsedExceptIdentity() {
        byte[] body = chat(msg("user", "x")).getBytes(StandardCharsets.UTF_8);
        RequestInfo gzip = RequestParser.parse(JSON, "gzip", body, body.length);
        assertFalse(gzip.parsed());
        assertTrue(gzip.hasBody());
        assertEquals(body.length, gzip.bodyBytes());
        assertTrue(RequestParser.parse(JSON, "identity", body, body.length).parsed());
    }

    @Test
    void malformedJsonIsNotParsedAndDoesNotThrow() {
        for (String bad : new String[] {"{\"messages\":[", "not json", "[1,2]", "{\"a\":1} trailing", "\"s\""}) {
            RequestInfo info = parse(bad);
            assertFalse(info.parsed(), bad);
            assertTrue(info.prefixHashes().isEmpty());
            assertNull(info.model());
        }
    }

    @Test
    void anEmptyBodyHasNoBody() {
        RequestInfo info = RequestParser.parse(JSON, null, new byte[0], 0);
        assertFalse(info.hasBody());
        assertFalse(info.parsed());
    }

    @Test
    void onlyTheGivenLengthOfTheBufferIsRead() {
        byte[] bytes = (chat(msg("user", "x")) + "garbage").getBytes(StandardCharsets.UTF_8);
        assertTrue(RequestParser.parse(JSON, null, bytes, bytes.length - 7).parsed());
    }

    @Test
    void aFourMebibyteMessageIsParsedWithBoundedAllocation() {
        byte[] body = chat(msg("system", "s"), msg("user", "y".repeat(4 << 20))).getBytes(StandardCharsets.UTF_8);
        long allocated = allocatedWhileParsing(body);
        assertTrue(allocated < 256 * 1024, "allocated " + allocated + " bytes");
    }

    @Test
    void fourMebibytesOfSmallMessagesAreParsedWithBoundedAllocation() {
        StringBuilder sb = new StringBuilder("{\"messages\":[");
        while (sb.length() < (4 << 20)) {
            sb.append(msg("assistant", "some earlier answer with \\\"escapes\\\" and caf\u00e9"))
                    .append(',');
        }
        sb.append(msg("user", "last")).append("]}");
        long allocated = allocatedWhileParsing(sb.toString().getBytes(StandardCharsets.UTF_8));
        assertTrue(allocated < 256 * 1024, "allocated " + allocated + " bytes");
    }

    private static long allocatedWhileParsing(byte[] body) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long threadId = Thread.currentThread().getId();
        RequestParser.parse(JSON, null, body, body.length);
        long before = mx.getThreadAllocatedBytes(threadId);
        RequestInfo info = RequestParser.parse(JSON, null, body, body.length);
        long allocated = mx.getThreadAllocatedBytes(threadId) - before;
        assertTrue(info.parsed());
        return allocated;
    }

    @Test
    void aBodyNestedDeeperThanTheConfiguredDepthIsUnparsedAndOneWithinItIsRead() {
        String nested = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"extra\":"
                + "[".repeat(10) + "]".repeat(10) + "}";
        byte[] body = nested.getBytes(StandardCharsets.UTF_8);
        RequestInfo shallowLimit = RequestParser.parse(
                "application/json", null, body, body.length, true, RequestParser.BlockBoundaries.AFTER_USER, 8);
        assertFalse(shallowLimit.parsed(), "11 levels past a limit of 8");
        RequestInfo defaultLimit = RequestParser.parse(
                "application/json", null, body, body.length, true, RequestParser.BlockBoundaries.AFTER_USER);
        assertTrue(defaultLimit.parsed());
        assertEquals(1, defaultLimit.prefixHashes().size());
    }
}
