package io.ailb.lb.redis;

import io.ailb.codec.hash.Sha1;
import java.nio.charset.StandardCharsets;

/** A Lua script with its SHA-1, the id Redis caches it under ({@code SCRIPT LOAD}, {@code EVALSHA}). */
public final class LuaScript {
    private final String name;
    private final String source;
    private final String sha1;

    public LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha1 = Sha1.hex(Sha1.digest(source.getBytes(StandardCharsets.UTF_8)));
    }

    public String name() {
        return name;
    }

    public String source() {
        return source;
    }

    /** Lower-case hex, as {@code SCRIPT LOAD} returns it. */
    public String sha1() {
        return sha1;
    }

    @Override
    public String toString() {
        return "LuaScript{" + name + ", sha1=" + sha1 + "}";
    }
}
