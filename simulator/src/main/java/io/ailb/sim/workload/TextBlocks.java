package io.ailb.sim.workload;

import java.util.ArrayList;
import java.util.List;

/** Deterministic text and ids: the same id always gives the same text, different ids give different texts. */
public final class TextBlocks {
    /** Characters per token assumed when turning token counts into text and back. */
    public static final int CHARS_PER_TOKEN = 4;

    private static final String LETTERS = "etaoinshrdlcumwfgypbvkjxqz";

    private TextBlocks() {}

    /** SplitMix64's finaliser: a well-mixed 64-bit function of {@code x}. */
    public static long mix(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    public static long mix(long a, long b) {
        return mix(a * 31 + mix(b));
    }

    /** 64-bit FNV-1a of a string, mixed. */
    public static long hash(String text) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            h ^= text.charAt(i);
            h *= 0x100000001b3L;
        }
        return mix(h);
    }

    /**
     * About {@code chars} characters of lowercase pseudo-words derived from {@code id} (JSON-safe: letters, digits
     * and spaces only), starting with the id itself so that different ids never give equal text.
     */
    public static String text(long id, int chars) {
        StringBuilder out = new StringBuilder(chars + 16);
        out.append("b").append(Long.toHexString(id)).append(' ');
        long state = mix(id ^ 0x5DEECE66DL);
        while (out.length() < chars) {
            state = mix(state);
            int len = 2 + (int) ((state >>> 60) & 7);
            long bits = state;
            for (int i = 0; i < len; i++) {
                out.append(LETTERS.charAt((int) Long.remainderUnsigned(bits, LETTERS.length())));
                bits = Long.divideUnsigned(bits, LETTERS.length());
            }
            out.append(' ');
        }
        out.setLength(Math.max(1, chars));
        return out.toString();
    }

    /** A piece of a prompt with its own identity, {@code tokens} long. */
    public record Segment(long id, int tokens) {}

    /**
     * Prefix-chained ids of the {@code blockTokens}-token blocks of a prompt made of {@code segments}: block i's id
     * depends on every token before and in it, so equal ids mean equal prefixes (the last block may be partial and
     * then has an id of its own).
     */
    public static List<Long> chainIds(List<Segment> segments, int blockTokens) {
        List<Long> ids = new ArrayList<>();
        long chain = 0x1234567L;
        int filled = 0;
        boolean open = false;
        for (Segment s : segments) {
            int offset = 0;
            while (offset < s.tokens()) {
                int take = Math.min(blockTokens - filled, s.tokens() - offset);
                chain = mix(mix(chain, s.id()), ((long) offset << 32) | take);
                offset += take;
                filled += take;
                open = true;
                if (filled == blockTokens) {
                    ids.add(chain);
                    filled = 0;
                    open = false;
                }
            }
        }
        if (open) {
            ids.add(mix(chain, 0xFFL));
        }
        return ids;
    }
}
