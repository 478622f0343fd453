package io.ailb.emulator;

import io.ailb.emulator.bindings.LogLevel;
import java.util.List;

/**
 * One Wasm VM of a {@link Gateway} (one Envoy worker): an instance of the plugin with its root context, its streams,
 * its Redis connections and the replies waiting to be delivered. Not thread-safe: drive a VM from one thread, as
 * Envoy does.
 *
 * <p>This class runs the VM's life (start, configuration, ticks, close) and answers tests; the parts it is made of
 * each keep one kind of state: {@link GuestRuntime} (the instance, guest calls, traps), {@link ContextRegistry},
 * {@link DeliveryQueue}, {@link RedisCallouts}, {@link HttpCallouts}, {@link MetricHandles}, {@link TickTimer} and
 * {@link GuestLog}; {@link HostCalls} serves the guest's host calls from them.
 */
public final class PluginVm implements AutoCloseable {
    private final Gateway gateway;
    private final int id;
    private final GuestLog log;
    private final ContextRegistry contexts = new ContextRegistry();
    private final DeliveryQueue deliveries;
    private final GuestRuntime runtime;
    private final RedisCallouts redis;
    private final HttpCallouts httpCalls;
    private final MetricHandles metrics;
    private final TickTimer ticks;

    // Buffers 6 and 7: they exist only while proxy_on_vm_start and proxy_on_configure run.
    private byte[] vmConfiguration;
    private byte[] pluginConfiguration;

    PluginVm(Gateway gateway, int id, byte[] pluginConfig) {
        this.gateway = gateway;
        this.id = id;
        Gateway.Builder options = gateway.options();
        this.log = new GuestLog(options.logSink(), options.logTail());
        this.deliveries = new DeliveryQueue(options.delivery(), this::isAlive);
        this.runtime = new GuestRuntime(id, gateway.plugin(), contexts, deliveries, log);
        this.redis = new RedisCallouts(
                gateway.redisClusters(), contexts, deliveries, runtime, gateway.redisFaults(), gateway.clock());
        this.httpCalls = new HttpCallouts(gateway, contexts, deliveries, runtime);
        this.metrics = new MetricHandles(gateway.metrics());
        this.ticks = new TickTimer(gateway.clock());
        runtime.instantiate(options, new HostCalls(this));
        boot(pluginConfig);
    }

    /** Envoy's start sequence; a rejected configuration leaves a closed VM behind. */
    private void boot(byte[] pluginConfig) {
        runtime.runStart();
        int root = createRootContext();
        vmConfiguration = gateway.vmConfig();
        int linesBefore = log.size();
        int started;
        try {
            started = runtime.invoke(
                    "proxy_on_vm_start", root, () -> runtime.exports().proxyOnVmStart(root, vmConfiguration.length));
        } finally {
            vmConfiguration = null;
        }
        if (started == 0) {
            close();
            throw new ConfigurationRejectedException("proxy_on_vm_start", log.mostSevereSince(linesBefore), log.tail());
        }
        configure(root, pluginConfig);
    }

    private int createRootContext() {
        int root = contexts.createRoot();
        runtime.invoke("proxy_on_context_create", root, () -> {
            runtime.exports().proxyOnContextCreate(root, 0);
            return 0;
        });
        return root;
    }

    private void configure(int root, byte[] config) {
        pluginConfiguration = config;
        int linesBefore = log.size();
        int accepted;
        try {
            accepted = runtime.invoke(
                    "proxy_on_configure", root, () -> runtime.exports().proxyOnConfigure(root, config.length));
        } finally {
            pluginConfiguration = null;
        }
        if (accepted == 0) {
            close();
            throw new ConfigurationRejectedException(
                    "proxy_on_configure", log.mostSevereSince(linesBefore), log.tail());
        }
        deliveries.settle();
    }

    /** A new plugin configuration: a new root context, as Envoy creates for a changed plugin config. */
    void configureNewRoot(byte[] config) {
        configure(createRootContext(), config);
    }

    /** A new HTTP stream: a context is created for it at once ({@code proxy_on_context_create(id, root)}). */
    public HttpStream newHttpStream() {
        int contextId = contexts.nextStreamId();
        HttpStream stream = new HttpStream(this, contextId);
        if (isAlive()) {
            contexts.add(stream);
            int root = contexts.rootContextId();
            runtime.invoke("proxy_on_context_create", contextId, () -> {
                runtime.exports().proxyOnContextCreate(contextId, root);
                return 0;
            });
        }
        return stream;
    }

