package io.ailb.emulator;

import com.dylibso.chicory.runtime.ExportFunction;
import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportFunction;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasi.WasiOptions;
import com.dylibso.chicory.wasi.WasiPreview1;
import io.ailb.emulator.bindings.GuestExports;
import io.ailb.emulator.bindings.HostImportTable;
import io.ailb.emulator.bindings.LogLevel;
import io.ailb.emulator.bindings.RedisStatus;
import io.ailb.emulator.bindings.WasmResult;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;

/**
 * One Wasm VM of a {@link Gateway} (one Envoy worker): an instance of the plugin with its root context, its streams,
 * its Redis connections and the replies waiting to be delivered. Not thread-safe: drive a VM from one thread, as
 * Envoy does.
 */
public final class Vm implements AutoCloseable {
    private static final String START_EXPORT = "_start";
    private static final int WASM_PAGE_BYTES = 65536;

    private final Gateway gateway;
    private final int id;
    private final Instance instance;
    private final GuestExports guest;
    private final WasiPreview1 wasi;
    private final long instantiateNanos;
    private final List<LogLine> logs = new ArrayList<>();
    private final Map<Integer, HttpStream> streams = new HashMap<>();
    private final Map<String, byte[]> rootProperties = new HashMap<>();
    private final Map<String, RedisConnection> redis = new LinkedHashMap<>();
    private final Map<Integer, String> metricNames = new HashMap<>();
    private final int[] nextMetricId = {0, 1, 2};
    private final Deque<PendingReply> pending = new ArrayDeque<>();
    private final List<RedisCall> redisCalls = new ArrayList<>();
    private final Deque<HttpStream> deferred = new ArrayDeque<>();
    private boolean alive = true;
    private boolean starting;
    private boolean settling;
    private int nextContextId = 1;
    private int rootContextId;
    private int effectiveContextId;
    private int lastRedisToken = 3;
    private int lastHttpCallId;
    private int tickPeriodMillis;
    private long nextTickAtMillis = Long.MAX_VALUE;
    private long redisRoundTrips;
    private long redisFailures;
    private long redisBytesSent;
    private long redisBytesReceived;
    private String lastRedisFailure = "";

    // Buffers and maps that exist only while one callback runs.
    private byte[] vmConfiguration;
    private byte[] pluginConfiguration;
    private byte[] redisReply;
    private HttpCallResponse httpCallResponse;

    /** A reply waiting for delivery to the guest. */
    private record PendingReply(String what, Runnable delivery) {
    }

    Vm(Gateway gateway, int id, byte[] pluginConfig) {
        this.gateway = gateway;
        this.id = id;
        Gateway.Builder options = gateway.options();
        WasiOptions.Builder wasiOptions = WasiOptions.builder()
                .withClock(options.clockValue())
                .withRandom(new Random(options.randomSeed() + id))
                .withStdout(new LogOutputStream(line -> log(LogLevel.INFO, line)))
                .withStderr(new LogOutputStream(line -> log(LogLevel.ERROR, line)));
        options.environment().forEach(wasiOptions::withEnvironment);
        this.wasi = WasiPreview1.builder().withOptions(wasiOptions.build()).build();
        List<ImportFunction> functions = new ArrayList<>();
        HostCalls host = new HostCalls(this);
        for (HostFunction function : HostImportTable.functions(host)) {
            functions.add(host.guard(function));
        }
        functions.addAll(List.of(wasi.toHostFunctions()));
        long start = System.nanoTime();
        Instance built;
        try {
            Instance.Builder builder = Instance.builder(gateway.plugin().module())
                    .withImportValues(ImportValues.builder().withFunctions(functions).build())
                    .withStart(false);
            if (gateway.plugin().machineFactory() != null) {
                builder.withMachineFactory(gateway.plugin().machineFactory());
            }
            built = builder.build();
        } catch (RuntimeException e) {
            alive = false;
            throw trap("start section", e);
        }
        this.instance = built;
        this.instantiateNanos = System.nanoTime() - start;
        this.guest = new GuestExports(instance);
        boot(pluginConfig);
    }

