package io.ailb.lb.request;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class BlockHasherTest {
    private static final int CAP = 4;

    /** A hasher of block cap {@code cap} fed one block per text, unfinished. */
    private static BlockHasher write(int cap, String... blocks) {
        BlockHasher hasher = new BlockHasher(0, cap);
        for (String block : blocks) {
            writeBlock(hasher, block);
        }
        return hasher;
    }

    private static void writeBlock(BlockHasher hasher, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        hasher.textMode(true);
        hasher.write(bytes, 0, bytes.length);
        hasher.textMode(false);
        hasher.closeBlock();
    }

    private static BlockHasher finished(int cap, String... blocks) {
        BlockHasher hasher = write(cap, blocks);
        hasher.finish();
        return hasher;
    }

    @Test
    void aPromptOfExactlyTheCapHashesAsWithoutIt() {
        List<String> capped = finished(CAP, "a", "b", "c", "d").hashes();
        List<String> uncapped = finished(CAP + 10, "a", "b", "c", "d").hashes();
        assertEquals(uncapped, capped);
    }

    @Test
    void theLastBlockCoversEveryTailBlockInOrder() {
        List<String> tail = finished(CAP, "a", "b", "c", "d", "e", "f").hashes();
        assertEquals(CAP, tail.size());
        assertEquals(finished(CAP, "a", "b", "c", "x").hashes().subList(0, CAP - 1), tail.subList(0, CAP - 1));
        assertEquals(tail, finished(CAP, "a", "b", "c", "d", "e", "f").hashes());
        assertNotEquals(
                tail.get(CAP - 1),
                finished(CAP, "a", "b", "c", "d", "f", "e").hashes().get(CAP - 1));
        assertNotEquals(
                tail.get(CAP - 1),
                finished(CAP, "a", "b", "c", "d", "e").hashes().get(CAP - 1));
        assertNotEquals(
                tail.get(CAP - 1), finished(CAP, "a", "b", "c", "def").hashes().get(CAP - 1));
    }

    @Test
    void blocksTakenOverPastTheCapFoldAsIfWrittenThere() {
        String[] rest = {"b", "c", "d", "e", "f", "g"};
        BlockHasher firstReading = finished(CAP, concat(new String[] {"a"}, rest));
        for (int inserted = 1; inserted <= CAP + 1; inserted++) {
            String[] insertion = new String[inserted];
            for (int i = 0; i < inserted; i++) {
                insertion[i] = "tools " + i;
            }
            BlockHasher direct = finished(CAP, concat(concat(new String[] {"a"}, insertion), rest));
            BlockHasher second = write(CAP, concat(new String[] {"a"}, insertion));
            second.adoptBlocks(firstReading, 1);
            String where = inserted + " blocks inserted";
            assertEquals(direct.hashes(), second.hashes(), where);
            assertArrayEquals(direct.textCharsAtClose(), second.textCharsAtClose(), where);
            assertArrayEquals(direct.answeredCharsAtClose(), second.answeredCharsAtClose(), where);
            assertEquals(direct.textChars(), second.textChars(), where);
        }
    }

    @Test
    void aRewindPastTheCapDropsTheTailBlocksClosedSince() {
        BlockHasher hasher = write(CAP, "a", "b", "c", "d");
        hasher.mark();
        writeBlock(hasher, "e");
        writeBlock(hasher, "f");
        hasher.rewind();
        writeBlock(hasher, "g");
        hasher.finish();
        assertEquals(finished(CAP, "a", "b", "c", "d", "g").hashes(), hasher.hashes());
    }

    private static String[] concat(String[] a, String[] b) {
        String[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
