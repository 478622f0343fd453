package io.ailb.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TarTest {

    @Test
    void entriesReadBackWithFixedOwnerModesAndTime() {
        byte[] file = "hello\n".getBytes(StandardCharsets.US_ASCII);
        byte[] block = new byte[512];
        byte[] tar = Tar.archive(
                List.of(Tar.Entry.directory("blobs"), Tar.Entry.file("blobs/a.txt", file), Tar.Entry.file("b", block)));

        List<Archives.Entry> entries = Archives.untar(tar);

        assertEquals(
                List.of("blobs/", "blobs/a.txt", "b"),
                entries.stream().map(Archives.Entry::name).toList());
        Archives.Entry directory = entries.get(0);
        assertTrue(directory.directory());
        assertEquals(0755, directory.mode());
        for (Archives.Entry entry : entries) {
            assertEquals(0, entry.uid(), entry.name());
            assertEquals(0, entry.gid(), entry.name());
            assertEquals(0, entry.mtimeMillis(), entry.name());
        }
        assertEquals(0644, entries.get(1).mode());
        assertArrayEquals(file, entries.get(1).content());
        assertArrayEquals(block, entries.get(2).content());
        // a header per entry, each file's content padded to whole blocks, two zero blocks at the end
        assertEquals(512 + (512 + 512) + (512 + 512) + 1024, tar.length);
    }

    @Test
    void theSameEntriesGiveTheSameBytes() {
        List<Tar.Entry> entries = List.of(Tar.Entry.file("x", new byte[] {1, 2, 3}));

        assertArrayEquals(Tar.archive(entries), Tar.archive(entries));
    }

    @Test
    void aNameUstarCannotHoldIsRefused() {
        assertThrows(
                IllegalArgumentException.class,
                () -> Tar.archive(List.of(Tar.Entry.file("a".repeat(101), new byte[0]))));
        assertThrows(IllegalArgumentException.class, () -> Tar.archive(List.of(Tar.Entry.file("é", new byte[0]))));
    }
}
