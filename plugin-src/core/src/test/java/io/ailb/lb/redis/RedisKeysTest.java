package io.ailb.lb.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.ailb.lb.policy.inflight.InflightSelection;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisKeysTest {
    @Test
    void keysAreNamespacedAndTaggedWithRouteAndCluster() {
        RedisKeys keys = RedisKeys.of("ai-route", "outbound|443||llm.dns");
        assertEquals("llb:{ai-route|outbound|443||llm.dns}:inflight", keys.inflight());
        assertEquals("llb:{ai-route|outbound|443||llm.dns}:cleaned", keys.cleaned());
        assertEquals("llb:{ai-route|outbound|443||llm.dns}:leases", keys.leases());
        assertEquals("llb:{ai-route|outbound|443||llm.dns}:lease-hosts", keys.leaseHosts());
        assertEquals("llb:{ai-route|outbound|443||llm.dns}:p:ABC", keys.prefix("ABC"));
    }

    @Test
    void aBarInTheRouteNameCannotShiftTheRouteClusterBoundary() {
        assertNotEquals(
                RedisKeys.of("a|b", "c").inflight(), RedisKeys.of("a", "b|c").inflight());
    }

    @Test
    void bracesInNamesCannotEndTheHashTagEarly() {
        RedisKeys keys = RedisKeys.of("r}x{", "c}");
        assertEquals("{r%7Dx%7B|c%7D}", keys.hashTag());
        assertEquals("llb:{r%7Dx%7B|c%7D}:inflight", keys.inflight());
    }

    @Test
    void everyKeyOfASelectAndAReleaseCallSharesOneHashTag() {
        RedisKeys keys = RedisKeys.of("route", "cluster");
        RedisCommand select = InflightSelection.command(
                keys,
                Arrays.asList("H1", "H2"),
                Arrays.asList("a:1"),
                Arrays.asList("b:1"),
                new InflightSelection.Settings(0, 60, 3600, 1800, 600),
                5,
                "00000000000000ff");
        List<String> all = new ArrayList<>(select.keys());
        all.addAll(InflightSelection.release(keys, "00000000000000ff").keys());
        assertEquals(6 + 3, all.size());
        for (String key : all) {
            int open = key.indexOf('{');
            assertEquals(keys.hashTag(), key.substring(open, key.indexOf('}', open) + 1), key);
            assertEquals(SLOT_OF_TAG, slot(key), key);
        }
    }

    private static final int SLOT_OF_TAG = slot("{route|cluster}");

    /** The Redis Cluster slot: CRC16 (XMODEM) of the hash tag's content, modulo 16384. */
    private static int slot(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        String hashed = close > open + 1 ? key.substring(open + 1, close) : key;
        int crc = 0;
        for (byte b : hashed.getBytes(StandardCharsets.UTF_8)) {
            crc ^= (b & 0xFF) << 8;
            for (int i = 0; i < 8; i++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xFFFF;
        }
        return crc % 16384;
    }

    @Test
    void theCrc16MatchesTheRedisClusterSpecExample() {
        assertEquals(0x31C3 % 16384, slot("123456789"));
    }
}