    /** Envoy's start sequence; a rejected configuration leaves a closed VM behind. */
    private void boot(byte[] pluginConfig) {
        if (guest.has(START_EXPORT)) {
            ExportFunction startFunction = instance.export(START_EXPORT);
            starting = true;
            try {
                invoke(START_EXPORT, 0, () -> {
                    startFunction.apply();
                    return 0;
                });
            } finally {
                starting = false;
            }
        }
        rootContextId = nextContextId++;
        int root = rootContextId;
        invoke("proxy_on_context_create", root, () -> {
            guest.proxyOnContextCreate(root, 0);
            return 0;
        });
        vmConfiguration = gateway.vmConfig();
        int started;
        try {
            started = invoke("proxy_on_vm_start", root,
                    () -> guest.proxyOnVmStart(root, vmConfiguration.length));
        } finally {
            vmConfiguration = null;
        }
        if (started == 0) {
            close();
            throw new ConfigurationRejectedException("proxy_on_vm_start returned false" + tail());
        }
        configure(root, pluginConfig);
    }

    private void configure(int root, byte[] config) {
        pluginConfiguration = config;
        int accepted;
        try {
            accepted = invoke("proxy_on_configure", root, () -> guest.proxyOnConfigure(root, config.length));
        } finally {
            pluginConfiguration = null;
        }
        if (accepted == 0) {
            close();
            throw new ConfigurationRejectedException("proxy_on_configure returned false" + tail());
        }
        settle();
    }

    /** A new plugin configuration: a new root context, as Envoy creates for a changed plugin config. */
    void configureNewRoot(byte[] config) {
        rootContextId = nextContextId++;
        int root = rootContextId;
        invoke("proxy_on_context_create", root, () -> {
            guest.proxyOnContextCreate(root, 0);
            return 0;
        });
        configure(root, config);
    }

    /** A new HTTP stream: a context is created for it at once ({@code proxy_on_context_create(id, root)}). */
    public HttpStream newHttpStream() {
        int contextId = nextContextId++;
        HttpStream stream = new HttpStream(this, contextId);
        if (alive) {
            streams.put(contextId, stream);
            int root = rootContextId;
            invoke("proxy_on_context_create", contextId, () -> {
                guest.proxyOnContextCreate(contextId, root);
                return 0;
            });
        }
        return stream;
    }

    /** Calls {@code proxy_on_tick} if the guest set a tick period; returns whether it did. */
    public boolean tick() {
        if (!alive || tickPeriodMillis <= 0) {
            return false;
        }
        nextTickAtMillis = gateway.clock().millis() + tickPeriodMillis;
        int root = rootContextId;
        invoke("proxy_on_tick", root, () -> {
            guest.proxyOnTick(root);
            return 0;
        });
        settle();
        return true;
    }

    /** Delivers every waiting Redis reply and HTTP-call response ({@link Delivery#MANUAL}); returns how many. */
    public int deliverPending() {
        int delivered = 0;
        while (alive && !pending.isEmpty()) {
            pending.poll().delivery().run();
            delivered++;
            settleStreams();
        }
        return delivered;
    }

    /** Replies waiting for delivery. */
    public int pendingCount() {
        return pending.size();
    }

    /** Every line the guest logged, oldest first. */
    public List<LogLine> logs() {
        return List.copyOf(logs);
    }

    /** The messages logged at {@code level} ({@link LogLevel}), oldest first. */
    public List<String> logs(int level) {
        return logs.stream().filter(line -> line.level() == level).map(LogLine::message)
                .collect(Collectors.toList());
    }

    /** Whether the VM still runs (it dies on a trap, as in Envoy). */
    public boolean isAlive() {
        return alive;
    }

    public int id() {
        return id;
    }

    public int rootContextId() {
        return rootContextId;
    }

    public int tickPeriodMillis() {
        return tickPeriodMillis;
    }

    /** Every Redis call this VM made, oldest first. */
    public List<RedisCall> redisCalls() {
        return List.copyOf(redisCalls);
    }

    /** Why the last Redis call failed (empty if none did): the guest only sees status 1. */
    public String lastRedisFailure() {
        return lastRedisFailure;
    }

    public RedisStats redisStats() {
        return new RedisStats(redisRoundTrips, redisFailures, redisBytesSent, redisBytesReceived);
    }

    /** The size of the guest's linear memory now: it only grows, so it bounds the guest's peak heap. */
    public long memoryBytes() {
        return (long) instance.memory().pages() * WASM_PAGE_BYTES;
    }

