package io.ailb.emulator;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One Higress gateway running one plugin: its VMs (Envoy runs one per worker thread) share shared data, metrics,
 * scripted HTTP upstreams and the plugin configuration. Several gateways may point at the same real Redis.
 *
 * <pre>{@code
 * Gateway gateway = Gateway.builder(WasmPlugin.load(path))
 *         .withPluginConfig("{\"redis\": {...}}")
 *         .withRedisCluster("outbound|6379||redis.static", redis.endpoint())
 *         .build();
 * PluginVm vm = gateway.startVm();
 * HttpStream stream = vm.newHttpStream().withRouteName("ai-route");
 * stream.sendRequestHeaders(HeaderMap.of(":path", "/v1/chat"), true);
 * }</pre>
 */
public final class Gateway implements AutoCloseable {
    private final WasmPlugin plugin;
    private final Builder options;
    private byte[] pluginConfig;
    private final MetricRegistry metrics = new MetricRegistry();
    private final SharedDataStore sharedData = new SharedDataStore();
    private final List<PluginVm> vms = new ArrayList<>();
    private final Deque<HttpCallAnswer> httpResponses = new ArrayDeque<>();
    private final Deque<HttpCallRequest> httpCalls = new ArrayDeque<>();
    private final Map<String, List<ClusterHost>> upstreams;
    private final RedisFaults redisFaults;
    private int nextVmId = 1;

    private Gateway(Builder builder) {
        this.plugin = builder.plugin;
        this.options = builder;
        this.pluginConfig = builder.pluginConfig;
        this.upstreams = new LinkedHashMap<>(builder.upstreams);
        this.redisFaults = new RedisFaults(builder.clock instanceof VirtualClock);
    }

    public static Builder builder(WasmPlugin plugin) {
        return new Builder(plugin);
    }

    /** Options of a gateway; everything has a default except the plugin. */
    public static final class Builder {
        private final WasmPlugin plugin;
        private byte[] pluginConfig = new byte[0];
        private byte[] vmConfig = new byte[0];
        private final Map<String, RedisEndpoint> redisClusters = new LinkedHashMap<>();
        private final Map<String, List<ClusterHost>> upstreams = new LinkedHashMap<>();
        private final Map<String, byte[]> properties = new LinkedHashMap<>();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private Clock clock = Clock.systemUTC();
        private long randomSeed = 0x5eed;
        private Delivery delivery = Delivery.AUTOMATIC;
        private HttpCallDispatcher httpDispatcher;
        private Consumer<LogLine> logSink = line -> {};
        private boolean failOpen;
        private int logTail = 20;
        private long requestBufferLimit = Long.MAX_VALUE;

        private Builder(WasmPlugin plugin) {
            this.plugin = plugin;
        }

        /** The plugin configuration (buffer 7 during {@code proxy_on_configure}). */
        public Builder withPluginConfig(String json) {
            this.pluginConfig = json.getBytes(StandardCharsets.UTF_8);
            return this;
        }

        /** The plugin configuration as a JSON object built from maps and lists. */
        public Builder withPluginConfig(Map<String, ?> json) {
            return withPluginConfig(toJson(json));
        }

        /** The VM configuration (buffer 6 during {@code proxy_on_vm_start}). */
        public Builder withVmConfig(String text) {
            this.vmConfig = text.getBytes(StandardCharsets.UTF_8);
            return this;
        }

        /** An Envoy cluster the guest may {@code proxy_redis_init}, served by a real Redis. */
        public Builder withRedisCluster(String clusterName, RedisEndpoint endpoint) {
            redisClusters.put(clusterName, endpoint);
            return this;
        }

        /** The hosts {@code proxy_get_upstream_hosts} lists for streams whose {@code cluster_name} is {@code cluster}. */
        public Builder withUpstreamHosts(String cluster, List<ClusterHost> hosts) {
            upstreams.put(cluster, List.copyOf(hosts));
            return this;
        }

        /** A property every context sees unless the stream sets its own; path segments separated by '.'. */
        public Builder withProperty(String path, String value) {
            properties.put(PropertyPath.key(path), value.getBytes(StandardCharsets.UTF_8));
            return this;
        }

