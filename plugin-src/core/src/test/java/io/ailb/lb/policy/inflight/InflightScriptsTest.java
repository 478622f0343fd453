package io.ailb.lb.policy.inflight;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.lb.redis.LuaScript;
import org.junit.jupiter.api.Test;

class RedisScriptsTest {
    @Test
    void theEmbeddedSelectScriptIsTheResourceFile() {
        assertEquals(Scripts.SELECT.source(), InflightScripts.SELECT.source());
        assertEquals(Scripts.SELECT.sha1(), InflightScripts.SELECT.sha1());
    }

    @Test
    void theEmbeddedReleaseScriptIsTheResourceFile() {
        assertEquals(Scripts.RELEASE.source(), InflightScripts.RELEASE.source());
    }

    @Test
    void theSha1IsTheLowerCaseHexDigestOfTheSource() {
        assertEquals("a9993e364706816aba3e25717850c26c9cd0d89d", new LuaScript("abc", "abc").sha1());
    }
}
