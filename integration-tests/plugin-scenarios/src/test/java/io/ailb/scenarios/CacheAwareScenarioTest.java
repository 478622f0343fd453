package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.lb.shell.ShellFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * cache_aware through the real .wasm and a real Redis. Weight 1 and no in-flight term, so each cost is queued plus
 * uncached tokens (the script tests cover the weight and the in-flight term).
 */
@Timeout(120)
class CacheAwareScenarioTest {
    private static final String CONFIG = "{\"lb_policy\":\"cache_aware\",\"lb_config\":{"
            + ShellFixture.redisConfig("\"redisKeyTTL\":600,\"inflightTokens\":0,\"overloadQueueRequests\":0")
            + "}}";

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    private static String finish(HttpStream stream) {
        String host = stream.upstreamOverride().orElseThrow();
        stream.complete();
        return host;
    }

    private static long loadTotal() {
        long total = 0;
        for (String key : PluginFixture.keys("*:load")) {
            var pairs = PluginFixture.redis().command("HGETALL", key).elements();
            for (int i = 1; i < pairs.size(); i += 2) {
                total += pairs.get(i).asLong();
            }
        }
        return total;
    }

    @Test
    void whileBalancedEveryConversationSticksToTheHostHoldingItsPrefix() {
        PluginVm vm = PluginFixture.gateway(CONFIG).build().startVm();
        // First turns arrive together: each one's queued prefill steers the next to a less loaded host.
        List<String> firstHosts = new ArrayList<>();
        List<HttpStream> firstTurns = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
            HttpStream first =
                    PluginFixture.send(vm, ShellFixture.chat(PluginFixture.text("system" + c, 2000), "question " + c));
            firstHosts.add(first.upstreamOverride().orElseThrow());
            firstTurns.add(first);
        }
        firstTurns.forEach(HttpStream::complete);
        for (int turn = 2; turn <= 3; turn++) {
            for (int c = 0; c < 6; c++) {
                List<String> turns = new ArrayList<>(List.of("question " + c));
                for (int t = 2; t <= turn; t++) {
                    turns.add("answer " + c + "." + t);
                    turns.add("follow-up " + c + "." + t);
                }
                HttpStream next = PluginFixture.send(
                        vm, ShellFixture.chat(PluginFixture.text("system" + c, 2000), turns.toArray(new String[0])));
                String log = PluginFixture.log(next);
                assertEquals(firstHosts.get(c), finish(next), "conversation " + c + " turn " + turn + ": " + log);
                assertTrue(log.contains("\"cache_hit\":\"true\""), log);
                // Blocks: the system prompt, the first question, then each answer with its follow-up.
                assertTrue(log.contains("\"prefix_length\":\"" + turn + "\""), log);
            }
        }
        assertTrue(firstHosts.containsAll(List.of(A, B, C)), "new conversations spread: " + firstHosts);
        assertEquals(0L, PluginFixture.totalInflight());
        assertEquals(0L, loadTotal(), "every release gave back exactly its queued tokens");
    }

    @Test
    void aConversationSpillsOverWhenItsHolderIsLoadedWithLongPrompts() {
        PluginVm vm = PluginFixture.gateway(CONFIG).build().startVm();
        // Turn 1: a 4000-character system prompt (~1000 tokens) lands somewhere and ends.
        String system = PluginFixture.text("policy", 4000);
        String holder = finish(PluginFixture.send(vm, ShellFixture.chat(system, "q1")));

        // Two long-prompt requests (8009 characters: 2003 tokens queued each) wait for their first token on the
        // holder: they were sent while only the holder was healthy.
        List<ClusterHost> onlyHolder = new ArrayList<>();
        for (String host : List.of(A, B, C)) {
            onlyHolder.add(host.equals(holder) ? ClusterHost.healthy(host) : new ClusterHost(host, "Unhealthy", ""));
        }
        List<HttpStream> running = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            HttpStream longPrompt = PluginFixture.stream(vm).withUpstreamHosts(onlyHolder);
            longPrompt.sendRequestHeaders(PluginFixture.post(), false);
            longPrompt.sendRequestBody(ShellFixture.chat(PluginFixture.text("document" + i, 8000), "summarise"), true);
            assertEquals(holder, longPrompt.upstreamOverride().orElseThrow());
            assertTrue(PluginFixture.log(longPrompt).contains("\"work\":\"2003\""), PluginFixture.log(longPrompt));
            running.add(longPrompt);
        }

        // Turn 2: ~1000 cached tokens do not outweigh 4006 queued tokens: another host takes it.
        HttpStream second = PluginFixture.send(vm, ShellFixture.chat(system, "q1", "a1", "q2"));
        String secondLog = PluginFixture.log(second);
        String moved = finish(second);
        assertNotEquals(holder, moved, secondLog);
        assertTrue(secondLog.contains("\"cache_hit\":\"false\""), secondLog);

        // The long prompts end; the conversation now has two holders and, both idle, goes to the deeper one.
        for (HttpStream stream : running) {
            stream.complete();
        }
        HttpStream third = PluginFixture.send(vm, ShellFixture.chat(system, "q1", "a1", "q2", "a2", "q3"));
        String thirdLog = PluginFixture.log(third);
        assertEquals(moved, finish(third), thirdLog);
        assertTrue(thirdLog.contains("\"prefix_length\":\"3\""), thirdLog);
        assertEquals(0L, PluginFixture.totalInflight());
        assertEquals(0L, loadTotal());
    }

    @Test
    void aBodylessRequestIsRoutedAtOnceByTheShortestQueue() {
        PluginVm vm = PluginFixture.gateway(CONFIG).build().startVm();
        HttpStream stream = PluginFixture.stream(vm);
        stream.sendRequestHeaders(PluginFixture.get(), true);
        assertTrue(stream.requestHeadersForwarded());
        assertTrue(stream.upstreamOverride().isPresent());
        assertTrue(PluginFixture.log(stream).contains("\"work\":\"0\""), PluginFixture.log(stream));
        stream.complete();
        assertEquals(0L, loadTotal());
    }

    @Test
    void theFirstResponseByteTakesTheQueuedTokensOffAndTheEndTheCount() {
        PluginVm vm = PluginFixture.gateway(CONFIG).build().startVm();
        HttpStream stream = PluginFixture.send(vm, ShellFixture.chat(PluginFixture.text("system", 4000), "question"));
        assertTrue(PluginFixture.log(stream).contains("\"work\":\"1002\""), PluginFixture.log(stream));
        assertEquals(1002L, loadTotal());

        stream.sendResponseHeaders(HeaderMap.of(":status", "200", "content-type", "text/event-stream"), false);
        stream.sendResponseBody("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n", false);
        assertEquals(0L, loadTotal(), "the prefill is done: nothing is queued any more");
        assertEquals(1L, PluginFixture.totalInflight(), "the request is still in flight");

        stream.sendResponseBody("data: [DONE]\n\n", true);
        stream.complete();
        assertEquals(0L, PluginFixture.totalInflight());
        assertEquals(0L, loadTotal());
    }

    private static String attribute(String log, String name) {
        Matcher value = Pattern.compile("\"" + name + "\":\"(\\d+)\"").matcher(log);
        assertTrue(value.find(), name + " in " + log);
        return value.group(1);
    }

    private static HttpStream sendInSession(PluginVm vm, String session, String body) {
        HttpStream stream = PluginFixture.stream(vm);
        stream.sendRequestHeaders(PluginFixture.post().add("x-session-id", session), false);
        stream.sendRequestBody(body, true);
        return stream;
    }

    @Test
    void bodiesTooLargeToReadStayWithTheirSessionWhenItIsNamedInTheSessionHeader() {
        // Bodies over max_body_bytes are routed without their prompt: only the session header tells turns apart.
        String config = "{\"lb_policy\":\"cache_aware\",\"max_body_bytes\":4096,\"lb_config\":{"
                + ShellFixture.redisConfig(
                        "\"inflightTokens\":0,\"overloadQueueRequests\":0,\"sessionHeader\":\"X-Session-Id\"")
                + "}}";
        PluginVm vm = PluginFixture.gateway(config).build().startVm();
        String system = PluginFixture.text("system", 8000);
        List<String> firstHosts = new ArrayList<>();
        List<String> firstPrompts = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            HttpStream first = sendInSession(vm, "conversation-" + c, ShellFixture.chat(system, "question " + c));
            firstHosts.add(first.upstreamOverride().orElseThrow());
            // Nothing was cached anywhere: the whole prompt (estimated from the body's size) was its work.
            firstPrompts.add(attribute(PluginFixture.log(first), "work"));
            first.complete();
        }
        assertTrue(Integer.parseInt(firstPrompts.get(0)) > 2000, firstPrompts.toString());
        for (int c = 0; c < 3; c++) {
            HttpStream next = sendInSession(
                    vm, "conversation-" + c, ShellFixture.chat(system, "question " + c, "answer", "follow-up"));
            String log = PluginFixture.log(next);
            assertEquals(firstHosts.get(c), finish(next), log);
            assertTrue(log.contains("\"cache_hit\":\"false\""), "no block matched, the session did: " + log);
            assertEquals(firstPrompts.get(c), attribute(log, "matched_tokens"), log);
        }
        // Without the header the same follow-up is weighed as an unknown prompt: the least loaded host, any of them.
        HttpStream anonymous = PluginFixture.send(vm, ShellFixture.chat(system, "question 0", "answer", "follow-up"));
        assertTrue(PluginFixture.log(anonymous).contains("\"matched_tokens\":\"0\""), PluginFixture.log(anonymous));
        anonymous.complete();
        assertEquals(0L, PluginFixture.totalInflight());
        assertEquals(0L, loadTotal());
    }

    @Test
    void everyKeyOfTheRouteHasATtl() {
        PluginVm vm = PluginFixture.gateway(CONFIG).build().startVm();
        HttpStream open = PluginFixture.send(vm, ShellFixture.chat("sys", "q1", "a1", "q2"));
        open.upstreamOverride().orElseThrow();
        List<String> keys = PluginFixture.keys("llb:*");
        assertTrue(keys.size() >= 6, keys.toString());
        for (String key : keys) {
            assertTrue(PluginFixture.redis().command("TTL", key).asLong() > 0, key + " has a TTL");
        }
        open.complete();
    }
}
