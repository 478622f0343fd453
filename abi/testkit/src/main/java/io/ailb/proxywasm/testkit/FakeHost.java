package io.ailb.proxywasm.testkit;

import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.SharedValue;
import io.ailb.proxywasm.UpstreamHost;
import io.ailb.proxywasm.bindings.LogLevel;
import io.ailb.proxywasm.bindings.ProxyWasmExports;
import io.ailb.proxywasm.bindings.RedisStatus;
import io.ailb.proxywasm.internal.Vm;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;

/**
 * A proxy-wasm host for guest code running on the JVM: it runs the plugin's {@code main}, then drives the SDK's
 * dispatcher through the same exports Envoy calls ({@code proxy_on_context_create}, {@code proxy_on_vm_start},
 * {@code proxy_on_configure}, the stream callbacks, {@code proxy_on_tick}, the callout responses), and answers and
 * records what the guest asks for: logs, headers, bodies, properties, upstream hosts and the override, local replies,
 * metrics, shared data, Redis and HTTP callouts.
 *
 * <pre>
 *   FakeHost host = new FakeHost().withPluginConfig("{…}")
 *           .withUpstreamHosts(List.of(HigressHosts.healthy("10.0.0.1:80")));
 *   host.start(MyPlugin::main);            // true: VM started and configuration accepted
 *   FakeStream stream = host.newStream();
 *   stream.sendRequestHeaders(FakeStream.headers(":method", "GET", ":path", "/"), true);
 *   stream.upstreamOverride(); host.logs(Log.Level.WARN); host.metric("my.counter");
 * </pre>
 *
 * <p>The SDK keeps the host in static state, so one {@code FakeHost} is live per JVM at a time: the last one started.
 * Callout answers are delivered after the guest callback that made the call returns (before the driving method
 * returns), unless {@link #withManualDelivery()}; time is the JVM's clock.
 */
public final class FakeHost {
    /** A plugin's {@code main}, e.g. {@code MyPlugin::main}: it registers the root context and nothing else. */
    @FunctionalInterface
    public interface EntryPoint {
        void main(String[] args);
    }

    private static final int FIRST_REDIS_TOKEN = 7;
    private static final int FIRST_HTTP_CALL_ID = 4;
    /** Envoy hands out callout tokens 4 apart. */
    private static final int ID_STEP = 4;

    private final FakeAbi abi = new FakeAbi(this);

    // ---- what the test set up
    private byte[] vmConfig = new byte[0];
    private byte[] pluginConfig = new byte[0];
    private final Map<String, byte[]> properties = new HashMap<>();
    private List<UpstreamHost> upstreamHosts = List.of();
    private final Map<String, RedisResponder> redisClusters = new HashMap<>();
    private HttpResponder httpResponder = call -> HttpAnswer.pending();
    private boolean manualDelivery;
    private int logLevel = LogLevel.TRACE;
    private final Map<String, Integer> failures = new HashMap<>();

    // ---- what the guest did
    private final List<String> logs = new ArrayList<>();
    /** Redis and HTTP callouts in the order the guest made them. */
    private final List<Object> callouts = new ArrayList<>();

    private final List<Integer> effectiveContexts = new ArrayList<>();
    private final List<Integer> bufferReads = new ArrayList<>();
    private final Map<String, Integer> callCounts = new HashMap<>();
    private final Map<String, SharedValue> sharedData = new HashMap<>();
    private final HostMetrics metrics = new HostMetrics();
    /** Base cluster name → the database its {@code proxy_redis_init} selected. */
    private final Map<String, Integer> redisInitialised = new HashMap<>();

    private int tickPeriodMillis;

    // ---- the VM
    private final Map<Integer, FakeStream> streams = new LinkedHashMap<>();
    private final Deque<FakeStream> deferred = new ArrayDeque<>();
    private final Deque<Object> answered = new ArrayDeque<>();
    private boolean started;
    private boolean inMain;
    private boolean settling;
    private int depth;
    private int nextContextId = 1;
    private int rootContextId;
    private int currentContextId;
    private int nextRedisToken = FIRST_REDIS_TOKEN;
    private int nextHttpCallId = FIRST_HTTP_CALL_ID;
    private RuntimeException hostFailure;

