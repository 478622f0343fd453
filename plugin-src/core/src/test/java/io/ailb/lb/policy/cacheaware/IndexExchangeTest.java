package io.ailb.lb.policy.cacheaware;

import static io.ailb.lb.policy.Fixtures.ctx;
import static io.ailb.lb.policy.Fixtures.up;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.Fixtures;
import io.ailb.lb.policy.SharedDataStore;
import io.ailb.lb.policy.SharedState;
import io.ailb.lb.policy.Step;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.util.Rng;
import io.ailb.lb.util.TestConfig;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The local indexes of a gateway's VMs pooled through shared data ({@link IndexExchange}). */
class IndexExchangeTest {
    private static final String A = "10.0.0.1:8000";
    private static final String B = "10.0.0.2:8000";
    private static final String C = "10.0.0.3:8000";
    private static final String SYSTEM = "s".repeat(400);
    private static final long NOW = 1_000_000;

    private final SharedDataStore store = new SharedDataStore();

    private static CacheAwarePolicy policy(String fields) throws ConfigException {
        return new CacheAwarePolicy(TestConfig.view(
                "{\"index\":\"local\",\"overloadQueueRequests\":0,\"inflightTokens\":30" + fields + "}"));
    }

    /** A streamed chat body: its work stays queued until its first response byte, whatever the clock. */
    private static String conversation(String system, String... turns) {
        StringBuilder json = new StringBuilder(
                        "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"system\",\"content\":\"")
                .append(system)
                .append("\"}");
        for (int i = 0; i < turns.length; i++) {
            json.append(",{\"role\":\"")
                    .append(i % 2 == 0 ? "user" : "assistant")
                    .append("\",\"content\":\"")
                    .append(turns[i])
                    .append("\"}");
        }
        return json.append("]}").toString();
    }

    private static Step select(CacheAwarePolicy policy, RequestInfo request, long now, String... hosts) {
        return inSession(policy, request, now, null, hosts);
    }

    private static Step inSession(
            CacheAwarePolicy policy, RequestInfo request, long now, String session, String... hosts) {
        Step step = policy.select(ctx(Arrays.stream(hosts).map(h -> up(h)).toArray(Endpoint[]::new))
                .request(request)
                .nowMillis(now)
                .random(new Rng(now))
                .requestHeaders(name -> name.equals("x-session-id") ? session : null)
                .build());
        assertEquals(Step.Kind.ROUTE, step.kind(), step.toString());
        return step;
    }

    /** Routed, applied, answered and ended: only its blocks remain. */
    private static Step served(CacheAwarePolicy policy, RequestInfo request, long now, String... hosts) {
        Step step = select(policy, request, now, hosts);
        step.responseObserver().onApplied(now);
        step.responseObserver().onFirstResponseBody(now);
        step.responseObserver().onStreamEnd(now);
        return step;
    }

    private static Step held(CacheAwarePolicy policy, RequestInfo request, long now, String... hosts) {
        Step step = select(policy, request, now, hosts);
        step.responseObserver().onApplied(now);
        return step;
    }

    /** Read with cache_aware's block boundaries, as the flow reads it for this policy. */
    private static RequestInfo chat(String json) throws ConfigException {
        return Fixtures.chatFor(policy(""), json);
    }

    @Test
    void aConversationRoutedByOneVmIsFoundByAnotherAfterOneExchange() throws ConfigException {
        CacheAwarePolicy first = policy("");
        CacheAwarePolicy second = policy("");
        int blocks = chat(conversation(SYSTEM, "q".repeat(400))).prefixHashes().size();
        for (int c = 0; c < 6; c++) {
            String system = c + SYSTEM;
            Step opening = served(first, chat(conversation(system, "q".repeat(400))), NOW + c, A, B, C);
            first.shareState(store.vm("one"), NOW + 100);
            second.shareState(store.vm("two"), NOW + 100);

            RequestInfo next = chat(conversation(system, "q".repeat(400), "answer", "more"));
            Step followUp = served(second, next, NOW + 200 + c, A, B, C);
            assertEquals(opening.host(), followUp.host(), followUp.attributes().toString());
            assertEquals(blocks, followUp.prefixLength(), "the first turn's blocks are held there");
            int answered = next.answeredTokens().get(blocks - 1);
            assertTrue(answered > Long.parseLong(opening.attributes().get(CacheAwarePolicy.ATTR_WORK)));
            assertEquals(
                    Integer.toString(answered),
                    followUp.attributes().get(CacheAwarePolicy.ATTR_MATCHED_TOKENS),
                    "the whole first prompt and the answer to it are cached there");
        }
    }

