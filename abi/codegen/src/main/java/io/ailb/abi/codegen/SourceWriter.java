package io.ailb.abi.codegen;

import java.util.ArrayList;
import java.util.List;

/** Builds one Java source text: header, indentation, wrapped Javadoc. */
final class SourceWriter {
    static final String HEADER =
            "// Generated from abi/spec/proxy-wasm-abi.json by io.ailb.abi.codegen.AbiGenerator. Do not edit.";

    private static final int WIDTH = 120;
    private static final String INDENT = "    ";

    private final StringBuilder out = new StringBuilder();
    private int depth;

    SourceWriter(String packageName) {
        line(HEADER);
        line("package " + packageName + ";");
        line();
    }

    SourceWriter line(String text) {
        out.append(INDENT.repeat(depth)).append(text).append('\n');
        return this;
    }

    SourceWriter line() {
        out.append('\n');
        return this;
    }

    /** Writes {@code text {} and indents what follows. */
    SourceWriter open(String text) {
        line(text + " {");
        depth++;
        return this;
    }

    /** Ends the innermost block. */
    SourceWriter close() {
        return close("}");
    }

    /** Ends the innermost block with {@code closing}, e.g. {@code "};"}. */
    SourceWriter close(String closing) {
        depth--;
        return line(closing);
    }

    /**
     * Writes a Javadoc comment from spec text, escaped so it is shown as written; each non-empty paragraph after the
     * first becomes a {@code <p>} paragraph.
     */
    SourceWriter javadoc(String... paragraphs) {
        return comment(true, paragraphs);
    }

    /** Writes a Javadoc comment from the generator's own text, which may use Javadoc markup. */
    SourceWriter javadocMarkup(String... paragraphs) {
        return comment(false, paragraphs);
    }

    private SourceWriter comment(boolean escaped, String... paragraphs) {
        List<String> texts = new ArrayList<>();
        for (String paragraph : paragraphs) {
            if (!paragraph.isEmpty()) {
                texts.add((texts.isEmpty() ? "" : "<p>") + (escaped ? escape(paragraph) : paragraph));
            }
        }
        if (texts.isEmpty()) {
            return this;
        }
        String prefix = INDENT.repeat(depth);
        if (texts.size() == 1 && prefix.length() + texts.get(0).length() + 7 <= WIDTH) {
            return line("/** " + texts.get(0) + " */");
        }
        line("/**");
        for (String text : texts) {
            for (String wrapped : wrap(text, WIDTH - prefix.length() - 3)) {
                line(" * " + wrapped);
            }
        }
        return line(" */");
    }

    @Override
    public String toString() {
        return out.toString();
    }

    /** Keeps spec text from ending the comment, starting a tag or being read as a unicode escape. */
    private static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("*/", "*&#47;")
                .replace("@", "&#64;")
                .replace("\\", "&#92;");
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String word : text.split(" +")) {
            if (current.length() > 0 && current.length() + 1 + word.length() > width) {
                lines.add(current.toString());
                current.setLength(0);
            }
            if (current.length() > 0) {
                current.append(' ');
            }
            current.append(word);
        }
        lines.add(current.toString());
        return lines;
    }
}
