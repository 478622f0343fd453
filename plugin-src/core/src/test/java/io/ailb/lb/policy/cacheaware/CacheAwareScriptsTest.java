package io.ailb.lb.policy.cacheaware;

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
class CacheAwareScriptsTest {
    private static final String INFLIGHT = "io/ailb/lb/policy/inflight/";
    private static final String HERE = "io/ailb/lb/policy/cacheaware/";

    @Test
    void theEmbeddedScriptsAreTheAssembledResources() {
        assertEquals(
                LuaResources.script(CacheAwareScriptsTest.class, "cache_aware").source(),
                CacheAwareScripts.CACHE_AWARE.source());
        assertEquals(
                LuaResources.script(CacheAwareScriptsTest.class, "cache_aware_release")
                        .source(),
                CacheAwareScripts.CACHE_AWARE_RELEASE.source());
    }

    @Test
    void theSelectionScriptSharesSelectLuasPartsAndNoIncludeLineIsLeft() {
        TextIncludes.Assembled script = LuaResources.assemble(CacheAwareScriptsTest.class, "cache_aware");
        assertEquals(
                List.of(
                        INFLIGHT + "_selection.lua",
                        INFLIGHT + "_subtract.lua",
                        HERE + "_work_lease.lua",
                        HERE + "_first_token_fit.lua"),
                script.included());
        assertFalse(script.text().contains(LuaResources.INCLUDE_DIRECTIVE), script.text());
    }

    @Test
    void theReleaseScriptSharesReleaseLuasPartsAndNoIncludeLineIsLeft() {
        TextIncludes.Assembled release = LuaResources.assemble(CacheAwareScriptsTest.class, "cache_aware_release");
        assertEquals(
                List.of(INFLIGHT + "_release.lua", INFLIGHT + "_subtract.lua", HERE + "_work_lease.lua"),
                release.included());
        assertFalse(release.text().contains(LuaResources.INCLUDE_DIRECTIVE), release.text());
    }

    @Test
    void redisCompilesEachScriptUnderItsSha1() throws IOException {
        try (TestRedis redis = TestRedis.connect()) {
            for (LuaScript script : List.of(CacheAwareScripts.CACHE_AWARE, CacheAwareScripts.CACHE_AWARE_RELEASE)) {
                assertEquals(
                        script.sha1(),
                        redis.call("SCRIPT", "LOAD", script.source()).asString(),
                        script.name());
            }
        }
    }
}