    @Test
    void aSessionRoutedByOneVmIsFoundByAnother() throws ConfigException {
        CacheAwarePolicy first = policy(",\"sessionHeader\":\"x-session-id\"");
        CacheAwarePolicy second = policy(",\"sessionHeader\":\"x-session-id\"");
        Step opening = inSession(first, chat(conversation(SYSTEM, "q".repeat(400))), NOW, "s-1", A, B, C);
        first.shareState(store.vm("one"), NOW + 100);
        second.shareState(store.vm("two"), NOW + 100);
        // Another body (no block in common), the same session: its host counts as holding the last prompt.
        Step next = inSession(second, chat(conversation("t".repeat(400), "r".repeat(400))), NOW + 200, "s-1", A, B, C);
        assertEquals(opening.host(), next.host());
        assertEquals("200", next.attributes().get(CacheAwarePolicy.ATTR_MATCHED_TOKENS));
    }

    /**
     * A peer's request in flight past its first token has no work queued but still holds its KV: with the KV size
     * known, a host whose held KV (the peers' included) leaves no room for this prompt loses to one with room, here
     * against a queue of its own.
     */
    @Test
    void aPeersHeldKvCountsAgainstTheRoomOnTheHost() throws ConfigException {
        RequestInfo running = chat(conversation(SYSTEM, "q".repeat(800)));
        RequestInfo small = chat(conversation("small " + SYSTEM, "s".repeat(100)));
        long work = workOf(running);
        long prompt = workOf(chat(conversation("fresh " + SYSTEM, "r".repeat(800))));
        long queued = workOf(small);
        long kv = work + prompt / 2;
        assertTrue(queued < prompt / 2 && queued + prompt <= kv, work + " " + prompt + " " + queued);
        CacheAwarePolicy first = policy(",\"kvCacheTokens\":" + kv);
        CacheAwarePolicy second = policy(",\"kvCacheTokens\":" + kv);
        Step step = held(first, running, NOW, A);
        step.responseObserver().onFirstResponseBody(NOW);
        held(second, small, NOW, B);
        first.shareState(store.vm("one"), NOW + 100);
        second.shareState(store.vm("two"), NOW + 100);

        // A: the peer's held KV and this prompt exceed the KV size by half the prompt; B: room, and a short queue.
        assertEquals(
                B,
                select(second, chat(conversation("fresh " + SYSTEM, "r".repeat(800))), NOW + 200, A, B)
                        .host());

        step.responseObserver().onStreamEnd(NOW + 300);
        first.shareState(store.vm("one"), NOW + 400);
        second.shareState(store.vm("two"), NOW + 400);
        assertEquals(
                A,
                select(second, chat(conversation("third " + SYSTEM, "r".repeat(800))), NOW + 500, A, B)
                        .host(),
                "released: room again on A, and B's queue");
    }

    private static long workOf(RequestInfo request) throws ConfigException {
        return Long.parseLong(select(policy(""), request, NOW, A).attributes().get(CacheAwarePolicy.ATTR_WORK));
    }

    @Test
    void aVmPublishesItsUnstreamedRequestsWorkOnlyUntilTheirFirstTokenIsExpected() throws ConfigException {
        CacheAwarePolicy first = policy("");
        CacheAwarePolicy second = policy("");
        // 800 + 800 characters, 400 tokens without a stream: expected prefilled 40 ms after the routing.
        String unstreamed = conversation(SYSTEM, "q".repeat(800)).replace("\"stream\":true,", "");
        long work = Long.parseLong(
                held(first, chat(unstreamed), NOW, A).attributes().get(CacheAwarePolicy.ATTR_WORK));
        assertTrue(work > 0);
        long expectedAt = NOW + work / 10;
        first.shareState(store.vm("one"), expectedAt - 1);
        second.shareState(store.vm("two"), expectedAt - 1);
        assertEquals(
                Long.toString(work + 30),
                select(second, RequestInfo.noBody(), expectedAt - 1, A)
                        .attributes()
                        .get(CacheAwarePolicy.ATTR_COST),
                "not expected yet: the peer's work is queued");

        first.shareState(store.vm("one"), expectedAt + CacheAwarePolicy.SHARE_PERIOD_MILLIS);
        second.shareState(store.vm("two"), expectedAt + CacheAwarePolicy.SHARE_PERIOD_MILLIS);
        assertEquals(
                "30",
                select(second, RequestInfo.noBody(), expectedAt + CacheAwarePolicy.SHARE_PERIOD_MILLIS, A)
                        .attributes()
                        .get(CacheAwarePolicy.ATTR_COST),
                "the peer published its queue without it; the request stays in flight");
    }

