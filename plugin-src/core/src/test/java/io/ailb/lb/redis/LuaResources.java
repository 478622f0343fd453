package io.ailb.lb.redis;

import io.ailb.abi.codegen.EmbedText;
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
    /** The comment marker whose lines the build leaves out of the embedded scripts (plugin-src/core/pom.xml). */
    public static final String COMMENT_MARKER = "--";

    private LuaResources() {}

    /** {@code <name>.lua} of {@code owner}'s package, assembled without comments as the build embeds it. */
    public static LuaScript script(Class<?> owner, String name) {
        return new LuaScript(
                name, EmbedText.withoutLineComments(assemble(owner, name).text(), COMMENT_MARKER));
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
