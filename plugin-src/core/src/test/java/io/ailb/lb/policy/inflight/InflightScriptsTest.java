package io.ailb.lb.policy.inflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ailb.abi.codegen.TextIncludes;
import io.ailb.lb.redis.LuaResources;
import io.ailb.lb.redis.LuaScript;
import io.ailb.lb.redis.TestRedis;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The embedded scripts are this package's .lua resources assembled from their parts, and Redis compiles them. */
class InflightScriptsTest {
    private static final String HERE = "io/ailb/lb/policy/inflight/";

    @Test
    void theEmbeddedScriptsAreTheAssembledResources() {
        assertEquals(
                LuaResources.script(InflightScriptsTest.class, "select").source(), InflightScripts.SELECT.source());
        assertEquals(
                LuaResources.script(InflightScriptsTest.class, "release").source(), InflightScripts.RELEASE.source());
    }

    @Test
    void selectHoldsTheSelectionPartsOnceAndNoIncludeLine() {
        TextIncludes.Assembled select = LuaResources.assemble(InflightScriptsTest.class, "select");
        assertEquals(List.of(HERE + "_selection.lua", HERE + "_subtract.lua"), select.included());
        assertEquals(1, occurrences(select.text(), "local function subtract("));
        assertFalse(select.text().contains(LuaResources.INCLUDE_DIRECTIVE), select.text());
    }

    @Test
    void releaseHoldsTheReleasePartsOnceAndNoIncludeLine() {
        TextIncludes.Assembled release = LuaResources.assemble(InflightScriptsTest.class, "release");
        assertEquals(List.of(HERE + "_release.lua", HERE + "_subtract.lua"), release.included());
        assertEquals(1, occurrences(release.text(), "local function take_lease("));
        assertFalse(release.text().contains(LuaResources.INCLUDE_DIRECTIVE), release.text());
    }

    @Test
    void redisCompilesEachScriptUnderItsSha1() throws IOException {
        try (TestRedis redis = TestRedis.connect()) {
            for (LuaScript script : List.of(InflightScripts.SELECT, InflightScripts.RELEASE)) {
                assertEquals(
                        script.sha1(),
                        redis.call("SCRIPT", "LOAD", script.source()).asString(),
                        script.name());
            }
        }
    }

    static int occurrences(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }
}
