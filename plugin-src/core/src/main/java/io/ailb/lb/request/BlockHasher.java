package io.ailb.lb.request;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.codec.json.ByteSink;
import io.ailb.codec.util.Utf8;
import java.util.Arrays;
import java.util.List;

/**
 * Chains {@link PrefixHash} over prompt blocks: each block has its own digest d_i = H_0(block_i), and the prefix hash
 * is h_1 = H_0(d_1), h_i = H_{h_(i-1)}(d_i), the block's digest keyed by the prefix hash before it. Chaining makes each
 * hash cover the whole prefix in order, so equal blocks never cancel and reordered blocks never collide; chaining the
 * digests rather than the bytes lets blocks be inserted before others without reading those again
 * ({@link #adoptBlocks}). With a chunk size, a block also closes every {@code chunkBytes} bytes, so long prompts share
 * all full chunks of a common prefix.
 *
 * <p>At most {@link RequestParser#MAX_PREFIX_BLOCKS} blocks: once {@code max - 1} are closed, everything else folds
 * into the last block, which closes at {@link #finish()}. Hashing stays one pass and memory stays constant however
 * many messages a body has.
 */
final class BlockHasher implements ByteSink {
    /** The open block's own digest. */
    private final PrefixHash hash = new PrefixHash();
    /** The block's digest keyed by the prefix hash before it. */
    private final PrefixHash link = new PrefixHash();
    /** The open block's hash state at {@link #mark()}, for {@link #rewind()}. */
    private final PrefixHash marked = new PrefixHash();

    private final int chunkBytes;
    private final int maxBlocks;
    private final byte[] scratch = new byte[5];
    /** Apart from {@link #scratch}: a block may close (and chain) in the middle of writing it. */
    private final byte[] digestBytes = new byte[16];
    /** Two words per closed block: the block's own digest; in {@link #prefixHashes}, the prefix hash up to it. */
    private long[] blockDigests = new long[16];

    private long[] prefixHashes = new long[16];
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
        ensureRoom(closed + 1);
        blockDigests[2 * closed] = hash.digestA();
        blockDigests[2 * closed + 1] = hash.digestB();
        textCharsAtClose[closed] = textChars;
        answeredChars[closed] = textChars;
        chain(closed);
        closed++;
        open = false;
        blockBytes = 0;
    }

    private void ensureRoom(int blocks) {
        if (blocks > textCharsAtClose.length) {
            int size = Math.max(blocks, textCharsAtClose.length * 2);
            blockDigests = Arrays.copyOf(blockDigests, 2 * size);
            prefixHashes = Arrays.copyOf(prefixHashes, 2 * size);
            textCharsAtClose = Arrays.copyOf(textCharsAtClose, size);
            answeredChars = Arrays.copyOf(answeredChars, size);
        }
    }

    /** Sets the prefix hash of block {@code i} from its digest and block {@code i - 1}'s prefix hash. */
    private void chain(int i) {
        if (i == 0) {
            link.reset(0, 0);
        } else {
            link.reset(prefixHashes[2 * i - 2], prefixHashes[2 * i - 1]);
        }
        putLong(blockDigests[2 * i], 0);
        putLong(blockDigests[2 * i + 1], 8);
        link.update(digestBytes, 0, 16);
        link.finish();
        prefixHashes[2 * i] = link.digestA();
        prefixHashes[2 * i + 1] = link.digestB();
    }

    private void putLong(long value, int at) {
        for (int i = 0; i < 8; i++) {
            digestBytes[at + i] = (byte) (value >>> (8 * i));
        }
    }

    /**
     * Takes the blocks of {@code other}, a finished hasher over the same prompt without some blocks this one has
     * already closed, from its block {@code from} on: they become this hasher's blocks {@code closedBlocks()} on, their
     * text counts moved by the text this one holds beyond {@code other}'s at that block's start. The answer that
     * followed {@code other}'s block {@code from - 1} now follows this hasher's last closed block, which ends the same
     * prompt there. Nothing may be open here and the cap must not have been reached by either.
     */
    void adoptBlocks(BlockHasher other, int from) {
        int base = closed;
        int textShift = textChars - (from == 0 ? 0 : other.textCharsAtClose[from - 1]);
        if (from > 0 && base > 0) {
            answeredChars[base - 1] += other.answeredChars[from - 1] - other.textCharsAtClose[from - 1];
        }
        ensureRoom(base + other.closed - from);
        for (int i = from; i < other.closed; i++) {
            int to = base + i - from;
            blockDigests[2 * to] = other.blockDigests[2 * i];
            blockDigests[2 * to + 1] = other.blockDigests[2 * i + 1];
            textCharsAtClose[to] = other.textCharsAtClose[i] + textShift;
            answeredChars[to] = other.answeredChars[i] + textShift;
            chain(to);
        }
        closed = base + other.closed - from;
        textChars = other.textChars + textShift;
    }

    /** Remembers the state between pieces, so a message can be hashed again another way ({@link #rewind()}). */
    void mark() {
        markedOpen = open;
        markedClosed = closed;
        markedTextChars = textChars;
        markedBlockBytes = blockBytes;
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

    /** Whether a block is open: bytes written since the last block closed. */
    boolean blockOpen() {
        return open;
    }

    List<String> hashes() {
        String[] hex = new String[closed];
        for (int i = 0; i < closed; i++) {
            hex[i] = PrefixHash.hexOfWords(prefixHashes[2 * i], prefixHashes[2 * i + 1]);
        }
        return Arrays.asList(hex);
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
        hash.reset(0, 0);
    }
}
