package io.ailb.lb.config.docs;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The generated parts of a hand-written text file: the lines between a marker line {@code BEGIN GENERATED: <id>} and
 * the next marker line {@code END GENERATED}. A marker line is a comment, YAML ({@code # ...}) or HTML
 * ({@code <!-- ... -->}), and is hand-written: it stays as it is, and may add a remark in parentheses after the id.
 */
final class GeneratedRegions {
    private static final String BEGIN = "BEGIN GENERATED: ";
    private static final String END = "END GENERATED";

    private GeneratedRegions() {}

    /** Region id → its current body (whole lines, each ending in a newline), in file order. */
    static Map<String, String> read(String text) {
        Map<String, String> regions = new LinkedHashMap<>();
        String id = null;
        StringBuilder body = null;
        for (String line : text.split("\n", -1)) {
            if (isBegin(line)) {
                if (id != null) {
                    throw new IllegalArgumentException("region \"" + id + "\" has no " + END + " line");
                }
                id = idOf(line);
                body = new StringBuilder();
            } else if (isEnd(line)) {
                if (id == null) {
                    throw new IllegalArgumentException(END + " without a BEGIN line");
                }
                if (regions.put(id, body.toString()) != null) {
                    throw new IllegalArgumentException("region \"" + id + "\" appears twice");
                }
                id = null;
            } else if (id != null) {
                body.append(line).append('\n');
            }
        }
        if (id != null) {
            throw new IllegalArgumentException("region \"" + id + "\" has no " + END + " line");
        }
        return regions;
    }

    /** {@code text} with the body of every region in {@code bodies} replaced; other regions stay as they are. */
    static String replace(String text, Map<String, String> bodies) {
        StringBuilder out = new StringBuilder();
        String[] lines = text.split("\n", -1);
        boolean skipping = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            boolean last = i == lines.length - 1;
            if (isBegin(line) && bodies.containsKey(idOf(line))) {
                out.append(line).append('\n').append(bodies.get(idOf(line)));
                skipping = true;
                continue;
            }
            if (skipping && !isEnd(line)) {
                continue;
            }
            skipping = false;
            out.append(line);
            if (!last) {
                out.append('\n');
            }
        }
        return out.toString();
    }

    private static boolean isBegin(String line) {
        return comment(line).startsWith(BEGIN);
    }

    private static boolean isEnd(String line) {
        return comment(line).startsWith(END);
    }

    /** The text of a comment line after its opening ({@code #} or {@code <!--}), else "". */
    private static String comment(String line) {
        String trimmed = line.trim();
        for (String open : new String[] {"#", "<!--"}) {
            if (trimmed.startsWith(open)) {
                return trimmed.substring(open.length()).trim();
            }
        }
        return "";
    }

    /** The id after {@code BEGIN GENERATED: }, up to a remark in parentheses or an HTML comment's end. */
    private static String idOf(String line) {
        String id = line.substring(line.indexOf(BEGIN) + BEGIN.length());
        for (String end : new String[] {" (", "-->"}) {
            int at = id.indexOf(end);
            id = at < 0 ? id : id.substring(0, at);
        }
        return id.trim();
    }
}
