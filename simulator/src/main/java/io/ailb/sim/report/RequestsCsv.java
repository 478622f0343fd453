package io.ailb.sim.report;

import io.ailb.sim.bounds.TtftLowerBound;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code --requests FILE}: every finished request of every router at every rate, one CSV row each, so a run can be
 * examined beyond its percentiles (which requests were slow, where a conversation moved, what a backend served).
 * Each row also carries the request's own lower bound ({@link TtftLowerBound}: its infinite-cache hit and its TTFT
 * alone on an idle instance holding it), so a router's excess splits into cache it missed and time it queued; both
 * are empty where instances differ in speed (services), which have no single lone TTFT.
 */
public final class RequestsCsv {
    public static final String HEADER =
            "rate,router,request,session,backend,arrival_ms,ttft_ms,e2e_ms,input_tokens,cached_tokens,output_tokens,"
                    + "bound_cached_tokens,bound_ttft_ms";

    private RequestsCsv() {}

    /**
     * {@code bounds} holds, per point, the bounds by request id, or is null when there are none (services).
     */
    public static void write(Path file, List<SweepTable.Point> points, List<Map<Long, TtftLowerBound.Bound>> bounds)
            throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write(HEADER);
            out.write('\n');
            for (int p = 0; p < points.size(); p++) {
                SweepTable.Point point = points.get(p);
                Map<Long, TtftLowerBound.Bound> pointBounds = bounds == null ? Map.of() : bounds.get(p);
                for (RunResult result : point.results()) {
                    String prefix = field(point.label()) + "," + field(result.router()) + ",";
                    for (RunResult.RequestRecord r : result.records()) {
                        TtftLowerBound.Bound bound = pointBounds.get(r.id());
                        out.write(prefix);
                        out.write(String.format(
                                Locale.ROOT,
                                "%d,%s,%d,%.3f,%.3f,%.3f,%d,%d,%d,%s,%s%n",
                                r.id(),
                                r.sessionId() == null ? "" : field(r.sessionId()),
                                r.backend(),
                                r.arrivalMs(),
                                r.ttftMs(),
                                r.e2eMs(),
                                r.inputTokens(),
                                r.cachedTokens(),
                                r.outputTokens(),
                                bound == null ? "" : Long.toString(bound.cachedTokens()),
                                bound == null ? "" : String.format(Locale.ROOT, "%.3f", bound.ttftMs())));
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