    /** How long building the Chicory instance took (the module was compiled before, once). */
    public long instantiateNanos() {
        return instantiateNanos;
    }

    public Gateway gateway() {
        return gateway;
    }

    /**
     * Calls an export directly, bypassing the emulator's bookkeeping: for benchmarks and experiments only. A trap
     * still kills the VM.
     */
    public long[] callExport(String name, long... args) {
        ExportFunction function = instance.export(name);
        long[][] result = new long[1][];
        invoke(name, rootContextId, () -> {
            result[0] = function.apply(args);
            return 0;
        });
        return result[0];
    }

    @Override
    public void close() {
        redis.values().forEach(RedisConnection::close);
        redis.clear();
        wasi.close();
    }

    // ---- guest calls -------------------------------------------------------------------------------------------

    /** Runs one guest callback with {@code contextId} as the effective context; a trap kills the VM. */
    int invoke(String export, int contextId, IntSupplier call) {
        int saved = effectiveContextId;
        effectiveContextId = contextId;
        try {
            return call.getAsInt();
        } catch (GuestTrapException nested) {
            throw nested;
        } catch (RuntimeException | StackOverflowError e) {
            alive = false;
            pending.clear();
            throw trap(export + "(context " + contextId + ")", e);
        } finally {
            effectiveContextId = saved;
        }
    }

    private GuestTrapException trap(String export, Throwable cause) {
        String stack = GuestStack.describe(cause, gateway.plugin().module().nameSection());
        return new GuestTrapException(export, "VM " + id + " of " + gateway.plugin().name() + " died in " + export
                + ": " + cause + (stack.isEmpty() ? "" : "\nguest stack: " + stack) + tail(), cause);
    }

    /** The last log lines, for failure messages. */
    String tail() {
        int from = Math.max(0, logs.size() - gateway.options().logTail());
        StringBuilder text = new StringBuilder("\nlast guest log lines:");
        if (from == logs.size()) {
            text.append(" (none)");
        }
        for (LogLine line : logs.subList(from, logs.size())) {
            text.append("\n  ").append(line);
        }
        return text.toString();
    }

    /**
     * After a driver call: apply streams' deferred actions, then (automatic delivery) hand over waiting replies, each
     * once the previous callback has returned.
     */
    void settle() {
        if (settling) {
            return;
        }
        settling = true;
        try {
            while (alive) {
                HttpStream stream = deferred.poll();
                if (stream != null) {
                    stream.applyDeferred();
                } else if (gateway.options().delivery() == Delivery.AUTOMATIC && !pending.isEmpty()) {
                    pending.poll().delivery().run();
                } else {
                    break;
                }
            }
        } finally {
            settling = false;
        }
    }

    private void settleStreams() {
        HttpStream stream;
        while (alive && (stream = deferred.poll()) != null) {
            stream.applyDeferred();
        }
    }

    void defer(HttpStream stream) {
        if (!deferred.contains(stream)) {
            deferred.add(stream);
        }
    }

    GuestExports guest() {
        return guest;
    }

    Instance instance() {
        return instance;
    }

    void forget(HttpStream stream) {
        streams.remove(stream.contextId());
        deferred.remove(stream);
    }

    // ---- state the host calls read -------------------------------------------------------------------------------

    boolean starting() {
        return starting;
    }

    void log(int level, String message) {
        LogLine line = new LogLine(level, message);
        logs.add(line);
        gateway.options().logSink().accept(line);
    }

    /** The stream the effective context names, or null for the root context. */
    HttpStream currentStream() {
        return streams.get(effectiveContextId);
    }

    boolean isRootContext() {
        return effectiveContextId == rootContextId || effectiveContextId == 0;
    }

    int setEffectiveContext(int contextId) {
        if (contextId != rootContextId && !streams.containsKey(contextId)) {
            return WasmResult.BAD_ARGUMENT;
        }
        effectiveContextId = contextId;
        return WasmResult.OK;
    }

    byte[] vmConfiguration() {
        return vmConfiguration;
    }

    byte[] pluginConfiguration() {
        return pluginConfiguration;
    }

    byte[] redisReply() {
        return redisReply;
    }

    HttpCallResponse httpCallResponse() {
        return httpCallResponse;
    }

    Map<String, byte[]> rootProperties() {
        return rootProperties;
    }

