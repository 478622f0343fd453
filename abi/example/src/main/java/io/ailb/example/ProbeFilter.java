package io.ailb.example;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.codec.hash.Sha1;
import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonValue;
import io.ailb.codec.resp.RespEncoder;
import io.ailb.proxywasm.Buffer;
import io.ailb.proxywasm.Clock;
import io.ailb.proxywasm.DataStatus;
import io.ailb.proxywasm.HeaderStatus;
import io.ailb.proxywasm.Headers;
import io.ailb.proxywasm.HttpCall;
import io.ailb.proxywasm.HttpCallResponse;
import io.ailb.proxywasm.HttpContext;
import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.Metric;
import io.ailb.proxywasm.Properties;
import io.ailb.proxywasm.ProxyWasm;
import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.Redis;
import io.ailb.proxywasm.RedisCallback;
import io.ailb.proxywasm.RedisReply;
import io.ailb.proxywasm.RootContext;
import io.ailb.proxywasm.SharedData;
import io.ailb.proxywasm.SharedValue;
import io.ailb.proxywasm.Stream;
import io.ailb.proxywasm.UpstreamHost;
import io.ailb.proxywasm.Upstreams;
import io.ailb.proxywasm.bindings.WasmResult;
import io.ailb.proxywasm.internal.Memory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Exercises every SDK area on demand for the emulator's end-to-end tests; the protocol is abi/example/PROBE.md. */
public final class ProbeFilter extends RootContext {
    private String redisCluster;
    private Metric requests;
    private Metric gauge;
    private Metric histogram;
    private Metric ticks;
    private long tickCount;

    private ProbeFilter(int contextId) {
        super(contextId);
    }

    public static void main(String[] args) {
        ProxyWasm.setRootContext(ProbeFilter::new);
    }

    @Override
    public boolean onVmStart(byte[] vmConfiguration) {
        Memory.setGcBeforeHostCalls(false);
        Log.info("vm_start config=" + utf8(vmConfiguration));
        return true;
    }

    @Override
    public boolean onConfigure(byte[] pluginConfiguration) {
        Memory.setGcBeforeHostCalls(false);
        String raw = utf8(pluginConfiguration);
        JsonValue config = raw.isBlank() ? Json.parse("{}") : Json.parse(raw);
        if (isTrue(config.get("fail"))) {
            Log.info("rejecting configuration");
            return false;
        }
        requests = Metric.counter("probe_requests");
        gauge = Metric.gauge("probe_gauge");
        histogram = Metric.histogram("probe_histogram");
        ticks = Metric.counter("probe_ticks");
        JsonValue redis = config.get("redis");
        if (redis != null && redis.isObject()) {
            redisCluster = text(redis.get("cluster"), "");
            String status = WasmResult.nameOf(WasmResult.OK);
            try {
                Redis.init(redisCluster, text(redis.get("username"), ""), text(redis.get("password"), ""), (int)
                        number(redis.get("timeoutMs"), 1000));
            } catch (ProxyWasmException e) {
                status = e.resultName();
            }
            Log.info("redis_init status=" + status);
        }
        JsonValue tickMs = config.get("tickMs");
        if (tickMs != null && tickMs.isNumber()) {
            Clock.setTickPeriodMillis((int) tickMs.asLong());
        }
        Log.info("configured " + raw);
        return true;
    }

    @Override
    public void onTick() {
        Memory.setGcBeforeHostCalls(false);
        tickCount++;
        ticks.increment(1);
        Log.info("tick " + tickCount);
    }

    @Override
    public HttpContext newHttpContext(int contextId) {
        return new Probe(contextId);
    }

    /** One request: the {@code x-probe-op} header picks what it does. */
    private final class Probe extends HttpContext {
        private boolean forceGc;
        private String op = "";
        private String seenHeaders;
        private String hashName;
        private int hashRepeat;

        Probe(int contextId) {
            super(contextId);
        }

        /** Every callback starts here, so the GC switch follows this stream across interleaved streams. */
        private void enter() {
            Memory.setGcBeforeHostCalls(forceGc);
        }

