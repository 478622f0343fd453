package io.ailb.sim.report;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code --requests FILE}: every finished request of every router at every rate, one CSV row each, so a run can be
 * examined beyond its percentiles (which requests were slow, where a conversation moved, what a backend served).
 */
public final class RequestsCsv {
    public static final String HEADER =
            "rate,router,request,session,backend,arrival_ms,ttft_ms,e2e_ms,input_tokens,cached_tokens,output_tokens";

    private RequestsCsv() {}

    public static void write(Path file, List<SweepTable.Point> points) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write(HEADER);
            out.write('\n');
            for (SweepTable.Point point : points) {
                for (RunResult result : point.results()) {
                    String prefix = field(point.label()) + "," + field(result.router()) + ",";
                    for (RunResult.RequestRecord r : result.records()) {
                        out.write(prefix);
                        out.write(String.format(
                                Locale.ROOT,
                                "%d,%s,%d,%.3f,%.3f,%.3f,%d,%d,%d%n",
                                r.id(),
                                r.sessionId() == null ? "" : field(r.sessionId()),
                                r.backend(),
                                r.arrivalMs(),
                                r.ttftMs(),
                                r.e2eMs(),
                                r.inputTokens(),
                                r.cachedTokens(),
                                r.outputTokens()));
                    }
                }
            }
        }
    }

    /** RFC 4180: a value with a comma, quote or line break is quoted, its quotes doubled. */
    static String field(String value) {
        if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\n') < 0 && value.indexOf('\r') < 0) {
            return value;
        }
        return "\"" + value.replace("\"", "\"\"") + "\"";
    }
}