    @Test
    void eachVmAddsThePeersOwnCountsAndQueuesToItsOwnAndPublishesOnlyItsOwn() throws ConfigException {
        CacheAwarePolicy first = policy("");
        CacheAwarePolicy second = policy("");
        CacheAwarePolicy third = policy("");
        // Its prompt queued on A, one request in flight there, in the first VM.
        long work = Long.parseLong(held(first, chat(conversation(SYSTEM, "q".repeat(800))), NOW, A)
                .attributes()
                .get(CacheAwarePolicy.ATTR_WORK));
        assertTrue(work > 0);
        first.shareState(store.vm("one"), NOW + 100);
        second.shareState(store.vm("two"), NOW + 100);

        Step seen = held(second, RequestInfo.noBody(), NOW + 200, A);
        assertEquals("2", seen.attributes().get(Step.ATTR_INFLIGHT), "the first VM's request and this one");
        assertEquals(
                Long.toString(work + 30),
                seen.attributes().get(CacheAwarePolicy.ATTR_COST),
                "the peer's queued work + 30 per request in flight");

        second.shareState(store.vm("two"), NOW + 300);
        third.shareState(store.vm("three"), NOW + 300);
        Step third1 = select(third, RequestInfo.noBody(), NOW + 400, A);
        assertEquals("3", third1.attributes().get(Step.ATTR_INFLIGHT), "one each in the two peers, nothing twice");
        assertEquals(Long.toString(work + 60), third1.attributes().get(CacheAwarePolicy.ATTR_COST));
    }

    /**
     * Between two ticks, a decision that took effect on one VM counts in the other VMs' next decisions, and so do its
     * first token and its end: requests arriving together on several workers are spread as one VM would spread them,
     * not each sent where its worker alone sees the least load.
     */
    @Test
    void decisionsBetweenTicksCountInThePeersNextDecisions() throws ConfigException {
        CacheAwarePolicy first = policy("");
        CacheAwarePolicy second = policy("");
        pair(first, second);

        Step big = held(first, chat(conversation(SYSTEM, "q".repeat(4000))), NOW + 2, A, B);
        String other = big.host().equals(A) ? B : A;
        Step next = held(second, chat(conversation("t" + SYSTEM, "r".repeat(400))), NOW + 3, A, B);
        assertEquals(other, next.host(), "the peer's request, decided 1 ms before, is queued there");
        assertEquals("2", inflightSeen(first, NOW + 4, other), "and the other way round");

        big.responseObserver().onFirstResponseBody(NOW + 5);
        Step afterFirstToken = select(second, RequestInfo.noBody(), NOW + 6, big.host());
        assertEquals("2", afterFirstToken.attributes().get(Step.ATTR_INFLIGHT), "still in flight");
        assertEquals(
                "30",
                afterFirstToken.attributes().get(CacheAwarePolicy.ATTR_COST),
                "its prefill left the peer's queue at its first token: only 30 for the one in flight");
        big.responseObserver().onStreamEnd(NOW + 7);
        assertEquals("1", inflightSeen(second, NOW + 8, big.host()), "and its end at once");
    }

