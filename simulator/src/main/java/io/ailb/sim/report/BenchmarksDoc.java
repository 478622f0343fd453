package io.ailb.sim.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * docs/benchmarks.md is written by several benchmark commands; each owns one section between
 * {@code <!-- BEGIN name -->} and {@code <!-- END name -->} and replaces only that, so running one command never
 * erases the others' numbers.
 */
public final class BenchmarksDoc {
    private BenchmarksDoc() {}

    public static void replaceSection(Path doc, String name, String markdown) throws IOException {
        String begin = "<!-- BEGIN " + name + " -->";
        String end = "<!-- END " + name + " -->";
        String block = begin + "\n" + markdown.strip() + "\n" + end;
        String text = Files.exists(doc)
                ? Files.readString(doc, StandardCharsets.UTF_8)
                : "# Benchmarks\n\nEach section is rewritten by the command named in it; numbers are from one run on"
                        + " the machine stated there. Compare ratios within a section, not absolute times across runs.\n";
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        String updated;
        if (from >= 0 && to > from) {
            updated = text.substring(0, from) + block + text.substring(to + end.length());
        } else {
            updated = text.stripTrailing() + "\n\n" + block + "\n";
        }
        Files.createDirectories(doc.toAbsolutePath().getParent());
        Files.writeString(doc, updated, StandardCharsets.UTF_8);
    }
}
