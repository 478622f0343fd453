package io.ailb.lb.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RedisKeysTest {
    @Test
    void keysAreNamespacedAndTaggedWithRouteAndCluster() {
        RedisKeys keys = RedisKeys.of("ai-route", "outbound|443||llm.dns");
        assertEquals("llb:{ai-route|outbound|443||llm.dns}:inflight", keys.inflight());
        assertEquals("llb:{ai-route|outbound|443||llm.dns}:cleaned", keys.cleaned());
        assertEquals("llb:{ai-route|outbound|443||llm.dns}:p:ABC", keys.prefix("ABC"));
    }

    @Test
    void aBarInTheRouteNameCannotShiftTheRouteClusterBoundary() {
        assertNotEquals(RedisKeys.of("a|b", "c").inflight(), RedisKeys.of("a", "b|c").inflight());
    }

    @Test
    void bracesInNamesCannotEndTheHashTagEarly() {
        RedisKeys keys = RedisKeys.of("r}x{", "c}");
        assertEquals("{r%7Dx%7B|c%7D}", keys.hashTag());
        assertEquals("llb:{r%7Dx%7B|c%7D}:inflight", keys.inflight());
    }

    @Test
    void everyKeyOfASelectCallSharesOneHashTag() {
        RedisKeys keys = RedisKeys.of("route", "cluster");
        RedisCommand command = InflightSelection.command(keys, Arrays.asList("H1", "H2"), Arrays.asList("a:1"),
                Arrays.asList("b:1"), new InflightSelection.Settings(0, 60, 3600, 1800), 5);
        for (String key : command.keys()) {
            int open = key.indexOf('{');
            assertEquals(keys.hashTag(), key.substring(open, key.indexOf('}', open) + 1), key);
        }
    }

    @Test
    void hostsTravelInArgvNotInKeys() {
        RedisCommand command = InflightSelection.command(RedisKeys.of("r", "c"), Arrays.asList("H1"),
                Arrays.asList("a:1", "b:1"), Arrays.asList("u:1"), new InflightSelection.Settings(7, 60, 3600, 1800),
                5);
        assertEquals(Arrays.asList("llb:{r|c}:inflight", "llb:{r|c}:cleaned", "llb:{r|c}:p:H1"), command.keys());
        assertEquals(Arrays.asList("5", "7", "60", "3600", "1800", "2", "a:1", "b:1", "u:1"), command.args());
    }
}
