package io.ailb.lb.flow;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespValue;
import io.ailb.lb.redis.RedisTarget;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A FlowHost whose Redis calls wait in a queue until the test answers them, recording everything else. */
final class ScriptedFlowHost implements FlowHost {
    final Deque<Pending> pending = new ArrayDeque<>();
    final List<String> sentCommands = new ArrayList<>();
    final List<String> overrides = new ArrayList<>();
    final Map<String, String> requestHeaders = new LinkedHashMap<>();
    boolean acceptHeader = true;
    final List<Map<String, String>> decisions = new ArrayList<>();
    final Map<String, Integer> counters = new LinkedHashMap<>();
    final List<String> warnings = new ArrayList<>();
    final Map<String, List<Long>> samples = new LinkedHashMap<>();
    final Map<String, Long> gauges = new LinkedHashMap<>();
    /** What {@link #nowMillis} answers; tests move it. */
    long now = 1_000;

    int resumes;
    int localReplyStatus;
    boolean acceptOverride = true;
    boolean acceptRedis = true;

    static final class Pending {
        final String command;
        final RedisReplyHandler handler;

        Pending(String command, RedisReplyHandler handler) {
            this.command = command;
            this.handler = handler;
        }
    }

    @Override
    public boolean sendRedis(RedisTarget target, byte[] command, RedisReplyHandler handler) {
        if (!acceptRedis) {
            return false;
        }
        String text = describe(command);
        sentCommands.add(text);
        pending.add(new Pending(text, handler));
        return true;
    }

    /** Answers the oldest pending call. */
    void reply(RespValue value) {
        pending.removeFirst().handler.onReply(value);
    }

    void fail(String reason) {
        pending.removeFirst().handler.onFailure(reason);
    }

    /** Answers every pending call (releases included) with {@code value}. */
    void replyAll(RespValue value) {
        while (!pending.isEmpty()) {
            reply(value);
        }
    }

    long commandsStartingWith(String verb) {
        return sentCommands.stream().filter(c -> c.startsWith(verb)).count();
    }

    @Override
    public boolean overrideUpstream(String host) {
        overrides.add(host);
        return acceptOverride;
    }

    @Override
    public boolean setRequestHeader(String name, String value) {
        if (acceptHeader) {
            requestHeaders.put(name, value);
        }
        return acceptHeader;
    }

    @Override
    public void resume() {
        resumes++;
    }

    @Override
    public void localReply(int status, String body) {
        localReplyStatus = status;
    }

    @Override
    public void decided(Map<String, String> attributes) {
        decisions.add(attributes);
    }

    @Override
    public void count(String metric) {
        counters.merge(metric, 1, Integer::sum);
    }

    @Override
    public void count(String metric, long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException(metric + ": a counter cannot go down by " + delta);
        }
        counters.merge(metric, Math.toIntExact(delta), Integer::sum);
    }

    @Override
    public void addToGauge(String metric, long delta) {
        gauges.merge(metric, delta, Long::sum);
    }

    @Override
    public void setGauge(String metric, long value) {
        gauges.put(metric, value);
    }

    @Override
    public void record(String metric, long value) {
        samples.computeIfAbsent(metric, m -> new ArrayList<>()).add(value);
    }

    @Override
    public void warn(String message) {
        warnings.add(message);
    }

    @Override
    public long nowMillis() {
        return now;
    }

    /** The command's words, the script body shortened to its verb, e.g. "EVALSHA <sha> 3 k1 k2 k3 …". */
    private static String describe(byte[] command) {
        RespValue decoded = RespDecoder.DEFAULT.decodeExactly(command, 0, command.length);
        StringBuilder out = new StringBuilder();
        for (RespValue word : decoded.elements()) {
            if (out.length() > 0) {
                out.append(' ');
            }
            String text = new String(word.asBytes(), StandardCharsets.UTF_8);
            out.append(text.contains("\n") ? "<script>" : text);
        }
        return out.toString();
    }
}
