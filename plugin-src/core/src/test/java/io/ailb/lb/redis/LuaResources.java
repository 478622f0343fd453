package io.ailb.lb.redis;

import io.ailb.abi.codegen.TextIncludes;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The Lua scripts assembled from the resources as the build does (EmbedText with the include directive that
 * plugin-src/core/pom.xml passes), for tests that run the sources rather than the embedded constants.
 */
public final class LuaResources {
    /** The include directive of the core's Lua sources. */
    public static final String INCLUDE_DIRECTIVE = "--#include";

    private LuaResources() {}

    /** {@code <name>.lua} of {@code owner}'s package, assembled, as a script called {@code name}. */
    public static LuaScript script(Class<?> owner, String name) {
        return new LuaScript(name, assemble(owner, name).text());
    }

    /** {@code <name>.lua} of {@code owner}'s package, assembled, with the files it included. */
    public static TextIncludes.Assembled assemble(Class<?> owner, String name) {
        String path = owner.getPackageName().replace('.', '/') + "/" + name + ".lua";
        try {
            return new TextIncludes(INCLUDE_DIRECTIVE, TextIncludes.classpath(owner.getClassLoader())).assemble(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
