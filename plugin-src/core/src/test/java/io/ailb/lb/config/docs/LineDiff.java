package io.ailb.lb.config.docs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A short line-by-line account of how a file differs from its generated form. */
final class LineDiff {
    /** Lines shown at most; the rest is counted. */
    private static final int MAX_LINES = 20;

    private LineDiff() {}

    /** The lines only the file has ({@code -}) and the lines only the generated form has ({@code +}). */
    static String describe(String actual, String expected) {
        List<String> actualLines = new ArrayList<>(Arrays.asList(actual.split("\n", -1)));
        List<String> expectedLines = new ArrayList<>(Arrays.asList(expected.split("\n", -1)));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < actualLines.size(); i++) {
            String line = actualLines.get(i);
            if (!expectedLines.remove(line)) {
                out.add("  line " + (i + 1) + " - " + line);
            }
        }
        List<String> actualCopy = new ArrayList<>(Arrays.asList(actual.split("\n", -1)));
        String[] generated = expected.split("\n", -1);
        for (int i = 0; i < generated.length; i++) {
            if (!actualCopy.remove(generated[i])) {
                out.add("  line " + (i + 1) + " + " + generated[i]);
            }
        }
        if (out.isEmpty()) {
            return "  (same lines, different order or line endings)";
        }
        int hidden = out.size() - MAX_LINES;
        List<String> shown = out.subList(0, Math.min(out.size(), MAX_LINES));
        return String.join("\n", shown) + (hidden > 0 ? "\n  ... and " + hidden + " more lines" : "");
    }
}
