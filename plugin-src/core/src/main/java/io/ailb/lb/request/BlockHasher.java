package io.ailb.lb.request;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.codec.json.ByteSink;
import io.ailb.codec.util.Utf8;
import java.util.Arrays;
import java.util.List;

/**
 * Chains {@link PrefixHash} over prompt blocks: h_1 = H_0(block_1), h_i = H_{h_(i-1)}(block_i), the hash of block i
 * keyed by the digest of block i-1. Chaining makes each hash cover the whole prefix in order, so equal blocks never
 * cancel and reordered blocks never collide. With a chunk size, a block also closes every {@code chunkBytes} bytes, so
 * long prompts share all full chunks of a common prefix.
 *
 * <p>At most {@link RequestParser#MAX_PREFIX_BLOCKS} blocks: once {@code max - 1} are closed, everything else folds
 * into the last block, which closes at {@link #finish()}. Hashing stays one pass and memory stays constant however
 * many messages a body has.
 */
final class BlockHasher implements ByteSink {
    private final PrefixHash hash = new PrefixHash();
    /** The hash state at {@link #mark()}, for {@link #rewind()}. */
    private final PrefixHash marked = new PrefixHash();

    private final int chunkBytes;
    private final int maxBlocks;
    private final byte[] scratch = new byte[5];
    private String[] hashes = new String[8];
    private int[] textCharsAtClose = new int[8];
    private int[] answeredChars = new int[8];
    private int closed;
    private boolean open;
    private int blockBytes;
    private boolean text;
    private int textChars;
    private boolean markedOpen;
    private int markedClosed;
    private int markedTextChars;
    private int markedBlockBytes;

    /** {@code chunkBytes} 0 means blocks close only on {@link #closeBlock()}. */
    BlockHasher(int chunkBytes, int maxBlocks) {
        this.chunkBytes = chunkBytes;
        this.maxBlocks = maxBlocks;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
        if (chunkBytes == 0) {
            begin();
            hash.update(bytes, offset, length);
            if (text) {
                textChars += Utf8.codePoints(bytes, offset, offset + length);
            }
            return;
        }
        while (length > 0) {
            begin();
            // The last block the cap allows has no chunk end: it takes the rest.
            boolean last = closed == maxBlocks - 1;
            int take = last ? length : Math.min(length, chunkBytes - blockBytes);
            hash.update(bytes, offset, take);
            if (text) {
                textChars += Utf8.codePoints(bytes, offset, offset + take);
            }
            blockBytes += take;
            offset += take;
            length -= take;
            if (!last && blockBytes == chunkBytes) {
                closeBlock();
            }
        }
    }

    /**
     * While on, the bytes written are prompt text (UTF-8): their code points are counted, so each block knows how
     * much prompt text the prefix up to its end holds ({@link #textCharsAtClose()}). Counted per write, not per
     * string: a chunked block may close in the middle of a string.
     */
    void textMode(boolean on) {
        text = on;
    }

    /** Prompt text code points written so far. */
    int textChars() {
        return textChars;
    }

    /** Starts a piece: its one-byte tag. */
    void tag(byte tag) {
        scratch[0] = tag;
        write(scratch, 0, 1);
    }

    /**
     * Ends a piece with its byte length, big-endian. With the tag in front, pieces read back unambiguously from the
     * end, so "a"+"bc" and "ab"+"c" differ without knowing a length before streaming the bytes.
     */
    void length(long length) {
        scratch[0] = (byte) (length >>> 24);
        scratch[1] = (byte) (length >>> 16);
        scratch[2] = (byte) (length >>> 8);
        scratch[3] = (byte) length;
        write(scratch, 0, 4);
    }

    /** Closes the current block if anything was written to it, unless it is the last one the cap allows. */
    void closeBlock() {
        if (closed < maxBlocks - 1) {
            close();
        }
    }

    /** Closes the last block: the end of the prompt. */
    void finish() {
        close();
    }

    private void close() {
        if (!open) {
            return;
        }
        hash.finish();
        if (closed == hashes.length) {
            hashes = Arrays.copyOf(hashes, closed * 2);
            textCharsAtClose = Arrays.copyOf(textCharsAtClose, closed * 2);
            answeredChars = Arrays.copyOf(answeredChars, closed * 2);
        }
        hashes[closed] = hash.hex();
        textCharsAtClose[closed] = textChars;
        answeredChars[closed] = textChars;
        closed++;
        open = false;
        blockBytes = 0;
    }

    /** Remembers the state between pieces, so a message can be hashed again another way ({@link #rewind()}). */
    void mark() {
        markedOpen = open;
        markedClosed = closed;
        markedTextChars = textChars;
        markedBlockBytes = blockBytes;
        // Also when no block is open: the state then holds the digest the next block is keyed by.
        marked.copyFrom(hash);
    }

    /** Back to the last {@link #mark()}, dropping the blocks that chunks closed since. */
    void rewind() {
        open = markedOpen;
        closed = markedClosed;
        textChars = markedTextChars;
        blockBytes = markedBlockBytes;
        hash.copyFrom(marked);
    }

    /** Blocks closed so far. */
    int closedBlocks() {
        return closed;
    }

    /** Whether another block can still close before the cap folds the rest into the last one. */
    boolean belowCap() {
        return closed < maxBlocks - 1;
    }

    /**
     * The text written since closed block {@code block} is the answer to a prompt that ended there (assistant
     * messages right after it): {@link #answeredCharsAtClose()} counts it for that block.
     */
    void answerFollows(int block) {
        answeredChars[block] = textChars;
    }

    List<String> hashes() {
        return Arrays.asList(hashes).subList(0, closed);
    }

    /** For each closed block, the prompt text code points of blocks 1..i (cumulative, same order as hashes). */
    int[] textCharsAtClose() {
        return Arrays.copyOf(textCharsAtClose, closed);
    }

    /**
     * For each closed block, {@link #textCharsAtClose()} plus the text of the assistant messages that directly follow
     * it: what an engine that served a prompt ending at that block holds once it has answered.
     */
    int[] answeredCharsAtClose() {
        return Arrays.copyOf(answeredChars, closed);
    }

    private void begin() {
        if (open) {
            return;
        }
        open = true;
        if (closed == 0) {
            hash.reset(0, 0);
        } else {
            hash.reset(hash.digestA(), hash.digestB());
        }
    }
}
