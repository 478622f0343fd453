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
 * <p>At most {@link RequestParser#MAX_PREFIX_BLOCKS} blocks: once {@code max - 1} are closed, the blocks after them
 * (the tail) still close where they would without the cap, but only their digests are kept, folded in order into one
 * polynomial ({@code fold = fold * base + digest}, per word, modulo 2^64). At {@link #finish()} the fold is the last
 * block's digest, passed once more through the hash when the tail has more than one block (one block's digest is its
 * own, so a prompt of exactly {@code max} blocks hashes as without a tail). Unlike a digest of the tail's bytes, the
 * fold can take blocks in front of it: {@link #adoptBlocks} moves another reading's blocks into this one's tail when
 * blocks inserted before them push them past the cap, without reading their bytes again. Hashing stays one pass and
 * memory stays constant however many messages a body has.
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
    /** Real blocks closed (at most {@code maxBlocks - 1} before {@link #finish()}, then one more with a tail). */
    private int closed;
    /** The blocks past the cap, folded. */
    private final TailFold tail = new TailFold();
    /** Whether {@link #finish()} made the tail's fold the last block. */
    private boolean tailClosed;

    private boolean open;
    private int blockBytes;
    private boolean text;
    private int textChars;
    private boolean markedOpen;
    private int markedClosed;
    private int markedTextChars;
    private int markedBlockBytes;
    private final TailFold markedTail = new TailFold();

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
            int take = Math.min(length, chunkBytes - blockBytes);
            hash.update(bytes, offset, take);
            if (text) {
                textChars += Utf8.codePoints(bytes, offset, offset + take);
            }
            blockBytes += take;
            offset += take;
            length -= take;
            if (blockBytes == chunkBytes) {
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

    /** Closes the current block if anything was written to it (past the cap, into the tail). */
    void closeBlock() {
        if (!open) {
            return;
        }
        hash.finish();
        open = false;
        blockBytes = 0;
        append(hash.digestA(), hash.digestB(), textChars, textChars);
    }

    /** Closes the last block: the end of the prompt, and the tail's fold becomes a block. */
    void finish() {
        closeBlock();
        if (tail.blocks == 0 || tailClosed) {
            return;
        }
        ensureRoom(closed + 1);
        if (tail.blocks > 1) {
            digest(0, 0, tail.foldA, tail.foldB);
            store(closed, link.digestA(), link.digestB(), textChars, textChars);
        } else {
            store(closed, tail.foldA, tail.foldB, textChars, textChars);
        }
        closed++;
        tailClosed = true;
    }

    /** A block with its own digest {@code (a, b)} ends the prompt so far: a real block below the cap, else tail. */
    private void append(long a, long b, int textAtClose, int answered) {
        if (belowCap()) {
            ensureRoom(closed + 1);
            store(closed, a, b, textAtClose, answered);
            closed++;
            return;
        }
        tail.append(a, b);
    }

    private void store(int i, long a, long b, int textAtClose, int answered) {
        blockDigests[2 * i] = a;
        blockDigests[2 * i + 1] = b;
        textCharsAtClose[i] = textAtClose;
        answeredChars[i] = answered;
        chain(i);
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
        long keyA = i == 0 ? 0 : prefixHashes[2 * i - 2];
        long keyB = i == 0 ? 0 : prefixHashes[2 * i - 1];
        digest(keyA, keyB, blockDigests[2 * i], blockDigests[2 * i + 1]);
        prefixHashes[2 * i] = link.digestA();
        prefixHashes[2 * i + 1] = link.digestB();
    }

    /** Leaves in {@link #link} the digest of the two words {@code (a, b)} keyed by {@code (keyA, keyB)}. */
    private void digest(long keyA, long keyB, long a, long b) {
        link.reset(keyA, keyB);
        putLong(a, 0);
        putLong(b, 8);
        link.update(digestBytes, 0, 16);
        link.finish();
    }

    private void putLong(long value, int at) {
        for (int i = 0; i < 8; i++) {
            digestBytes[at + i] = (byte) (value >>> (8 * i));
        }
    }

    /**
     * Takes the blocks of {@code other}, a finished hasher over the same prompt without some blocks this one has
     * already closed, from its real block {@code from} on: they become this hasher's next blocks (its tail's, past the
     * cap), their text counts moved by the text this one holds beyond {@code other}'s at that block's start, and
     * {@code other}'s tail follows them; this hasher is then finished. The answer that followed {@code other}'s block
     * {@code from - 1} now follows this hasher's last closed block, which ends the same prompt there. Nothing may be
     * open here, and when {@code other} has a tail this hasher must have closed at least {@code from} blocks (so it
     * reaches the cap no later than {@code other} did: a folded tail cannot give back its first blocks).
     */
    void adoptBlocks(BlockHasher other, int from) {
        int textShift = textChars - (from == 0 ? 0 : other.textCharsAtClose[from - 1]);
        // As when writing: an answer counts for the blocks before the last real one only.
        if (from > 0 && closed > 0 && belowCap()) {
            answeredChars[closed - 1] += other.answeredChars[from - 1] - other.textCharsAtClose[from - 1];
        }
        int otherReal = other.tailClosed ? other.closed - 1 : other.closed;
        for (int i = from; i < otherReal; i++) {
            int textAtClose = other.textCharsAtClose[i] + textShift;
            int answered = closed < maxBlocks - 2 ? other.answeredChars[i] + textShift : textAtClose;
            append(other.blockDigests[2 * i], other.blockDigests[2 * i + 1], textAtClose, answered);
        }
        tail.append(other.tail);
        textChars = other.textChars + textShift;
        finish();
    }

    /** Remembers the state between pieces, so a message can be hashed again another way ({@link #rewind()}). */
    void mark() {
        markedOpen = open;
        markedClosed = closed;
        markedTextChars = textChars;
        markedBlockBytes = blockBytes;
        markedTail.copyFrom(tail);
        marked.copyFrom(hash);
    }

    /** Back to the last {@link #mark()}, dropping the blocks that chunks closed since. */
    void rewind() {
        open = markedOpen;
        closed = markedClosed;
        textChars = markedTextChars;
        blockBytes = markedBlockBytes;
        tail.copyFrom(markedTail);
        hash.copyFrom(marked);
    }

    /** Real blocks closed so far (tail blocks are not counted). */
    int closedBlocks() {
        return closed;
    }

    /** Whether blocks have closed past the cap: {@link #closedBlocks()} no longer moves. */
    boolean inTail() {
        return tail.blocks > 0;
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

    /**
     * Block digests folded in order as a polynomial modulo 2^64, one per digest word: {@code fold = fold * base +
     * digest}. The base to the power of the number of blocks is kept so that one fold can be appended to another.
     */
    private static final class TailFold {
        /** Odd, so multiplying by them modulo 2^64 loses no bit. */
        private static final long BASE_A = 0x9E3779B97F4A7C15L;

        private static final long BASE_B = 0xC2B2AE3D27D4EB4FL;

        int blocks;
        long foldA;
        long foldB;
        private long powerA = 1;
        private long powerB = 1;

        void append(long a, long b) {
            foldA = foldA * BASE_A + a;
            foldB = foldB * BASE_B + b;
            powerA *= BASE_A;
            powerB *= BASE_B;
            blocks++;
        }

        /** Folds {@code other}'s blocks after this one's, as if appended one by one. */
        void append(TailFold other) {
            foldA = foldA * other.powerA + other.foldA;
            foldB = foldB * other.powerB + other.foldB;
            powerA *= other.powerA;
            powerB *= other.powerB;
            blocks += other.blocks;
        }

        void copyFrom(TailFold other) {
            blocks = other.blocks;
            foldA = other.foldA;
            foldB = other.foldB;
            powerA = other.powerA;
            powerB = other.powerB;
        }
    }
}