    /**
     * An unstreamed request's first token falling due between ticks reaches the peers once its VM's next decision takes
     * effect.
     */
    @Test
    void anUnstreamedFirstTokenFallenDueIsPublishedAtTheNextDecision() throws ConfigException {
        CacheAwarePolicy first = policy("");
        CacheAwarePolicy second = policy("");
        pair(first, second);
        String unstreamed = conversation(SYSTEM, "q".repeat(800)).replace("\"stream\":true,", "");
        long work = Long.parseLong(
                held(first, chat(unstreamed), NOW + 2, A).attributes().get(CacheAwarePolicy.ATTR_WORK));
        assertEquals(Long.toString(work + 30), costSeen(second, NOW + 3, A), "queued until its first token is due");

        long due = NOW + 2 + work / 10;
        held(first, RequestInfo.noBody(), due, B);
        assertEquals(
                "30", costSeen(second, due + 1, A), "published with the first VM's next decision, which settled it");
    }

    /** Two VMs of one gateway, each with its slot claimed, {@code first} having ticked once more to find its peer. */
    private void pair(CacheAwarePolicy first, CacheAwarePolicy second) {
        first.shareState(store.vm("one"), NOW);
        second.shareState(store.vm("two"), NOW);
        first.shareState(store.vm("one"), NOW + 1);
    }

    private static String costSeen(CacheAwarePolicy policy, long now, String host) {
        return select(policy, RequestInfo.noBody(), now, host).attributes().get(CacheAwarePolicy.ATTR_COST);
    }

    /** The in-flight count on {@code host} that a bodyless request routed there at {@code now} would make. */
    private static String inflightSeen(CacheAwarePolicy policy, long now, String host) {
        return select(policy, RequestInfo.noBody(), now, host).attributes().get(Step.ATTR_INFLIGHT);
    }

    @Test
    void aPeersRecentWorkCountsAgainstTheHostWhenAConversationStartsFadedToTheDecision() throws ConfigException {
        CacheAwarePolicy first = policy("");
        CacheAwarePolicy second = policy("");
        // Served on A by the first VM: nothing queued or in flight anywhere, only A's recent work.
        long work = Long.parseLong(served(first, chat(conversation(SYSTEM, "q".repeat(800))), NOW, A)
                .attributes()
                .get(CacheAwarePolicy.ATTR_WORK));
        first.shareState(store.vm("one"), NOW + 100);
        second.shareState(store.vm("two"), NOW + 100);

        // A conversation of its own in the second VM: A is charged a quarter of its work over the mean (half of it),
        // B credited as much, so B, and its cost is the prompt less an eighth of the first request's work.
        Step started = select(second, chat(conversation("t" + SYSTEM, "r".repeat(800))), NOW + 200, A, B);
        assertEquals(B, started.host(), started.attributes().toString());
        long prompt = Long.parseLong(started.attributes().get(CacheAwarePolicy.ATTR_WORK));
        assertEquals(
                Long.toString(Math.round(prompt - 0.25 * work / 2)),
                started.attributes().get(CacheAwarePolicy.ATTR_COST));

        // Ten seconds on (two time constants), exchanged again: the peer's recent work on A has faded by e^-2.
        first.shareState(store.vm("one"), NOW + 10_000);
        second.shareState(store.vm("two"), NOW + 10_000);
        Step later = select(second, chat(conversation("u" + SYSTEM, "r".repeat(800))), NOW + 10_200, A, C);
        assertEquals(C, later.host());
        assertEquals(
                Long.toString(Math.round(prompt - 0.25 * work * Math.exp(-2) / 2)),
                later.attributes().get(CacheAwarePolicy.ATTR_COST));
    }

    @Test
    void aVmThatStoppedWritingStopsCountingAfterTheStaleTime() throws ConfigException {
        CacheAwarePolicy stopped = policy("");
        CacheAwarePolicy alive = policy("");
        held(stopped, RequestInfo.noBody(), NOW, A);
        stopped.shareState(store.vm("one"), NOW);

        alive.shareState(store.vm("two"), NOW + IndexExchange.STALE_MILLIS);
        assertEquals(
                "2",
                select(alive, RequestInfo.noBody(), NOW + IndexExchange.STALE_MILLIS, A)
                        .attributes()
                        .get(Step.ATTR_INFLIGHT));
        alive.shareState(store.vm("two"), NOW + IndexExchange.STALE_MILLIS + 1);
        assertEquals(
                "1",
                select(alive, RequestInfo.noBody(), NOW + IndexExchange.STALE_MILLIS + 2, A)
                        .attributes()
                        .get(Step.ATTR_INFLIGHT));
    }