        /** A WASI environment variable (Higress passes {@code vmConfig.env} this way). */
        public Builder withEnvironment(String name, String value) {
            environment.put(name, value);
            return this;
        }

        /** The clock of WASI and {@code proxy_get_current_time_nanoseconds}; a {@link VirtualClock} for simulations. */
        public Builder withClock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Seed of WASI {@code random_get}, so runs repeat. */
        public Builder withRandomSeed(long seed) {
            this.randomSeed = seed;
            return this;
        }

        public Builder withDelivery(Delivery delivery) {
            this.delivery = delivery;
            return this;
        }

        /** Answers HTTP calls by rule instead of from {@link Gateway#enqueueHttpResponse}'s queue. */
        public Builder withHttpDispatcher(HttpCallDispatcher dispatcher) {
            this.httpDispatcher = dispatcher;
            return this;
        }

        /** Sees every guest log line as it is written (e.g. {@code System.out::println}). */
        public Builder withLogSink(Consumer<LogLine> sink) {
            this.logSink = sink;
            return this;
        }

        /** After a trap, let streams of the dead VM pass instead of answering 503 {@code wasm_fail_stream}. */
        public Builder withFailOpen(boolean failOpen) {
            this.failOpen = failOpen;
            return this;
        }

        /**
         * Each stream's request buffer limit, as Envoy's listener {@code per_connection_buffer_limit_bytes} gives it
         * (stock Envoy: {@link io.ailb.hostkit.FilterStream#ENVOY_DEFAULT_BUFFER_LIMIT}); a filter that buffers more
         * request body than this gets a 413 unless it raised its stream's limit ({@code set_decoder_buffer_limit}).
         * No limit unless set.
         */
        public Builder withRequestBufferLimit(long bytes) {
            this.requestBufferLimit = bytes;
            return this;
        }

        /** How many of the guest's last log lines failure messages quote. */
        public Builder withLogTail(int lines) {
            this.logTail = lines;
            return this;
        }

        public Gateway build() {
            return new Gateway(this);
        }

        Clock clockValue() {
            return clock;
        }

        long randomSeed() {
            return randomSeed;
        }

        Map<String, String> environment() {
            return environment;
        }

        Delivery delivery() {
            return delivery;
        }

        Consumer<LogLine> logSink() {
            return logSink;
        }

        boolean failOpen() {
            return failOpen;
        }

        long requestBufferLimit() {
            return requestBufferLimit;
        }

        int logTail() {
            return logTail;
        }
    }

    /**
     * Starts one more VM as Envoy starts a worker's: {@code _start}, root context, {@code proxy_on_vm_start},
     * {@code proxy_on_configure}.
     *
     * @throws ConfigurationRejectedException if the guest rejects the VM or plugin configuration
     */
    public synchronized PluginVm startVm() {
        PluginVm vm = new PluginVm(this, nextVmId++, pluginConfig);
        vms.add(vm);
        return vm;
    }