    // Buffers that exist only while one callback runs.
    private byte[] vmConfigBuffer;
    private byte[] pluginConfigBuffer;
    private byte[] redisReplyBuffer;
    private HttpAnswer httpResponse;

    // ---- set-up

    /** The VM configuration {@code proxy_on_vm_start} reads (empty by default). */
    public FakeHost withVmConfig(String config) {
        vmConfig = config.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /** The plugin configuration {@link #start} hands to {@code proxy_on_configure}. */
    public FakeHost withPluginConfig(String config) {
        pluginConfig = config.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /** A property every context reads unless its stream has its own; path segments separated by '.'. */
    public FakeHost withProperty(String path, String value) {
        properties.put(propertyKey(path), value.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** What {@code proxy_get_upstream_hosts} lists for streams without their own list (see {@link HigressHosts}). */
    public FakeHost withUpstreamHosts(List<UpstreamHost> hosts) {
        upstreamHosts = List.copyOf(hosts);
        return this;
    }

    /**
     * Makes a Redis cluster known to the host ({@code proxy_redis_init} of any other name is refused with
     * BAD_ARGUMENT) and answers its calls with {@code responder}: scripted answers, or a {@link RealRedis}.
     */
    public FakeHost withRedisCluster(String cluster, RedisResponder responder) {
        redisClusters.put(baseCluster(cluster), responder);
        return this;
    }

    /** Answers HTTP callouts; by default they stay pending until the test delivers an answer. */
    public FakeHost withHttpResponder(HttpResponder responder) {
        httpResponder = responder;
        return this;
    }

    /** Callout answers wait for {@link #deliverPending()} or {@code deliver()}, so a test can reset a stream first. */
    public FakeHost withManualDelivery() {
        manualDelivery = true;
        return this;
    }

    /** What {@code proxy_get_log_level} reports (TRACE by default: everything is logged). */
    public FakeHost withLogLevel(Log.Level level) {
        logLevel = level.code();
        return this;
    }

    /** A shared-data entry present before the plugin starts (CAS 1). */
    public FakeHost withSharedData(String key, byte[] value) {
        sharedData.put(key, new SharedValue(value.clone(), 1));
        return this;
    }

    /**
     * Every later call of the host function {@code abiName} (e.g. {@code proxy_set_upstream_override_host}) fails with
     * {@code wasmResult} ({@code WasmResult} code) until {@link #restoreCalls}; where the SDK reads NOT_FOUND as
     * "absent" the call then reports absent.
     */
    public FakeHost failCalls(String abiName, int wasmResult) {
        failures.put(abiName, wasmResult);
        return this;
    }

    public FakeHost restoreCalls(String abiName) {
        failures.remove(abiName);
        return this;
    }

    // ---- lifecycle

    /**
     * Starts the VM as Envoy does: runs {@code main} (only {@code proxy_log} is allowed there), creates the root
     * context, calls {@code proxy_on_vm_start} and {@code proxy_on_configure}. Returns whether both accepted.
     */
    public boolean start(EntryPoint main) {
        if (started) {
            throw new IllegalStateException("this host was already started");
        }
        started = true;
        Vm.install(abi);
        ProxyWasmExports.callbacks = null;
        inMain = true;
        try {
            main.main(new String[0]);
        } finally {
            inMain = false;
        }
        if (ProxyWasmExports.callbacks == null) {
            throw new IllegalStateException("main registered no plugin: it must call ProxyWasm.setRootContext");
        }
        rootContextId = nextContextId++;
        int root = rootContextId;
        invoke(root, () -> {
            ProxyWasmExports.proxyOnContextCreate(root, 0);
            return 0;
        });
        vmConfigBuffer = vmConfig;
        int vmStarted;
        try {
            vmStarted = invoke(root, () -> ProxyWasmExports.proxyOnVmStart(root, vmConfig.length));
        } finally {
            vmConfigBuffer = null;
        }
        settle();
        return vmStarted != 0 && configure(pluginConfig);
    }

    /** Hands a (new) plugin configuration to the root context; returns whether the guest accepted it. */
    public boolean configure(String config) {
        return configure(config.getBytes(StandardCharsets.UTF_8));
    }

    private boolean configure(byte[] config) {
        requireStarted();
        int root = rootContextId;
        pluginConfigBuffer = config;
        int accepted;
        try {
            accepted = invoke(root, () -> ProxyWasmExports.proxyOnConfigure(root, config.length));
        } finally {
            pluginConfigBuffer = null;
        }
        settle();
        return accepted != 0;
    }

    /** A new HTTP stream; its context is created at once ({@code proxy_on_context_create(id, root)}). */
    public FakeStream newStream() {
        requireStarted();
        int contextId = nextContextId++;
        FakeStream stream = new FakeStream(this, contextId);
        streams.put(contextId, stream);
        int root = rootContextId;
        invoke(contextId, () -> {
            ProxyWasmExports.proxyOnContextCreate(contextId, root);
            return 0;
        });
        settle();
        return stream;
    }

    /** Calls {@code proxy_on_tick} if the guest set a tick period; returns whether it did. */
    public boolean tick() {
        requireStarted();
        if (tickPeriodMillis <= 0) {
            return false;
        }
        int root = rootContextId;
        invoke(root, () -> {
            ProxyWasmExports.proxyOnTick(root);
            return 0;
        });
        settle();
        return true;
    }

    /** Delivers every answered callout not delivered yet, oldest first, and those they lead to; returns how many. */
    public int deliverPending() {
        int delivered = 0;
        for (Object callout = nextDeliverable(); callout != null; callout = nextDeliverable()) {
            deliverNow(callout);
            applyDeferred();
            delivered++;
        }
        rethrowHostFailure();
        return delivered;
    }

    // ---- reading back

    /** Every log line, oldest first, as {@code "LEVEL message"} (e.g. {@code "WARN redis call failed"}). */
    public List<String> logs() {
        return List.copyOf(logs);
    }

    /** The messages logged at exactly {@code level}, oldest first. */
    public List<String> logs(Log.Level level) {
        String prefix = level.name() + " ";
        List<String> messages = new ArrayList<>();
        for (String line : logs) {
            if (line.startsWith(prefix)) {
                messages.add(line.substring(prefix.length()));
            }
        }
        return messages;
    }

    /** Every Redis callout, oldest first. */
    public List<RedisCallout> redisCallouts() {
        return calloutsOf(RedisCallout.class);
    }

    /** Every HTTP callout, oldest first. */
    public List<HttpCallout> httpCallouts() {
        return calloutsOf(HttpCallout.class);
    }

    private <T> List<T> calloutsOf(Class<T> kind) {
        List<T> matching = new ArrayList<>();
        for (Object callout : callouts) {
            if (kind.isInstance(callout)) {
                matching.add(kind.cast(callout));
            }
        }
        return matching;
    }

    /** The value of counter or gauge {@code name}; fails if the guest never defined it. */
    public long metric(String name) {
        return metrics.value(name);
    }

    /** Every value recorded on histogram {@code name}, in order. */
    public List<Long> histogram(String name) {
        return metrics.samples(name);
    }

    /** The names of every metric the guest defined. */
    public List<String> metricNames() {
        return metrics.names();
    }

    public Optional<byte[]> sharedData(String key) {
        SharedValue value = sharedData.get(key);
        return value == null ? Optional.empty() : Optional.of(value.value().clone());
    }

    /** A host-level property, including those the root context set. */
    public Optional<String> property(String path) {
        byte[] value = properties.get(propertyKey(path));
        return value == null ? Optional.empty() : Optional.of(new String(value, StandardCharsets.UTF_8));
    }

    /** The period the guest asked for with {@code proxy_set_tick_period_milliseconds}; 0 when none. */
    public int tickPeriodMillis() {
        return tickPeriodMillis;
    }

    public int rootContextId() {
        return rootContextId;
    }

    /** Every context id the guest passed to {@code proxy_set_effective_context}, in order. */
    public List<Integer> effectiveContexts() {
        return List.copyOf(effectiveContexts);
    }

    /** The buffer type ({@code BufferType} code) of every {@code proxy_get_buffer_bytes} call, in order. */
    public List<Integer> bufferReads() {
        return List.copyOf(bufferReads);
    }

    /** How often the guest called the host function {@code abiName}, e.g. {@code proxy_get_upstream_hosts}. */
    public int callCount(String abiName) {
        return callCounts.getOrDefault(abiName, 0);
    }

    // ---- running guest callbacks

    /** Runs one export with {@code contextId} as the current context, restoring the previous one afterwards. */
    int invoke(int contextId, IntSupplier export) {
        int saved = currentContextId;
        currentContextId = contextId;
        depth++;
        try {
            return export.getAsInt();
        } finally {
            depth--;
            currentContextId = saved;
        }
    }

    /**
     * After a driving call: applies what streams asked for during callbacks, then (automatic delivery) hands over the
     * answered callouts one by one, each after the previous callback has returned.
     */
    void settle() {
        if (depth > 0 || settling) {
            return;
        }
        settling = true;
        try {
            while (true) {
                FakeStream stream = deferred.poll();
                if (stream != null) {
                    stream.applyDeferred();
                    continue;
                }
                Object callout = answered.poll();
                if (callout == null) {
                    break;
                }
                if (deliverable(callout)) {
                    deliverNow(callout);
                }
            }
        } finally {
            settling = false;
        }
        rethrowHostFailure();
    }

    private void applyDeferred() {
        FakeStream stream;
        while ((stream = deferred.poll()) != null) {
            stream.applyDeferred();
        }
    }

    void defer(FakeStream stream) {
        if (!deferred.contains(stream)) {
            deferred.add(stream);
        }
    }

    void forget(FakeStream stream) {
        streams.remove(stream.contextId());
        deferred.remove(stream);
    }

    /** From {@code RedisCallout.deliver} and {@code HttpCallout.deliver}: now, unless a guest callback is running. */
    void deliver(Object callout) {
        if (depth > 0) {
            throw new IllegalStateException("deliver callouts from the test, not from inside a guest callback");
        }
        deliverNow(callout);
        settle();
    }

    private void deliverNow(Object callout) {
        if (callout instanceof RedisCallout) {
            deliverRedis((RedisCallout) callout);
        } else {
            deliverHttp((HttpCallout) callout);
        }
    }

    private void deliverRedis(RedisCallout call) {
        call.markDelivered();
        RedisAnswer answer = call.currentAnswer();
        int root = call.rootContextId();
        int token = call.token();
        int status = answer.isNetworkError() ? RedisStatus.NETWORK_ERROR : RedisStatus.OK;
        byte[] reply = answer.replyBytes();
        // After a network failure there is no reply buffer to read (the SDK must not try).
        redisReplyBuffer = answer.isNetworkError() ? null : reply;
        try {
            invoke(root, () -> {
                ProxyWasmExports.proxyOnRedisCallResponse(root, token, status, reply.length);
                return 0;
            });
        } finally {
            redisReplyBuffer = null;
        }
    }

    private void deliverHttp(HttpCallout call) {
        call.markDelivered();
        HttpAnswer answer = call.currentAnswer();
        int root = call.rootContextId();
        int callId = call.callId();
        httpResponse = answer;
        try {
            invoke(root, () -> {
                ProxyWasmExports.proxyOnHttpCallResponse(
                        root,
                        callId,
                        answer.headers().size(),
                        answer.body().length,
                        answer.trailers().size());
                return 0;
            });
        } finally {
            httpResponse = null;
        }
    }

    private Object nextDeliverable() {
        for (Object callout : callouts) {
            if (deliverable(callout)) {
                return callout;
            }
        }
        return null;
    }

    private static boolean deliverable(Object callout) {
        return ((Callout<?>) callout).deliverable();
    }

    private void requireStarted() {
        if (!started) {
            throw new IllegalStateException("start the plugin first: host.start(MyPlugin::main)");
        }
    }

    /** A responder that threw: reported to the test once the driving call is over (the SDK would swallow it). */
    private void rethrowHostFailure() {
        RuntimeException failure = hostFailure;
        if (failure != null) {
            hostFailure = null;
            throw failure;
        }
    }

    // ---- state the host calls read and change (FakeAbi)

    /** Counts the call and applies what the test scripted for it: a failure status, or the rules of {@code main}. */
    Integer enter(String abiName) {
        callCounts.merge(abiName, 1, Integer::sum);
        if (inMain && !abiName.equals("proxy_log")) {
            throw new IllegalStateException(abiName + " called from main: Envoy allows only proxy_log while _start"
                    + " runs; do the work in onVmStart or onConfigure");
        }
        return failures.get(abiName);
    }

    void log(int level, String message) {
        logs.add(LogLevel.nameOf(level) + " " + message);
    }

    int logLevel() {
        return logLevel;
    }

    void setTickPeriod(int millis) {
        tickPeriodMillis = Math.max(0, millis);
    }

    void bufferRead(int bufferType) {
        bufferReads.add(bufferType);
    }

    /** The stream the current context is, or null for the root context. */
    FakeStream currentStream() {
        return streams.get(currentContextId);
    }

    /** False when {@code contextId} is neither the root context nor a live stream. */
    boolean setEffectiveContext(int contextId) {
        effectiveContexts.add(contextId);
        if (contextId != rootContextId && !streams.containsKey(contextId)) {
            return false;
        }
        currentContextId = contextId;
        return true;
    }

    byte[] vmConfigBuffer() {
        return vmConfigBuffer;
    }

    byte[] pluginConfigBuffer() {
        return pluginConfigBuffer;
    }

    byte[] redisReplyBuffer() {
        return redisReplyBuffer;
    }

    HttpAnswer httpResponse() {
        return httpResponse;
    }

    byte[] hostProperty(String key) {
        return properties.get(key);
    }

    void setHostProperty(String key, byte[] value) {
        properties.put(key, value);
    }

    List<UpstreamHost> upstreamHostsOf(FakeStream stream) {
        return stream == null || stream.upstreamHosts() == null ? upstreamHosts : stream.upstreamHosts();
    }

    Map<String, SharedValue> sharedDataStore() {
        return sharedData;
    }

    HostMetrics metrics() {
        return metrics;
    }

    /** False when the host does not know the cluster. */
    boolean redisInit(String cluster) {
        String base = baseCluster(cluster);
        if (!redisClusters.containsKey(base)) {
            return false;
        }
        redisInitialised.put(base, database(cluster));
        return true;
    }

    /** Whether {@code proxy_redis_call} may go to {@code cluster}: known and initialised. */
    boolean redisKnown(String cluster) {
        return redisClusters.containsKey(baseCluster(cluster));
    }

    boolean redisInitialised(String cluster) {
        return redisInitialised.containsKey(baseCluster(cluster));
    }

    int redisCall(String cluster, byte[] query) {
        String base = baseCluster(cluster);
        int token = nextRedisToken;
        nextRedisToken += ID_STEP;
        RedisCallout call = new RedisCallout(
                this, token, cluster, redisInitialised.get(base), query, currentContextId, rootContextId);
        callouts.add(call);
        try {
            call.answer(redisClusters.get(base).answer(call));
        } catch (RuntimeException e) {
            hostFailure = new IllegalStateException("the Redis responder failed on " + call, e);
        }
        if (!manualDelivery && call.deliverable()) {
            answered.add(call);
        }
        return token;
    }

    int httpCall(
            String cluster,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            List<Map.Entry<String, String>> trailers,
            int timeoutMillis) {
        int callId = nextHttpCallId;
        nextHttpCallId += ID_STEP;
        HttpCallout call =
                new HttpCallout(this, callId, cluster, headers, body, trailers, timeoutMillis, rootContextId);
        callouts.add(call);
        try {
            call.answer(httpResponder.answer(call));
        } catch (RuntimeException e) {
            hostFailure = new IllegalStateException("the HTTP responder failed on " + call, e);
        }
        if (!manualDelivery && call.deliverable()) {
            answered.add(call);
        }
        return callId;
    }

    static String propertyKey(String dottedPath) {
        return String.join("\0", dottedPath.split("\\.", -1));
    }

    private static String baseCluster(String cluster) {
        int options = cluster.indexOf('?');
        return options < 0 ? cluster : cluster.substring(0, options);
    }

    private static int database(String cluster) {
        int options = cluster.indexOf('?');
        if (options < 0) {
            return 0;
        }
        for (String option : cluster.substring(options + 1).split("&")) {
            if (option.startsWith("db=")) {
                return Integer.parseInt(option.substring("db=".length()));
            }
        }
        return 0;
    }
}
