package io.ailb.hostkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TestRedisClusterTest {
    private static TestRedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = TestRedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void theSlotOfAKeyIsTheOneRedisComputes() {
        // 0x31C3 is the CRC-16/XMODEM check value of "123456789".
        assertEquals(0x31C3, TestRedisCluster.slot("123456789"));
        List<String> keys = List.of(
                "foo",
                "{user1000}.following",
                "{user1000}.followers",
                "foo{}{bar}",
                "foo{{bar}}zap",
                "foo{bar}{zap}",
                "{}",
                "}{",
                "llb:{route-a|outbound|80||llm.dns}:inflight",
                "higress:adaptive_score_inflight:{chat}:leases",
                "caf\u00e9{\u00fc}");
        for (String key : keys) {
            assertEquals(
                    cluster.callOn(0, "CLUSTER", "KEYSLOT", key).asLong(),
                    TestRedisCluster.slot(key),
                    "slot of " + key);
        }
    }

    @Test
    void everyNodeServesOneThirdOfTheSlotsAsTheClusterSeesIt() {
        List<String> expected =
                List.of("0-5460@" + cluster.port(0), "5461-10921@" + cluster.port(1), "10922-16383@" + cluster.port(2));
        for (int node = 0; node < 3; node++) {
            List<String> seen = new ArrayList<>();
            for (RespValue range : cluster.callOn(node, "CLUSTER", "SLOTS").elements()) {
                List<RespValue> parts = range.elements();
                seen.add(parts.get(0).asLong() + "-" + parts.get(1).asLong() + "@"
                        + parts.get(2).elements().get(1).asLong());
            }
            seen.sort(Comparator.comparingInt(range -> Integer.parseInt(range.substring(0, range.indexOf('-')))));
            assertEquals(expected, seen, "node " + node);
        }
        assertEquals(0, cluster.nodeOfSlot(5460));
        assertEquals(1, cluster.nodeOfSlot(5461));
        assertEquals(2, cluster.nodeOfSlot(16383));
    }

    @Test
    void aCommandGoesToTheNodeOfItsSlotAndAnotherNodeAnswersMoved() {
        cluster.flushAll();
        boolean[] used = new boolean[3];
        for (int i = 0; i < 30; i++) {
            String key = "key-" + i;
            int owner = cluster.nodeOf(key);
            used[owner] = true;
            assertEquals("OK", cluster.call("SET", key, "v" + i).asString());
            assertEquals("v" + i, cluster.call("GET", key).asString());
            assertEquals(1, cluster.callOn(owner, "EXISTS", key).asLong());
            int other = (owner + 1) % 3;
            RespValue moved = cluster.callOn(other, "GET", key);
            assertEquals("MOVED " + TestRedisCluster.slot(key) + " 127.0.0.1:" + cluster.port(owner), moved.asString());
        }
        assertTrue(used[0] && used[1] && used[2], "30 keys reach every node");
    }
}
