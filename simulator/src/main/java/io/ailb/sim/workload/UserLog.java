package io.ailb.sim.workload;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.workload.TextBlocks.Segment;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A user's own request log, one JSON object per line:
 * {@code {"arrival_ms": 1200, "output_tokens": 150, "body": {"model": "…", "messages": [...]}}} ({@code body} may
 * also be the request JSON as a string; optional {@code "session_id"}). Prompt tokens are estimated as characters / 4
 * per message; each message is a segment identified by its role and text (an assistant's {@code tool_calls} JSON
 * included), so requests sharing leading messages share leading blocks, as {@link ChatWorkload} derives them. Tool
 * definitions ({@code tools}, else {@code functions}) are a segment of their JSON after a leading system message, else
 * first, where chat templates render them.
 */
public final class UserLog {
    public static final int BLOCK_TOKENS = 16;
    /** A year: a later arrival in a replayed log is a unit mistake (seconds or microseconds), not a workload. */
    static final double MAX_ARRIVAL_MS = 365.0 * 24 * 3600 * 1000;

    private UserLog() {}

    public static Workload load(Path file, double speedup, int limit) throws IOException {
        List<SimRequest> requests = new ArrayList<>();
        // lines are split as bytes and decoded one by one, so invalid UTF-8 is reported on the line that has it
        CharsetDecoder utf8 = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            int lineNo = 0;
            boolean more = true;
            while (more && (limit <= 0 || requests.size() < limit)) {
                bytes.reset();
                int b;
                while ((b = in.read()) != -1 && b != '\n') {
                    bytes.write(b);
                }
                more = b != -1;
                lineNo++;
                String line;
                try {
                    line = utf8.decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
                } catch (CharacterCodingException e) {
                    throw new IOException(file + ":" + lineNo + ": invalid UTF-8 (the log must be UTF-8 text)", e);
                }
                if (line.isBlank()) {
                    continue;
                }
                try {
                    requests.add(parse(line, requests.size(), speedup));
                } catch (RuntimeException | IOException e) {
                    throw new IOException(file + ":" + lineNo + ": " + e.getMessage(), e);
                }
            }
        }
        requests.sort((a, b) -> a.arrivalMs() != b.arrivalMs()
                ? Long.compare(a.arrivalMs(), b.arrivalMs())
                : Long.compare(a.id(), b.id()));
        return Workload.openLoop("log " + file.getFileName(), requests, null);
    }

    static SimRequest parse(String line, long id, double speedup) throws IOException {
        Map<String, Object> row = JSON.std.mapFrom(line);
        Object arrival = row.get("arrival_ms");
        Object output = row.get("output_tokens");
        Object rawBody = row.get("body");
        if (!(arrival instanceof Number) || !(output instanceof Number) || rawBody == null) {
            throw new IOException("each line needs arrival_ms, output_tokens and body");
        }
        Checks.number("arrival_ms", ((Number) arrival).doubleValue(), 0, MAX_ARRIVAL_MS);
        Checks.count("output_tokens", wholeNumber("output_tokens", (Number) output), 0, Checks.MAX_PROMPT_TOKENS);
        String body = rawBody instanceof String text ? text : JSON.std.asString(rawBody);
        Map<String, Object> request = rawBody instanceof Map<?, ?> ? cast(rawBody) : JSON.std.mapFrom(body);
        List<Segment> segments = new ArrayList<>();
        Object messages = request.get("messages");
        if (messages instanceof List<?> list) {
            Object tools = request.get("tools") != null ? request.get("tools") : request.get("functions");
            String definitions =
                    tools instanceof List<?> defined && !defined.isEmpty() ? JSON.std.asString(tools) : null;
            for (Object m : list) {
                if (!(m instanceof Map<?, ?> message)) {
                    continue;
                }
                String role = String.valueOf(message.get("role"));
                boolean leadingSystem = segments.isEmpty() && role.equals("system");
                if (definitions != null && !leadingSystem) {
                    segments.add(textSegment("tools", definitions));
                    definitions = null;
                }
                String text = contentText(message.get("content"));
                Object calls = message.get("tool_calls");
                if (calls != null) {
                    text = text + JSON.std.asString(calls);
                }
                segments.add(textSegment(role, text));
            }
            if (definitions != null) {
                segments.add(textSegment("tools", definitions));
            }
        } else if (request.get("prompt") instanceof String prompt) {
            segments.add(
                    new Segment(TextBlocks.hash(prompt), Math.max(1, prompt.length() / TextBlocks.CHARS_PER_TOKEN)));
        }
        long input = segments.stream().mapToLong(Segment::tokens).sum();
        if (input > Checks.MAX_PROMPT_TOKENS) {
            throw new IOException("the request has about " + input + " prompt tokens (characters / 4), more than "
                    + Checks.MAX_PROMPT_TOKENS + ", longer than any model's context");
        }
        Object session = row.get("session_id");
        return new SimRequest(
                id,
                Math.round(((Number) arrival).doubleValue() / speedup),
                session == null ? null : session.toString(),
                (int) input,
                Math.max(1, ((Number) output).intValue()),
                BLOCK_TOKENS,
                TextBlocks.chainIds(segments, BLOCK_TOKENS),
                body);
    }

    /** A piece of prompt identified by its {@code kind} and text, characters / 4 tokens (at least one). */
    private static Segment textSegment(String kind, String text) {
        int tokens = Math.max(1, (text.length() + TextBlocks.CHARS_PER_TOKEN - 1) / TextBlocks.CHARS_PER_TOKEN);
        return new Segment(TextBlocks.hash(kind + "\u0000" + text), tokens);
    }

    private static long wholeNumber(String field, Number value) throws IOException {
        double v = value.doubleValue();
        if (v != Math.rint(v)) {
            throw new IOException(field + " must be a whole number, got " + value);
        }
        return (long) v;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Object map) {
        return (Map<String, Object>) map;
    }

    private static String contentText(Object content) {
        if (content instanceof String s) {
            return s;
        }
        if (content instanceof List<?> parts) {
            StringBuilder text = new StringBuilder();
            for (Object p : parts) {
                if (p instanceof Map<?, ?> part && part.get("text") != null) {
                    text.append(part.get("text"));
                } else if (p != null) {
                    text.append(p);
                }
            }
            return text.toString();
        }
        return content == null ? "" : content.toString();
    }
}
