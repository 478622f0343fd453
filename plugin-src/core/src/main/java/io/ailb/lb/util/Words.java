package io.ailb.lb.util;

import java.util.ArrayList;
import java.util.List;

/** Cutting text into parts without String.split, which would bring java.util.regex into the module (≈ 300 KB). */
public final class Words {
    private Words() {}

    /** The parts of {@code text} between {@code separator}s, empty ones included (one part for text without any). */
    public static List<String> split(String text, char separator) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == separator) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        return parts;
    }
}