    @Test
    void garbageInTheSharedKeysIsIgnored() throws ConfigException {
        CacheAwarePolicy writer = policy("");
        for (int c = 0; c < 4; c++) {
            held(writer, chat(conversation(c + SYSTEM, "q".repeat(400))), NOW, A);
        }
        writer.shareState(store.vm("one"), NOW);
        String directory = directoryKey();
        String slotKey = directory.substring(0, directory.length() - 3) + "0";
        String loadsKey = slotKey + ".loads";
        byte[] validRecords = store.values.get(slotKey).bytes();
        byte[] validLoads = store.values.get(loadsKey).bytes();
        String writerName = IndexExchange.Publication.parse(validRecords).publisher;
        assertNotNull(IndexExchange.parseLoads(validLoads, writerName));
        assertNull(IndexExchange.parseLoads(validLoads, "another/0"), "written by another publisher");

        Rng random = new Rng(7);
        for (byte[] valid : new byte[][] {validRecords, validLoads}) {
            for (int length = 0; length < valid.length; length += 1 + length / 8) {
                assertNull(IndexExchange.Publication.parse(Arrays.copyOf(valid, length)), "cut at " + length);
                assertNull(IndexExchange.parseLoads(Arrays.copyOf(valid, length), writerName), "cut at " + length);
                byte[] noise = Arrays.copyOf(valid, valid.length);
                noise[length] ^= (byte) (1 + random.nextInt(255));
                IndexExchange.Publication.parse(noise);
                IndexExchange.parseLoads(noise, writerName);
            }
            byte[] longer = Arrays.copyOf(valid, valid.length + 1);
            assertNull(IndexExchange.Publication.parse(longer), "trailing bytes");
            assertNull(IndexExchange.parseLoads(longer, writerName), "trailing bytes");
        }

        String[] directories = {
            "",
            "\n\n",
            "0",
            "0 one/0",
            "x one/0 " + NOW,
            "999 one/0 " + NOW,
            "0  " + NOW,
            "-1 one/0 " + NOW,
            "0 one/0 99999999999999999999",
            "0 one/0 " + NOW + " extra"
        };
        for (String text : directories) {
            store.put(directory, text.getBytes(StandardCharsets.UTF_8));
            CacheAwarePolicy reader = policy("");
            reader.shareState(store.vm("two"), NOW + 1);
            assertEquals(
                    "1",
                    held(reader, RequestInfo.noBody(), NOW + 2, A).attributes().get(Step.ATTR_INFLIGHT));
        }
        // A well-formed directory naming the writer, over keys that hold noise, a cut or too much; then the valid
        // values, whose counts and blocks do arrive.
        for (boolean loads : new boolean[] {true, false}) {
            byte[] valid = loads ? validLoads : validRecords;
            byte[][] values = {
                new byte[0],
                Arrays.copyOf(valid, valid.length / 2),
                Arrays.copyOf(valid, valid.length + 1),
                new byte[IndexExchange.MAX_PUBLICATION_BYTES + 1],
                valid
            };
            for (byte[] value : values) {
                store.put(directory, ("0 " + writerName + " " + NOW).getBytes(StandardCharsets.UTF_8));
                store.put(slotKey, loads ? validRecords : value);
                store.put(loadsKey, loads ? value : validLoads);
                CacheAwarePolicy reader = policy("");
                reader.shareState(store.vm("two"), NOW + 1);
                Step followUp = held(reader, chat(conversation(0 + SYSTEM, "q".repeat(400), "a", "q")), NOW + 2, A);
                String description = (loads ? "loads" : "records") + " of " + value.length + " bytes";
                assertEquals(
                        value == valid || !loads ? "5" : "1",
                        followUp.attributes().get(Step.ATTR_INFLIGHT),
                        description);
                assertEquals(
                        value == valid || loads,
                        !"0".equals(followUp.attributes().get(CacheAwarePolicy.ATTR_MATCHED_TOKENS)),
                        description);
            }
        }
    }

