package io.ailb.sim.workload;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.sim.model.SimRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Replays a Mooncake FAST'25 trace ({@code timestamp}, {@code input_length}, {@code output_length}, {@code hash_ids}
 * of 512-token blocks). Each block id becomes ~{@link #BLOCK_CHARS} characters of text derived from the id. The first
 * block is the system message, every further block one user message, so the plugin's per-user-message prefix chain
 * sees the trace's block-granular reuse.
 *
 * <p>Every request of the trace starts with the same block (its shared system prompt). Sent as a user message of its
 * own it would be a first "turn" common to all conversations, which no real chat has and which sends all traffic of
 * a per-user-message affinity router to one instance; as the system message it opens the first user block, as in a
 * real chat body.
 */
public final class MooncakeTrace {
    public static final int BLOCK_TOKENS = 512;
    public static final int BLOCK_CHARS = BLOCK_TOKENS * TextBlocks.CHARS_PER_TOKEN;
    public static final String FILE_NAME = "mooncake_conversation_trace.jsonl";

    private MooncakeTrace() {}

    /** The trace shipped with the project: {@code ../shared/traces} from the project root (or from a module). */
    public static Path defaultTrace() {
        Path cwd = Path.of("").toAbsolutePath();
        for (Path dir = cwd; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("shared/traces").resolve(FILE_NAME);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
            Path sibling = dir.resolveSibling("shared").resolve("traces").resolve(FILE_NAME);
            if (Files.isRegularFile(sibling)) {
                return sibling;
            }
        }
        return cwd.resolveSibling("shared").resolve("traces").resolve(FILE_NAME);
    }

    /**
     * @param speedup arrival times are divided by this (2 = twice the request rate)
     * @param limit   the first {@code limit} requests; 0 = all
     */
    public static Workload load(Path file, double speedup, int limit) throws IOException {
        if (speedup <= 0) {
            throw new IllegalArgumentException("speedup must be positive");
        }
        List<SimRequest> requests = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long id = 0;
            while ((line = in.readLine()) != null && (limit <= 0 || requests.size() < limit)) {
                if (line.isBlank()) {
                    continue;
                }
                Map<String, Object> row = JSON.std.mapFrom(line);
                long ts = ((Number) row.get("timestamp")).longValue();
                int input = ((Number) row.get("input_length")).intValue();
                int output = ((Number) row.get("output_length")).intValue();
                List<Long> ids = new ArrayList<>();
                for (Object h : (List<?>) row.get("hash_ids")) {
                    ids.add(((Number) h).longValue());
                }
                requests.add(
                        new SimRequest(id++, Math.round(ts / speedup), null, input, output, BLOCK_TOKENS, ids, ""));
            }
        }
        // the file read, not the trace it usually is: a run header must say which data it replayed
        String name = "trace " + file.getFileName() + (speedup == 1.0 ? "" : " x" + trim(speedup));
        return Workload.openLoop(name, withAnswerBlocks(requests), MooncakeTrace::body);
    }

    /** Each request with the answer blocks its first continuation in {@code requests} reveals (see class comment). */
    static List<SimRequest> withAnswerBlocks(List<SimRequest> requests) {
        Map<Long, List<Integer>> holders = new HashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            for (Long id : requests.get(i).blockIds()) {
                holders.computeIfAbsent(id, k -> new ArrayList<>()).add(i);
            }
        }
        List<SimRequest> out = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            SimRequest a = requests.get(i);
            int promptFull = a.inputTokens() / a.blockTokens();
            int answerFull = (a.inputTokens() + a.outputTokens()) / a.blockTokens();
            SimRequest next =
                    promptFull == 0 || answerFull <= promptFull || a.blockIds().size() < promptFull
                            ? null
                            : continuation(
                                    requests,
                                    holders.get(a.blockIds().get(promptFull - 1)),
                                    i,
                                    promptFull,
                                    a.inputTokens() + a.outputTokens());
            out.add(next == null ? a : a.withOutputBlockIds(next.blockIds().subList(promptFull, answerFull)));
        }
        return out;
    }

    private static SimRequest continuation(
            List<SimRequest> requests, List<Integer> sharing, int after, int promptFull, int minInput) {
        for (int j : sharing) {
            SimRequest b = requests.get(j);
            if (j > after && b.blockIds().size() > promptFull && b.inputTokens() >= minInput) {
                return b;
            }
        }
        return null;
    }

    static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** The first block as the system message, then one user message per block. */
    public static String body(SimRequest r) {
        StringBuilder body = new StringBuilder(r.blockIds().size() * (BLOCK_CHARS + 32) + 64);
        body.append("{\"model\":\"sim\",\"stream\":true,\"max_tokens\":")
                .append(r.outputTokens())
                .append(",\"messages\":[");
        for (int i = 0; i < r.blockIds().size(); i++) {
            if (i > 0) {
                body.append(',');
            }
            body.append("{\"role\":\"")
                    .append(i == 0 ? "system" : "user")
                    .append("\",\"content\":\"")
                    .append(TextBlocks.text(r.blockIds().get(i), BLOCK_CHARS))
                    .append("\"}");
        }
        return body.append("]}").toString();
    }
}