        @Override
        public HeaderStatus onRequestHeaders(int headerCount, boolean endOfStream) {
            forceGc = false;
            enter();
            forceGc = "1".equals(header("x-probe-gc"));
            enter();
            op = Optional.ofNullable(header("x-probe-op")).orElse("");
            String arg = header("x-probe-arg");
            switch (op) {
                case "":
                    return HeaderStatus.CONTINUE;
                case "headers":
                    return respond(200, headerLines());
                case "get-header":
                    String value = Headers.request().get(arg == null ? "" : arg).orElse(null);
                    return value == null ? respond(404, "") : respond(200, value);
                case "mutate-headers":
                    seenHeaders = Integer.toString(Headers.request().pairs().size());
                    Headers.request().add("x-probe-added", "yes");
                    Headers.request().replace("x-probe-replace", "replaced");
                    Headers.request().remove("x-probe-remove");
                    return HeaderStatus.CONTINUE;
                case "property":
                    Optional<byte[]> property = Properties.get(path(arg));
                    return property.isPresent() ? respond(200, property.get()) : respond(404, "");
                case "set-property":
                    Properties.set(
                            Arrays.asList(path(arg)),
                            Optional.ofNullable(header("x-probe-value")).orElse(""));
                    return HeaderStatus.CONTINUE;
                case "body":
                    return endOfStream ? HeaderStatus.CONTINUE : HeaderStatus.STOP_ITERATION;
                case "hash":
                    return hashRequest(arg, header("x-probe-repeat"), endOfStream);
                case "http-call":
                    return httpCall(arg);
                case "redis":
                    return redis(header("x-probe-redis"));
                case "upstreams":
                    return upstreams();
                case "shared-data":
                    return sharedData(
                            arg, Optional.ofNullable(header("x-probe-value")).orElse(""));
                case "metrics":
                    requests.increment(1);
                    gauge.record(42);
                    histogram.record(7);
                    return respond(200, "requests=" + requests.value());
                case "log":
                    for (Log.Level level : Log.Level.values()) {
                        Log.log(level, "level " + level.code());
                    }
                    return HeaderStatus.CONTINUE;
                case "throw":
                    throw new RuntimeException("probe: thrown on request");
                case "time":
                    return respond(200, Long.toString(Clock.nowMillis()));
                default:
                    Log.warn("unknown probe op " + op);
                    return HeaderStatus.CONTINUE;
            }
        }

        @Override
        public DataStatus onRequestBody(int bodySize, boolean endOfStream) {
            enter();
            boolean hashing = op.equals("hash") && hashName != null;
            if (!op.equals("body") && !hashing) {
                return DataStatus.CONTINUE;
            }
            if (!endOfStream) {
                return DataStatus.STOP_ITERATION_AND_BUFFER;
            }
            byte[] body = Buffer.requestBody().get(0, bodySize);
            respond(200, hashing ? hashAnswer(body) : "len=" + body.length + " sha1=" + Sha1.hex(Sha1.digest(body)));
            return DataStatus.STOP_ITERATION_AND_BUFFER;
        }

        /** Checks the hash op's arguments; the body is hashed at its end ({@link #hashAnswer}). */
        private HeaderStatus hashRequest(String name, String repeat, boolean endOfStream) {
            String algorithm = name == null ? "" : name;
            if (!algorithm.equals("sha1") && !algorithm.equals("prefix") && !algorithm.equals("none")) {
                return respond(400, "unknown hash '" + algorithm + "' (sha1, prefix or none)");
            }
            int times = repeat == null ? 1 : positiveInt(repeat);
            if (times <= 0) {
                return respond(400, "x-probe-repeat must be a positive integer: " + repeat);
            }
            hashName = algorithm;
            hashRepeat = times;
            return endOfStream ? respond(200, hashAnswer(new byte[0])) : HeaderStatus.STOP_ITERATION;
        }

        /**
         * Hashes the whole body {@code hashRepeat} times from scratch (each pass a complete digest, so the time per
         * pass is the time per hash of a body this size) and answers the digest; {@code none} hashes nothing, the
         * baseline of a benchmark.
         */
        private String hashAnswer(byte[] body) {
            String answer = "len=" + body.length;
            if (hashName.equals("sha1")) {
                Sha1 sha1 = new Sha1();
                byte[] digest = null;
                for (int i = 0; i < hashRepeat; i++) {
                    sha1.update(body, 0, body.length);
                    digest = sha1.digest();
                }
                answer += " sha1=" + Sha1.hex(digest);
            } else if (hashName.equals("prefix")) {
                PrefixHash prefix = new PrefixHash();
                for (int i = 0; i < hashRepeat; i++) {
                    prefix.reset(0, 0);
                    prefix.update(body, 0, body.length);
                    prefix.finish();
                }
                answer += " prefix=" + prefix.hex();
            }
            return answer;
        }

        @Override
        public HeaderStatus onResponseHeaders(int headerCount, boolean endOfStream) {
            enter();
            if (seenHeaders != null) {
                Headers.response().replace("x-probe-seen", seenHeaders);
            }
            return HeaderStatus.CONTINUE;
        }

        @Override
        public void onLog() {
            enter();
            Log.debug("on_log ctx=" + contextId());
        }

        @Override
        public void onDone() {
            enter();
            Log.debug("on_done ctx=" + contextId());
        }

        @Override
        public void onDelete() {
            enter();
            Log.debug("on_delete ctx=" + contextId());
        }