    /**
     * Starts {@code workers} VMs after configuring a throw-away canary VM first, as Envoy does; if the canary rejects
     * the configuration no worker is started.
     */
    public synchronized List<PluginVm> start(int workers) {
        canary(pluginConfig);
        List<PluginVm> started = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            started.add(startVm());
        }
        return started;
    }

    /**
     * Pushes a new plugin configuration: a canary VM checks it; if accepted, each running VM gets a new root context
     * configured with it, otherwise they keep the old one.
     *
     * @return whether the configuration was accepted
     */
    public synchronized boolean reconfigure(String json) {
        byte[] candidate = json.getBytes(StandardCharsets.UTF_8);
        try {
            canary(candidate);
        } catch (ConfigurationRejectedException rejected) {
            return false;
        }
        pluginConfig = candidate;
        for (PluginVm vm : vms) {
            if (vm.isAlive()) {
                vm.configureNewRoot(candidate);
            }
        }
        return true;
    }

    private void canary(byte[] config) {
        PluginVm canary = new PluginVm(this, 0, config);
        canary.close();
    }

    /** Running VMs, in start order. */
    public synchronized List<PluginVm> vms() {
        return List.copyOf(vms);
    }

    public MetricRegistry metrics() {
        return metrics;
    }

    public SharedDataStore sharedData() {
        return sharedData;
    }

    /**
     * The Redis faults the VMs' next calls meet (delays, error replies, {@code NOSCRIPT}, dropped connections); empty
     * at first. A delay needs a {@link VirtualClock}: {@link #advance} delivers the delayed replies.
     */
    public RedisFaults redisFaults() {
        return redisFaults;
    }

    /**
     * Replaces the hosts {@code proxy_get_upstream_hosts} lists for {@code cluster} from the next stream on (hosts
     * turning unhealthy, flapping, added or removed), as Envoy's cluster manager updates a cluster.
     */
    public synchronized void setUpstreamHosts(String cluster, List<ClusterHost> hosts) {
        upstreams.put(cluster, List.copyOf(hosts));
    }

    /** Queues the answer to the next HTTP call (when no dispatcher is set); an empty queue means a timeout. */
    public synchronized Gateway enqueueHttpResponse(HttpCallAnswer response) {
        httpResponses.add(response);
        return this;
    }

    /** The oldest HTTP call not yet taken. */
    public synchronized Optional<HttpCallRequest> takeHttpCall() {
        return Optional.ofNullable(httpCalls.poll());
    }

    /**
     * Advances the {@link VirtualClock} by {@code step}, firing every VM's due ticks and delivering its delayed Redis
     * replies ({@link RedisFault#delay}) in time order.
     */
    public void advance(Duration step) {
        if (!(options.clock instanceof VirtualClock virtual)) {
            throw new EmulatorException("advance() needs a VirtualClock (Gateway.builder().withClock(...))");
        }
        long target = virtual.millis() + step.toMillis();
        while (true) {
            PluginVm next = null;
            long due = Long.MAX_VALUE;
            for (PluginVm vm : vms()) {
                long at = Math.min(vm.nextTickAtMillis(), vm.nextScheduledReplyAtMillis());
                if (at <= target && at < due) {
                    due = at;
                    next = vm;
                }
            }
            if (next == null) {
                break;
            }
            if (due > virtual.millis()) {
                virtual.advance(Duration.ofMillis(due - virtual.millis()));
            }
            if (next.nextScheduledReplyAtMillis() <= due) {
                next.releaseDueReplies(due);
            } else {
                next.tick();
            }
        }
        virtual.advance(Duration.ofMillis(target - virtual.millis()));
    }

    /** Redis traffic of all VMs together. */
    public synchronized RedisStats redisStats() {
        long trips = 0;
        long failures = 0;
        long sent = 0;
        long received = 0;
        for (PluginVm vm : vms) {
            RedisStats stats = vm.redisStats();
            trips += stats.roundTrips();
            failures += stats.failures();
            sent += stats.bytesSent();
            received += stats.bytesReceived();
        }
        return new RedisStats(trips, failures, sent, received);
    }

    public WasmPlugin plugin() {
        return plugin;
    }

    public Clock clock() {
        return options.clock;
    }

    @Override
    public synchronized void close() {
        for (PluginVm vm : vms) {
            vm.close();
        }
        vms.clear();
    }

    // Package-private accessors for VMs.

    Builder options() {
        return options;
    }

    Map<String, RedisEndpoint> redisClusters() {
        return Collections.unmodifiableMap(options.redisClusters);
    }

    synchronized List<ClusterHost> upstreamHosts(String cluster) {
        return upstreams.getOrDefault(cluster, List.of());
    }

    byte[] defaultProperty(String key) {
        return options.properties.get(key);
    }

    byte[] vmConfig() {
        return options.vmConfig;
    }

    synchronized HttpCallAnswer answer(HttpCallRequest request) {
        httpCalls.add(request);
        if (options.httpDispatcher != null) {
            return options.httpDispatcher.dispatch(request);
        }
        HttpCallAnswer queued = httpResponses.poll();
        return queued != null ? queued : HttpCallAnswer.timeout();
    }

    static String toJson(Object value) {
        try {
            return JSON.std.asString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
