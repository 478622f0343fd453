package io.ailb.lb.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RedisScriptsTest {
    @Test
    void theEmbeddedSelectScriptIsTheResourceFile() {
        assertEquals(Scripts.SELECT.source(), RedisScripts.SELECT.source());
        assertEquals(Scripts.SELECT.sha1(), RedisScripts.SELECT.sha1());
    }

    @Test
    void theEmbeddedReleaseScriptIsTheResourceFile() {
        assertEquals(Scripts.RELEASE.source(), RedisScripts.RELEASE.source());
    }

    @Test
    void theSha1IsTheLowerCaseHexDigestOfTheSource() {
        assertEquals("a9993e364706816aba3e25717850c26c9cd0d89d", new LuaScript("abc", "abc").sha1());
    }
}