    /** Calls {@code proxy_on_tick} if the guest set a tick period; returns whether it did. */
    public boolean tick() {
        if (!isAlive() || ticks.periodMillis() <= 0) {
            return false;
        }
        ticks.fired();
        int root = contexts.rootContextId();
        runtime.invoke("proxy_on_tick", root, () -> {
            runtime.exports().proxyOnTick(root);
            return 0;
        });
        deliveries.settle();
        return true;
    }

    /** Delivers every waiting Redis reply and HTTP-call response ({@link Delivery#MANUAL}); returns how many. */
    public int deliverPending() {
        return deliveries.deliverAll();
    }

    /** Replies waiting for delivery. */
    public int pendingCount() {
        return deliveries.pendingReplies();
    }

    /** Replies held for a later time ({@link RedisFault#delay}); {@link Gateway#advance} delivers them when due. */
    public int scheduledCount() {
        return deliveries.scheduledReplies();
    }

    /** Every line the guest logged, oldest first. */
    public List<LogLine> logs() {
        return log.lines();
    }

    /** The messages logged at {@code level} ({@link LogLevel}), oldest first. */
    public List<String> logs(int level) {
        return log.messages(level);
    }

    /** Whether the VM still runs (it dies on a trap, as in Envoy). */
    public boolean isAlive() {
        return runtime.isAlive();
    }

    public int id() {
        return id;
    }

    public int rootContextId() {
        return contexts.rootContextId();
    }

    public int tickPeriodMillis() {
        return ticks.periodMillis();
    }

    /** Every Redis call this VM made, oldest first. */
    public List<RecordedRedisCall> redisCalls() {
        return redis.calls();
    }

    /** Why the last Redis call failed (empty if none did): the guest only sees status 1. */
    public String lastRedisFailure() {
        return redis.lastFailure();
    }

    public RedisStats redisStats() {
        return redis.stats();
    }

    /** The size of the guest's linear memory now: it only grows, so it bounds the guest's peak heap. */
    public long memoryBytes() {
        return runtime.memory().sizeBytes();
    }

    /** How long building the Chicory instance took (the module was compiled before, once). */
    public long instantiateNanos() {
        return runtime.instantiateNanos();
    }

    public Gateway gateway() {
        return gateway;
    }

    /**
     * Calls an export directly, bypassing the emulator's bookkeeping: for benchmarks and experiments only. A trap
     * still kills the VM.
     */
    public long[] callExport(String name, long... args) {
        return runtime.callExport(name, args);
    }

    @Override
    public void close() {
        redis.close();
        runtime.close();
    }

    /** The last log lines, for failure messages. */
    String tail() {
        return log.tail();
    }

    /** When the next tick is due; never for a dead VM. */
    long nextTickAtMillis() {
        return isAlive() ? ticks.nextAtMillis() : Long.MAX_VALUE;
    }

    /** When the next scheduled reply is due; never for a dead VM. */
    long nextScheduledReplyAtMillis() {
        return isAlive() ? deliveries.nextDueMillis() : Long.MAX_VALUE;
    }

    /** The clock reached {@code nowMillis}: scheduled replies due by then become ready and are delivered. */
    void releaseDueReplies(long nowMillis) {
        deliveries.releaseDue(nowMillis);
        deliveries.settle();
    }

    /** A stream ended: it gets no more callbacks or deferred actions. */
    void forget(HttpStream stream) {
        contexts.remove(stream);
        deliveries.forget(stream);
    }

    // ---- the parts, for HttpStream and HostCalls -----------------------------------------------------------------

    GuestRuntime runtime() {
        return runtime;
    }

    ContextRegistry contexts() {
        return contexts;
    }

    DeliveryQueue deliveries() {
        return deliveries;
    }

    GuestLog log() {
        return log;
    }

    RedisCallouts redis() {
        return redis;
    }

    HttpCallouts httpCalls() {
        return httpCalls;
    }

    MetricHandles metricHandles() {
        return metrics;
    }

    TickTimer ticks() {
        return ticks;
    }

    byte[] vmConfiguration() {
        return vmConfiguration;
    }

    byte[] pluginConfiguration() {
        return pluginConfiguration;
    }
}
