package io.ailb.sim.report;

import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.bounds.TtftLowerBound;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * {@code --requests FILE}: every finished request of every router at every rate, one CSV row each, so a run can be
 * examined beyond its percentiles (which requests were slow, where a conversation moved, what a backend served).
 * Each row also carries the request's TTFT alone on an idle instance holding what its instance had cached, and its
 * own lower bound ({@link TtftLowerBound}: its infinite-cache hit and its TTFT alone holding that), so a router's
 * excess over the bound splits into cache it missed (lone − bound) and time it queued (TTFT − lone); the three are
 * empty where instances differ in speed (services), which have no single lone TTFT. The last column, where the router
 * says, is the tokens it counted as cached on the backend it chose (the plugin: its decision's {@code matched_tokens}):
 * above {@code cached_tokens}, the router counted on a prefix the instance no longer had. Then the id of the earlier
 * request it continues ({@link io.ailb.sim.workload.Workload#previousTurns()}), empty for a request that continues none,
 * so a script can tell where a conversation's cache went without its own notion of a conversation. Last, the
 * request's lookahead regret: how much later the lookahead reference, knowing every queue and cache, expected its first
 * token on the chosen instance than on the best one when it arrived (0: the choice it would have made; empty for
 * services); a router's mean regret is what its choices cost by that estimate, request by request.
 */
public final class RequestsCsv {
    public static final String HEADER =
            "rate,router,request,session,backend,arrival_ms,ttft_ms,e2e_ms,input_tokens,cached_tokens,output_tokens,"
                    + "lone_ttft_ms,bound_cached_tokens,bound_ttft_ms,counted_cached_tokens,continues,"
                    + "lookahead_regret_ms";

    private RequestsCsv() {}

    /**
     * What the rows' last three columns come from: per point, each request's bound by request id, and the
     * configuration every instance runs. {@link #NONE} leaves them empty (services: instances differ in speed).
     */
    public record Bounds(List<Map<Long, TtftLowerBound.Bound>> byPoint, BackendConfig backend) {
        public static final Bounds NONE = new Bounds(List.of(), null);

        Map<Long, TtftLowerBound.Bound> at(int point) {
            return byPoint.isEmpty() ? Map.of() : byPoint.get(point);
        }
    }

    /** {@code continues}: per point, request id → the id of the earlier request it continues. */
    public static void write(Path file, List<SweepTable.Point> points, Bounds bounds, List<Map<Long, Long>> continues)
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
                Map<Long, TtftLowerBound.Bound> pointBounds = bounds.at(p);
                Map<Long, Long> pointContinues = continues.get(p);
                for (RunResult result : point.results()) {
                    String prefix = field(point.label()) + "," + field(result.router()) + ",";
                    for (RunResult.RequestRecord r : result.records()) {
                        TtftLowerBound.Bound bound = pointBounds.get(r.id());
                        out.write(prefix);
                        out.write(String.format(
                                Locale.ROOT,
                                "%d,%s,%d,%.3f,%.3f,%.3f,%d,%d,%d,%s,%s,%s,%s,%s,%s%n",
                                r.id(),
                                r.sessionId() == null ? "" : field(r.sessionId()),
                                r.backend(),
                                r.arrivalMs(),
                                r.ttftMs(),
                                r.e2eMs(),
                                r.inputTokens(),
                                r.cachedTokens(),
                                r.outputTokens(),
                                bounds.backend() == null
                                        ? ""
                                        : millis(bounds.backend().loneTtftMs(r.inputTokens(), r.cachedTokens())),
                                bound == null ? "" : Long.toString(bound.cachedTokens()),
                                bound == null ? "" : millis(bound.ttftMs()),
                                r.countedCached() < 0 ? "" : Long.toString(r.countedCached()),
                                Objects.toString(pointContinues.get(r.id()), ""),
                                Double.isNaN(r.lookaheadRegretMs()) ? "" : millis(r.lookaheadRegretMs())));
                    }
                }
            }
        }
    }

    private static String millis(double ms) {
        return String.format(Locale.ROOT, "%.3f", ms);
    }

    /** RFC 4180: a value with a comma, quote or line break is quoted, its quotes doubled. */
    static String field(String value) {
        if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\n') < 0 && value.indexOf('\r') < 0) {
            return value;
        }
        return "\"" + value.replace("\"", "\"\"") + "\"";
    }
}
