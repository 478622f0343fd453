package io.ailb.abi.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class TextIncludesTest {
    private static final String DIRECTIVE = "--#include";

    @TempDir
    Path root;

    private void file(String path, String text) throws IOException {
        Path target = root.resolve(path);
        Files.createDirectories(target.getParent());
        Files.writeString(target, text);
    }

    private TextIncludes.Assembled assemble(String path) throws IOException {
        return new TextIncludes(DIRECTIVE, TextIncludes.directory(root)).assemble(path);
    }

    private String failure(String path) {
        return assertThrows(IllegalArgumentException.class, () -> assemble(path))
                .getMessage();
    }

    @Test
    void aFileWithoutIncludesIsItsOwnText() throws IOException {
        file("p/a.lua", "local x = 1\n-- #include is only a comment here\nreturn x");
        TextIncludes.Assembled a = assemble("p/a.lua");
        assertEquals("local x = 1\n-- #include is only a comment here\nreturn x", a.text());
        assertEquals(List.of(), a.included());
    }

    @Test
    void anIncludeLineIsReplacedByTheFileItNamesRelativeToTheIncludingFile() throws IOException {
        file("p/q/a.lua", "-- a\n--#include \"../shared/_s.lua\"\nreturn f()\n");
        file("p/shared/_s.lua", "--#include \"_t.lua\"\nlocal function f() return t end\n");
        file("p/shared/_t.lua", "local t = 2");
        TextIncludes.Assembled a = assemble("p/q/a.lua");
        assertEquals("-- a\nlocal t = 2\nlocal function f() return t end\nreturn f()\n", a.text());
        assertEquals(List.of("p/shared/_s.lua", "p/shared/_t.lua"), a.included());
    }

    @Test
    void theSameSourcesAlwaysAssembleToTheSameText() throws IOException {
        file("p/a.lua", "--#include \"_s.lua\"\nx()\n");
        file("p/_s.lua", "local function x() end\n");
        assertEquals(assemble("p/a.lua").text(), assemble("p/a.lua").text());
    }

    @Test
    void aMissingIncludeNamesTheIncludingFileAndLine() throws IOException {
        file("p/a.lua", "-- one\n-- two\n--#include \"_gone.lua\"\n");
        assertEquals("p/a.lua:3: cannot include p/_gone.lua: no such file", failure("p/a.lua"));
    }

    @Test
    void aMissingIncludeInsideAnIncludedFileNamesThatFile() throws IOException {
        file("p/a.lua", "--#include \"_s.lua\"\n");
        file("p/_s.lua", "local s\n--#include \"_gone.lua\"\n");
        assertEquals("p/_s.lua:2: cannot include p/_gone.lua: no such file", failure("p/a.lua"));
    }

    @Test
    void anIncludeCycleIsRejectedWithItsChain() throws IOException {
        file("p/a.lua", "--#include \"_b.lua\"\n");
        file("p/_b.lua", "--#include \"_c.lua\"\n");
        file("p/_c.lua", "\n--#include \"_b.lua\"\n");
        assertEquals("p/_c.lua:2: include cycle: p/a.lua -> p/_b.lua -> p/_c.lua -> p/_b.lua", failure("p/a.lua"));
    }

    @Test
    void aFileIncludingItselfIsACycle() throws IOException {
        file("p/a.lua", "--#include \"./a.lua\"\n");
        assertEquals("p/a.lua:1: include cycle: p/a.lua -> p/a.lua", failure("p/a.lua"));
    }

    @Test
    void aFileIsIncludedAtMostOnce() throws IOException {
        file("p/a.lua", "--#include \"_b.lua\"\n--#include \"_c.lua\"\n");
        file("p/_b.lua", "--#include \"_c.lua\"\n");
        file("p/_c.lua", "local c\n");
        assertEquals("p/a.lua:2: p/_c.lua is already included (a file is included at most once)", failure("p/a.lua"));
    }

    @Test
    void aMalformedIncludeLineIsRejected() throws IOException {
        file("p/a.lua", "--#include _b.lua\n");
        assertEquals(
                "p/a.lua:1: malformed include, expected --#include \"relative/path\": --#include _b.lua",
                failure("p/a.lua"));
    }

    @Test
    void anIncludeMayNotLeaveTheRoot() throws IOException {
        file("p/a.lua", "--#include \"../../outside.lua\"\n");
        assertEquals("p/a.lua:1: include leaves the source root: ../../outside.lua", failure("p/a.lua"));
    }

    @Test
    void anAbsoluteIncludeIsRejected() throws IOException {
        file("p/a.lua", "--#include \"/etc/passwd\"\n");
        assertEquals("p/a.lua:1: include paths are relative, with /: /etc/passwd", failure("p/a.lua"));
    }

    @Test
    void theAssembledFileMustExist() {
        assertEquals("p/none.lua: no such file", failure("p/none.lua"));
    }

    @Test
    void classPathResourcesAssembleLikeFiles() throws IOException {
        file("p/a.lua", "--#include \"_s.lua\"\nreturn 1\n");
        file("p/_s.lua", "local s = 0\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {root.toUri().toURL()}, null)) {
            TextIncludes.Assembled a = new TextIncludes(DIRECTIVE, TextIncludes.classpath(loader)).assemble("p/a.lua");
            assertEquals(assemble("p/a.lua"), a);
            assertEquals("local s = 0\nreturn 1\n", a.text());
        }
    }
}
