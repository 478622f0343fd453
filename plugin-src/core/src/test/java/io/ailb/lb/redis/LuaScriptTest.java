package io.ailb.lb.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LuaScriptTest {
    @Test
    void theSha1IsTheLowerCaseHexDigestOfTheSource() {
        assertEquals("a9993e364706816aba3e25717850c26c9cd0d89d", new LuaScript("abc", "abc").sha1());
    }
}