    @Test
    void aLoadsValueWithImpossibleCountsIsIgnoredWhole() {
        IndexExchange exchange = new IndexExchange(
                "ailb.test",
                0,
                new LocalCacheIndex(
                        16, 8, 0, 60, 1800, 30, 0, 0, CacheAwarePolicy.DEFAULT_PREFILL_TOKENS_PER_SECOND, 600));
        assertNotNull(IndexExchange.parseLoads(exchange.encodeLoads(Map.of(A, new long[] {1, 2, 3, 4, 5, 6})), ""));
        long[][] impossible = {
            {Long.MAX_VALUE, 2, 3, 4, 5, 6},
            {1, -2, 3, 4, 5, 6},
            {1, 2, -3, 4, 5, 6},
            {1, 2, 3, -4, 5, 6},
            {1, 2, 3, 4, -5, 6},
            {1, 2, 3, 4, 5, -6}
        };
        for (long[] load : impossible) {
            assertNull(IndexExchange.parseLoads(exchange.encodeLoads(Map.of(A, load)), ""), Arrays.toString(load));
        }
    }

    @Test
    void aHostNameTooLongToPublishIsLeftOutOfTheLoads() {
        IndexExchange exchange = new IndexExchange(
                "ailb.test",
                0,
                new LocalCacheIndex(
                        16, 8, 0, 60, 1800, 30, 0, 0, CacheAwarePolicy.DEFAULT_PREFILL_TOKENS_PER_SECOND, 600));
        String overlong = "h".repeat(IndexExchange.MAX_NAME_BYTES + 1);
        Map<String, long[]> loads = IndexExchange.parseLoads(
                exchange.encodeLoads(Map.of(A, new long[] {1, 2, 3, 4, 5, 6}, overlong, new long[] {1, 1, 1, 1, 1, 1})),
                "");
        assertNotNull(loads);
        assertEquals(Set.of(A), loads.keySet());
    }

    /** The pool's directory key (one configuration: the only one in the store ending in ".vms"). */
    private String directoryKey() {
        return store.values.keySet().stream()
                .filter(k -> k.endsWith(".vms"))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void thePublicationStaysBoundedUnderAFloodAndKeepsTheNewestBlocks() throws ConfigException {
        CacheAwarePolicy flooded = policy("");
        CacheAwarePolicy peer = policy("");
        String last = null;
        Step lastStep = null;
        for (int c = 0; c < 10_000; c++) {
            last = c + SYSTEM;
            lastStep = select(flooded, chat(conversation(last, "q" + c, "a", "q")), NOW + c, A, B, C);
        }
        flooded.shareState(store.vm("one"), NOW + 10_000);
        int biggest = 0;
        for (Map.Entry<String, SharedState.Value> entry : store.values.entrySet()) {
            biggest = Math.max(biggest, entry.getValue().bytes().length);
        }
        assertTrue(biggest <= IndexExchange.MAX_RECORDS * 33 + 1_000, "largest value " + biggest + " bytes");

        peer.shareState(store.vm("two"), NOW + 10_000);
        Step followUp = select(peer, chat(conversation(last, "q9999", "a", "q", "b", "q")), NOW + 10_001, A, B, C);
        assertEquals(lastStep.host(), followUp.host(), "the newest blocks were published");
        assertNotEquals("0", followUp.attributes().get(CacheAwarePolicy.ATTR_MATCHED_TOKENS));
    }

    @Test
    void aLoneVmDecidesAsOneThatNeverExchanges() throws ConfigException {
        CacheAwarePolicy sharing = policy("");
        CacheAwarePolicy alone = policy("");
        Rng random = new Rng(3);
        for (int i = 0; i < 300; i++) {
            long now = NOW + i * 100L;
            RequestInfo request = i % 5 == 0
                    ? RequestInfo.noBody()
                    : chat(conversation(random.nextInt(8) + SYSTEM, "q" + random.nextInt(4)));
            Step shared = select(sharing, request, now, A, B, C);
            Step own = select(alone, request, now, A, B, C);
            assertEquals(own.host(), shared.host(), "request " + i);
            assertEquals(own.attributes(), shared.attributes(), "request " + i);
            shared.responseObserver().onApplied(now);
            own.responseObserver().onApplied(now);
            if (i % 3 == 0) {
                sharing.shareState(store.vm("one"), now);
            }
        }
        assertEquals(3, store.values.size(), "its directory, its slot and its loads");
    }
}
