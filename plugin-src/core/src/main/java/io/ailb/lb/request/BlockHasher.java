package io.ailb.lb.request;

import io.ailb.codec.hash.Sha1;
import io.ailb.codec.json.ByteSink;
import java.util.ArrayList;
import java.util.List;

/**
 * Chains SHA-1 over prompt blocks: h_1 = SHA1(block_1), h_i = SHA1(h_(i-1) ‖ block_i). Chaining makes each hash cover
 * the whole prefix in order, so equal blocks never cancel and reordered blocks never collide. With a chunk size, a
 * block also closes every {@code chunkBytes} bytes, so long prompts share all full chunks of a common prefix.
 */
final class BlockHasher implements ByteSink {
    private final Sha1 sha1 = new Sha1();
    private final int chunkBytes;
    private final List<String> hashes = new ArrayList<>();
    private final List<Integer> textCharsAtClose = new ArrayList<>();
    private final byte[] scratch = new byte[5];
    private byte[] previous;
    private boolean open;
    private int blockBytes;
    private boolean text;
    private int textChars;

    /** {@code chunkBytes} 0 means blocks close only on {@link #closeBlock()}. */
    BlockHasher(int chunkBytes) {
        this.chunkBytes = chunkBytes;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
        while (length > 0) {
            begin();
            int take = chunkBytes == 0 ? length : Math.min(length, chunkBytes - blockBytes);
            sha1.update(bytes, offset, take);
            if (text) {
                countCodePoints(bytes, offset, take);
            }
            blockBytes += take;
            offset += take;
            length -= take;
            if (chunkBytes != 0 && blockBytes == chunkBytes) {
                closeBlock();
            }
        }
    }

    /**
     * While on, the bytes written are prompt text (UTF-8): their code points are counted, so each block knows how
     * much prompt text the prefix up to its end holds ({@link #textCharsAtClose()}).
     */
    void textMode(boolean on) {
        text = on;
    }

    /** Counts UTF-8 lead bytes (every byte that is not a continuation byte 10xxxxxx): one per code point. */
    private void countCodePoints(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if ((bytes[i] & 0xC0) != 0x80) {
                textChars++;
            }
        }
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

    /** Closes the current block if anything was written to it. */
    void closeBlock() {
        if (!open) {
            return;
        }
        previous = sha1.digest();
        hashes.add(Sha1.hex(previous));
        textCharsAtClose.add(textChars);
        open = false;
        blockBytes = 0;
    }

    List<String> hashes() {
        return hashes;
    }

    /** For each closed block, the prompt text code points of blocks 1..i (cumulative, same order as hashes). */
    List<Integer> textCharsAtClose() {
        return textCharsAtClose;
    }

    private void begin() {
        if (open) {
            return;
        }
        open = true;
        if (previous != null) {
            sha1.update(previous, 0, previous.length);
        }
    }
}
