package io.ailb.lb.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A lenient parser of the Prometheus text exposition format (version 0.0.4; the sample lines of OpenMetrics too):
 * {@code name{label="value",...} value [timestamp]}. Comments ({@code # HELP}, {@code # TYPE}, {@code # EOF}) and
 * malformed lines are skipped; timestamps are ignored. A single pass with no regular expressions, no recursion.
 */
public final class PrometheusText {
    private PrometheusText() {}

    /** Every sample of {@code text}. */
    public static MetricFamilies parse(String text) {
        return parse(text, null);
    }

    /** Only the samples whose name is in {@code wanted} (null = all); other lines are skipped after their name. */
    public static MetricFamilies parse(String text, Set<String> wanted) {
        Map<String, List<MetricFamilies.Sample>> byName = new HashMap<>();
        int length = text.length();
        int lineStart = 0;
        while (lineStart < length) {
            int lineEnd = text.indexOf('\n', lineStart);
            if (lineEnd < 0) {
                lineEnd = length;
            }
            parseLine(text, lineStart, lineEnd, wanted, byName);
            lineStart = lineEnd + 1;
        }
        return new MetricFamilies(byName);
    }

    private static void parseLine(
            String text, int start, int end, Set<String> wanted, Map<String, List<MetricFamilies.Sample>> out) {
        int i = skipBlanks(text, start, end);
        if (i >= end || text.charAt(i) == '#') {
            return;
        }
        int nameStart = i;
        while (i < end && isNameChar(text.charAt(i), i == nameStart)) {
            i++;
        }
        if (i == nameStart) {
            return;
        }
        String name = text.substring(nameStart, i);
        if (wanted != null && !wanted.contains(name)) {
            return;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        i = skipBlanks(text, i, end);
        if (i < end && text.charAt(i) == '{') {
            i = parseLabels(text, i + 1, end, labels);
            if (i < 0) {
                return;
            }
        }
        i = skipBlanks(text, i, end);
        int valueStart = i;
        while (i < end && !isBlank(text.charAt(i))) {
            i++;
        }
        double value = parseValue(text.substring(valueStart, i));
        if (value != value && !isNaNLiteral(text.substring(valueStart, i))) {
            return;
        }
        out.computeIfAbsent(name, k -> new ArrayList<>()).add(new MetricFamilies.Sample(labels, value));
    }

    /** Parses {@code a="x",b="y"}} from just after the brace; returns the index after '}' or -1 if malformed. */
    private static int parseLabels(String text, int i, int end, Map<String, String> labels) {
        while (true) {
            i = skipBlanks(text, i, end);
            if (i >= end) {
                return -1;
            }
            if (text.charAt(i) == '}') {
                return i + 1;
            }
            int keyStart = i;
            while (i < end && isNameChar(text.charAt(i), i == keyStart)) {
                i++;
            }
            if (i == keyStart) {
                return -1;
            }
            String key = text.substring(keyStart, i);
            i = skipBlanks(text, i, end);
            if (i >= end || text.charAt(i) != '=') {
                return -1;
            }
            i = skipBlanks(text, i + 1, end);
            if (i >= end || text.charAt(i) != '"') {
                return -1;
            }
            StringBuilder value = new StringBuilder();
            i++;
            while (i < end && text.charAt(i) != '"') {
                char c = text.charAt(i);
                if (c == '\\' && i + 1 < end) {
                    char escaped = text.charAt(++i);
                    value.append(escaped == 'n' ? '\n' : escaped);
                } else {
                    value.append(c);
                }
                i++;
            }
            if (i >= end) {
                return -1;
            }
            labels.put(key, value.toString());
            i = skipBlanks(text, i + 1, end);
            if (i < end && text.charAt(i) == ',') {
                i++;
            }
        }
    }

    /** A float, {@code NaN}, {@code +Inf}/{@code -Inf}/{@code Inf}; NaN for anything unparseable. */
    static double parseValue(String token) {
        switch (token) {
            case "+Inf":
            case "Inf":
            case "+inf":
            case "inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
            case "-inf":
                return Double.NEGATIVE_INFINITY;
            default:
                break;
        }
        if (token.isEmpty() || isNaNLiteral(token)) {
            return Double.NaN;
        }
        // Double.parseDouble also accepts "Infinity", Java suffixes and hex; reject what Prometheus never emits.
        char last = token.charAt(token.length() - 1);
        if (!(last >= '0' && last <= '9') && last != '.') {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(token);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static boolean isNaNLiteral(String token) {
        return token.equals("NaN") || token.equals("nan");
    }

    private static boolean isNameChar(char c, boolean first) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || c == '_'
                || c == ':'
                || (!first && c >= '0' && c <= '9');
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
    }

    private static int skipBlanks(String text, int i, int end) {
        while (i < end && isBlank(text.charAt(i))) {
            i++;
        }
        return i;
    }
}