        private HeaderStatus httpCall(String cluster) {
            List<Map.Entry<String, String>> headers = List.of(
                    Map.entry(":method", "GET"), Map.entry(":path", "/probe"), Map.entry(":authority", "probe"));
            try {
                HttpCall.dispatch(
                        cluster == null ? "" : cluster,
                        headers,
                        new byte[0],
                        List.of(),
                        1000,
                        this::onHttpCallResponse);
            } catch (ProxyWasmException e) {
                Log.warn("http-call not sent: " + e.getMessage());
                return respond(503, "http-call failed");
            }
            return HeaderStatus.STOP_ITERATION;
        }

        private void onHttpCallResponse(HttpCallResponse response) {
            enter();
            if (response.isFailure()) {
                respond(503, "http-call failed");
            } else {
                respond(200, "status=" + response.status() + " body=" + utf8(response.body()));
            }
        }

        private HeaderStatus redis(String command) {
            if (redisCluster == null) {
                return respond(503, "redis not configured");
            }
            String[] words = split(command == null ? "" : command.trim(), ' ');
            try {
                Redis.call(redisCluster, RespEncoder.command(words), new RedisCallback() {
                    @Override
                    public void onReply(RedisReply reply) {
                        enter();
                        if (reply.status() != 0) {
                            respond(503, "redis failed status=" + reply.status());
                        } else if (!reply.hasValue()) {
                            respond(503, "redis failed " + reply.failure());
                        } else {
                            respond(200, "redis=" + reply.value());
                        }
                    }

                    @Override
                    public void onOrphan(RedisReply reply) {
                        Log.info("orphan redis reply token=" + reply.token());
                    }
                });
            } catch (ProxyWasmException e) {
                return respond(503, "redis failed " + e.resultName());
            }
            return HeaderStatus.STOP_ITERATION;
        }

        private HeaderStatus upstreams() {
            List<UpstreamHost> hosts = Upstreams.hosts();
            if (hosts.isEmpty()) {
                return respond(404, "no upstream hosts");
            }
            StringBuilder body = new StringBuilder();
            String chosen = null;
            for (UpstreamHost host : hosts) {
                String health = healthStatus(host.info());
                body.append(host.address()).append(' ').append(health).append('\n');
                if (chosen == null && health.equals("Healthy")) {
                    chosen = host.address();
                }
            }
            if (chosen != null) {
                Upstreams.setOverrideHost(chosen);
                body.append("override=").append(chosen);
            }
            return respond(200, body.toString());
        }

        private HeaderStatus sharedData(String key, String value) {
            String name = key == null ? "" : key;
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            Optional<SharedValue> before = SharedData.get(name);
            int cas = before.map(SharedValue::cas).orElse(0);
            boolean casOk = SharedData.set(name, bytes, cas);
            String stale;
            try {
                stale = SharedData.set(name, bytes, cas) ? "OK" : WasmResult.nameOf(WasmResult.CAS_MISMATCH);
            } catch (ProxyWasmException e) {
                stale = e.resultName();
            }
            return respond(
                    200,
                    "before=" + before.map(v -> utf8(v.value())).orElse("-") + " cas_ok=" + casOk + " stale_cas="
                            + stale);
        }

        private String headerLines() {
            StringBuilder lines = new StringBuilder();
            for (Map.Entry<String, String> header : Headers.request().pairs()) {
                lines.append(header.getKey())
                        .append(": ")
                        .append(header.getValue())
                        .append('\n');
            }
            return lines.toString();
        }

        private HeaderStatus respond(int status, String body) {
            return respond(status, body.getBytes(StandardCharsets.UTF_8));
        }

        private HeaderStatus respond(int status, byte[] body) {
            Stream.sendLocalResponse(status, "probe", body, List.of(Map.entry("x-probe-op", op)));
            return HeaderStatus.STOP_ITERATION;
        }
    }

    private static String header(String name) {
        return Headers.request().get(name).orElse(null);
    }

    private static String[] path(String dotted) {
        return split(dotted == null ? "" : dotted, '.');
    }

    /** Non-empty pieces of {@code text} between separators. */
    private static String[] split(String text, char separator) {
        List<String> pieces = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == separator) {
                if (i > start) {
                    pieces.add(text.substring(start, i));
                }
                start = i + 1;
            }
        }
        return pieces.toArray(new String[0]);
    }

    /** {@code text} as a positive decimal int, or -1 when it is not one. */
    private static int positiveInt(String text) {
        if (text.isEmpty() || text.length() > 9) {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value > 0 ? value : -1;
    }

    private static String healthStatus(String info) {
        try {
            JsonValue status = Json.parse(info).get("health_status");
            return status != null && status.isString() ? status.asString() : "-";
        } catch (RuntimeException e) {
            return "-";
        }
    }

    private static boolean isTrue(JsonValue value) {
        return value != null && value.isBoolean() && value.asBoolean();
    }

    private static String text(JsonValue value, String fallback) {
        return value != null && value.isString() ? value.asString() : fallback;
    }

    private static long number(JsonValue value, long fallback) {
        return value != null && value.isNumber() ? value.asLong() : fallback;
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
