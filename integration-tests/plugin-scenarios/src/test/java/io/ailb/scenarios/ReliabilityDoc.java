package io.ailb.scenarios;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes one generated section of docs/reliability.md, between {@code <!-- BEGIN name -->} and its END marker. */
final class ReliabilityDoc {
    static final String INTRO = "# Reliability\n\n"
            + "A load balancer in the request path must never be the reason a request fails. This page gives the "
            + "figures behind that claim for the built `.wasm`, each with the command that produces it: the faults it "
            + "survives, fuzzing, and one VM serving a long run of requests.\n";

    private ReliabilityDoc() {}

    /** Replaces the section's text, appending the section (and creating the file) when it is not there yet. */
    static void writeSection(Path file, String name, String text) throws IOException {
        String begin = "<!-- BEGIN " + name + " -->\n";
        String end = "<!-- END " + name + " -->";
        String doc = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : INTRO;
        int from = doc.indexOf(begin);
        int to = doc.indexOf(end);
        String updated = from >= 0 && to > from
                ? doc.substring(0, from + begin.length()) + text + doc.substring(to)
                : doc + (doc.endsWith("\n") ? "\n" : "\n\n") + begin + text + end + "\n";
        Files.writeString(file, updated, StandardCharsets.UTF_8);
    }
}