    void setTickPeriod(int millis) {
        tickPeriodMillis = Math.max(0, millis);
        nextTickAtMillis = tickPeriodMillis == 0 ? Long.MAX_VALUE : gateway.clock().millis() + tickPeriodMillis;
    }

    long nextTickAtMillis() {
        return alive ? nextTickAtMillis : Long.MAX_VALUE;
    }

    /** Metric ids encode the type in the low two bits, as Envoy's (counter 4k, gauge 4k+1, histogram 4k+2). */
    int defineMetric(int type, String name) {
        gateway.metrics().define(type, name);
        int metricId = nextMetricId[type];
        nextMetricId[type] += 4;
        metricNames.put(metricId, name);
        return metricId;
    }

    String metricName(int metricId) {
        return metricNames.get(metricId);
    }

    // ---- Redis ---------------------------------------------------------------------------------------------------

    int redisInit(String cluster, String username, String password, int timeoutMillis) {
        String base = clusterBase(cluster);
        RedisEndpoint endpoint = gateway.redisClusters().get(base);
        if (endpoint == null) {
            return WasmResult.BAD_ARGUMENT;
        }
        RedisConnection previous = redis.put(base,
                new RedisConnection(endpoint, username, password, database(cluster), timeoutMillis));
        if (previous != null) {
            previous.close();
        }
        return WasmResult.OK;
    }

    /** Sends the query now and queues the reply (or status 1) for delivery; returns the token, or -status. */
    int redisCall(String cluster, byte[] query) {
        String base = clusterBase(cluster);
        if (!gateway.redisClusters().containsKey(base)) {
            return -WasmResult.BAD_ARGUMENT;
        }
        RedisConnection connection = redis.get(base);
        if (connection == null) {
            return -WasmResult.INTERNAL_FAILURE;
        }
        lastRedisToken += 4;
        int token = lastRedisToken;
        int root = rootContextId;
        byte[] reply;
        int status;
        redisBytesSent += query.length;
        try {
            reply = connection.roundTrip(query);
            status = RedisStatus.OK;
            redisRoundTrips++;
            redisBytesReceived += reply.length;
        } catch (IOException | RuntimeException e) {
            connection.close();
            reply = new byte[0];
            status = RedisStatus.NETWORK_ERROR;
            redisFailures++;
            lastRedisFailure = cluster + " token " + token + ": " + e;
        }
        byte[] answer = reply;
        int answerStatus = status;
        redisCalls.add(new RedisCall(token, cluster, query, status, reply));
        pending.add(new PendingReply("redis token " + token, () -> deliverRedis(root, token, answerStatus, answer)));
        return token;
    }

    private void deliverRedis(int root, int token, int status, byte[] reply) {
        redisReply = reply;
        try {
            invoke("proxy_on_redis_call_response", root, () -> {
                guest.proxyOnRedisCallResponse(root, token, status, reply.length);
                return 0;
            });
        } finally {
            redisReply = null;
        }
    }

    private static String clusterBase(String cluster) {
        int query = cluster.indexOf('?');
        return query < 0 ? cluster : cluster.substring(0, query);
    }

    private static int database(String cluster) {
        int query = cluster.indexOf('?');
        if (query < 0) {
            return 0;
        }
        for (String param : cluster.substring(query + 1).split("&")) {
            if (param.startsWith("db=")) {
                return Integer.parseInt(param.substring(3));
            }
        }
        return 0;
    }

    // ---- HTTP calls ----------------------------------------------------------------------------------------------

    int httpCall(String cluster, HeaderMap headers, byte[] body, HeaderMap trailers, int timeoutMillis) {
        lastHttpCallId += 4;
        int callId = lastHttpCallId;
        int root = rootContextId;
        HttpCallRequest request = new HttpCallRequest(callId, cluster, headers, body, trailers, timeoutMillis);
        HttpCallResponse response = gateway.answer(request);
        pending.add(new PendingReply("http call " + callId, () -> deliverHttp(root, callId, response)));
        return callId;
    }

    private void deliverHttp(int root, int callId, HttpCallResponse response) {
        httpCallResponse = response;
        try {
            invoke("proxy_on_http_call_response", root, () -> {
                guest.proxyOnHttpCallResponse(root, callId, response.headers().size(), response.body().length,
                        response.trailers().size());
                return 0;
            });
        } finally {
            httpCallResponse = null;
        }
    }
}
