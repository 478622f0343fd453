package io.ailb.abi.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class OutputDirectoryTest {
    @TempDir
    Path root;

    @Test
    void unchangedFilesAreNotRewritten() throws Exception {
        List<GeneratedFile> files = List.of(new GeneratedFile("p/A.java", "class A {}\n"));
        assertEquals(1, OutputDirectory.sync(root, "p", files));
        Path a = root.resolve("p/A.java");
        FileTime old = FileTime.fromMillis(1_000_000L);
        Files.setLastModifiedTime(a, old);

        assertEquals(0, OutputDirectory.sync(root, "p", files));
        assertEquals(old, Files.getLastModifiedTime(a));
    }

    @Test
    void changedFilesAreRewritten() throws Exception {
        OutputDirectory.sync(root, "p", List.of(new GeneratedFile("p/A.java", "class A {}\n")));

        assertEquals(1, OutputDirectory.sync(root, "p", List.of(new GeneratedFile("p/A.java", "class A { }\n"))));
        assertEquals("class A { }\n", Files.readString(root.resolve("p/A.java")));
    }

    @Test
    void staleSourcesOfThePackageAreDeletedAndOtherFilesKept() throws Exception {
        Files.createDirectories(root.resolve("p"));
        Files.writeString(root.resolve("p/Old.java"), "class Old {}\n");
        Files.writeString(root.resolve("p/notes.txt"), "kept");

        OutputDirectory.sync(root, "p", List.of(new GeneratedFile("p/A.java", "class A {}\n")));

        assertFalse(Files.exists(root.resolve("p/Old.java")));
        assertTrue(Files.exists(root.resolve("p/notes.txt")));
        assertTrue(Files.exists(root.resolve("p/A.java")));
    }
}
