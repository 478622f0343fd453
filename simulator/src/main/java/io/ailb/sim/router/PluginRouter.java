package io.ailb.sim.router;

import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonValue;
import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.LocalRedis;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.RedisStats;
import io.ailb.emulator.VirtualClock;
import io.ailb.emulator.WasmPlugin;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.policy.cacheaware.CacheAwarePolicy;
import io.ailb.sim.cluster.InServiceBalancer;
import io.ailb.sim.cluster.ServiceLayout;
import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.report.RunResult;
import io.ailb.sim.workload.StreamFlag;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The plugin as a router: {@code gateways} Higress gateways, one VM each, running the real .wasm with one plugin
 * configuration and sharing one real Redis (flushed when the router is created). Requests go to the gateways in turn;
 * each is a stream on the simulated route and cluster whose upstream hosts are the backends (health, and the /metrics
 * text in the host info, where endpoint_metrics reads it), with a chat-completions POST; Redis replies are delivered
 * automatically. The override host names the backend; without one (fallback, 429, trap) the cluster's default load
 * balancer picks a healthy backend at random (seeded). The stream completes when the request does, so in-flight
 * counts are released. Gateway clocks follow the simulated time.
 *
 * <p>{@code vmsPerGateway > 1} runs that many VMs in each gateway, as Envoy runs one per worker thread: they share
 * the gateway's shared data, a gateway's requests go to its VMs in turn, and their ticks follow the simulated time.
 *
 * <p>{@code requestsPerVm > 0} replaces a gateway's VM after that many requests (a fresh VM starts clean; Redis
 * state survives), as a configuration push does in Envoy; 0 keeps one VM for the whole run. A VM
 * that traps, or whose call runs longer than {@code guestTimeoutMs} of wall time (it is interrupted), is replaced too;
 * the request goes to the default load balancer and is counted in {@code vmTraps}.
 */
public final class PluginRouter implements MeasuredRouter, AutoCloseable {
    public static final String ROUTE = "ai-route-chat.sim";
    public static final String CLUSTER = "outbound|8000||llm.sim";
    public static final String REDIS_CLUSTER = "outbound|6379||redis.static";

    /**
     * How to run the plugin. {@code services} is null for lb_type endpoint (the override host names the backend); for
     * lb_type cluster it lists the services the configuration chooses among (the cluster header names one).
     */
    public record Options(
            String name,
            String pluginConfigJson,
            int gateways,
            int vmsPerGateway,
            int requestsPerVm,
            long seed,
            long guestTimeoutMs,
            ServiceLayout services) {
        public Options {
            if (gateways < 1 || vmsPerGateway < 1) {
                throw new IllegalArgumentException("at least one gateway and one VM per gateway");
            }
        }

        public Options(
                String name, String pluginConfigJson, int gateways, int requestsPerVm, long seed, long guestTimeoutMs) {
            this(name, pluginConfigJson, gateways, 1, requestsPerVm, seed, guestTimeoutMs, null);
        }

        /** With the default guest timeout ({@link #DEFAULT_GUEST_TIMEOUT_MS}). */
        public Options(String name, String pluginConfigJson, int gateways, int requestsPerVm, long seed) {
            this(name, pluginConfigJson, gateways, requestsPerVm, seed, DEFAULT_GUEST_TIMEOUT_MS);
        }
    }

    /** The request header lb_type cluster writes the chosen service into (the policies' default cluster_header). */
    public static final String CLUSTER_HEADER = "x-higress-target-cluster";

    /** The per-session header the simulator sends for cluster_hash ({@code hash_header}'s default). */
    public static final String SESSION_HEADER = "x-mse-consumer";

    /** The header routed requests name their conversation in (for cache_aware's {@code sessionHeader}). */
    public static final String CONVERSATION_HEADER = "x-session-id";

    /** A guest call running longer than this (wall time) is interrupted and its VM replaced; 0 = no limit. */
    public static final long DEFAULT_GUEST_TIMEOUT_MS = 20_000;

    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "plugin-router-watchdog");
        t.setDaemon(true);
        return t;
    });

    /** The simulator's Redis ({@link #REDIS_CLUSTER}) as a policy names it. */
    public static final String REDIS_FQDN = "redis.static";

    public static final int REDIS_PORT = 6379;

    /** The simulator's Redis as {@code lb_config} fields. */
    private static final String REDIS_FIELDS = "\"serviceFQDN\":\"" + REDIS_FQDN + "\",\"servicePort\":" + REDIS_PORT;

    /** The plugin configuration for a registered policy name, with the simulator's Redis when the policy needs one. */
    public static String configFor(String policy) {
        String lbConfig = usesRedis(policy) ? "{" + REDIS_FIELDS + "}" : "{}";
        return "{\"lb_policy\":\"" + policy + "\",\"lb_config\":" + lbConfig + "}";
    }

    /** The request headers of a chat completion POSTed to {@code authority}, as the plugin's stream sees them. */
    public static HeaderMap chatRequestHeaders(String authority, String contentType) {
        return HeaderMap.of(
                ":method",
                "POST",
                ":path",
                "/v1/chat/completions",
                ":authority",
                authority,
                "content-type",
                contentType);
    }

    /**
     * Whether a registered policy talks to Redis, as the policy itself reports it ({@code redisTargets()}) once built
     * by the core's registry with the simulator's Redis; so a new policy needs no entry here. Fails, naming the
     * reason, for a name that is not registered or a policy that needs more configuration than a Redis.
     */
    public static boolean usesRedis(String policy) {
        try {
            return !PolicyRegistry.create(
                            policy, "lb_policy", ConfigView.of(Json.parse("{" + REDIS_FIELDS + "}"), "lb_config"))
                    .redisTargets()
                    .isEmpty();
        } catch (ConfigException e) {
            throw new IllegalArgumentException(
                    "plugin:" + policy + " cannot run in the simulator: " + e.getMessage(), e);
        }
    }

    private final class Slot {
        final int number;
        Gateway gateway;
        VirtualClock clock;
        /** The gateway's VMs; {@link #vm} serves the current request. */
        final List<PluginVm> vms = new ArrayList<>();

        PluginVm vm;
        int nextVm;
        int served;

        Slot(int number) {
            this.number = number;
            start();
        }

        void start() {
            clock = VirtualClock.startingAt(Instant.EPOCH.plusMillis(lastNowMs));
            gateway = Gateway.builder(plugin)
                    .withPluginConfig(options.pluginConfigJson())
                    .withRedisCluster(REDIS_CLUSTER, redis.endpoint())
                    .withUpstreamHosts(CLUSTER, List.of())
                    .withClock(clock)
                    .withRandomSeed(options.seed() * 1000 + number * 31L + vmsStarted)
                    .build();
            vms.clear();
            for (int i = 0; i < options.vmsPerGateway(); i++) {
                vms.add(gateway.startVm());
            }
            vm = vms.get(0);
            nextVm = 0;
            served = 0;
            vmsStarted++;
            openByGateway.put(gateway, 0);
        }

        /** False when one of the gateway's VMs died: the whole gateway then starts again, as after requestsPerVm. */
        boolean allAlive() {
            for (PluginVm each : vms) {
                if (!each.isAlive()) {
                    return false;
                }
            }
            return true;
        }

        /** The gateway's next VM in turn serves the request. */
        void takeNextVm() {
            vm = vms.get(nextVm);
            nextVm = (nextVm + 1) % vms.size();
        }

        void syncClock(long nowMs) {
            advanceTo(gateway, clock, nowMs);
        }
    }

    /** Moves {@code gateway}'s {@code clock} to {@code nowMs}, firing its VMs' due ticks on the way. */
    private static void advanceTo(Gateway gateway, VirtualClock clock, long nowMs) {
        long delta = nowMs - clock.millis();
        if (delta > 0) {
            gateway.advance(Duration.ofMillis(delta));
        }
    }

    /**
     * {@code clock}: the gateway's, moved to each event's time before the plugin sees it. {@code streams}: the body
     * asked for a streamed answer, so the first token reaches the plugin as it comes.
     */
    private record Open(Gateway gateway, VirtualClock clock, HttpStream stream, boolean streams) {
        /** The gateway's clock (its VMs' ticks fired on the way) reads {@code nowMs}, as a real gateway's would. */
        void syncClock(long nowMs) {
            advanceTo(gateway, clock, nowMs);
        }
    }

    private static final HeaderMap STREAMING_RESPONSE_HEADERS =
            HeaderMap.of(":status", "200", "content-type", "text/event-stream");
    private static final HeaderMap WHOLE_RESPONSE_HEADERS =
            HeaderMap.of(":status", "200", "content-type", "application/json");
    private static final String WHOLE_ANSWER =
            "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"content\":\"A\"}}]}";
    private static final String FIRST_CHUNK =
            "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"A\"}}]}\n\n";

    private static final boolean DEBUG = System.getenv("AILB_SIM_DEBUG") != null;
    /** Where the plugin writes its decision's attributes (Higress's {@code ai_log} filter state). */
    private static final String ACCESS_LOG_PROPERTY = "ai_log";

    private final WasmPlugin plugin;
    private final LocalRedis redis;
    private final Options options;
    private final List<Slot> slots = new ArrayList<>();
    private final Map<Gateway, Integer> openByGateway = new HashMap<>();
    private final Map<Long, Open> open = new HashMap<>();
    private final SplittableRandom defaultLb;
    /** Null for lb_type endpoint. */
    private final InServiceBalancer serviceBalancer;

    private long lastNowMs;
    private int next;
    private int vmsStarted;
    private double[] decisionMicros = new double[1024];
    private int decisions;
    private long overrides;
    private long fallbacks;
    private long rejects;
    private long traps;
    private long retiredTrips;
    private long retiredBytes;
    /** The last routed request and the tokens its decision counted as cached on its target (-1: not said). */
    private long countedFor = -1;

    private long countedCached = -1;

    public PluginRouter(WasmPlugin plugin, LocalRedis redis, Options options) {
        this.plugin = plugin;
        this.redis = redis;
        this.options = options;
        this.defaultLb = new SplittableRandom(options.seed() ^ 0x5EEDL);
        this.serviceBalancer = options.services() == null ? null : new InServiceBalancer(options.services());
        redis.flushAll();
        for (int i = 0; i < options.gateways(); i++) {
            slots.add(new Slot(i));
        }
    }

    @Override
    public String name() {
        return options.name();
    }

    @Override
    public int gateways() {
        return options.gateways();
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        lastNowMs = cluster.nowMs();
        Slot slot = slots.get(next);
        next = (next + 1) % slots.size();
        if (!slot.allAlive()
                || (options.requestsPerVm() > 0
                        && slot.served >= (long) options.requestsPerVm() * options.vmsPerGateway())) {
            retire(slot.gateway);
            slot.start();
        }
        slot.takeNextVm();
        slot.syncClock(cluster.nowMs());
        slot.served++;
        if (options.services() != null) {
            return routeToService(slot, request, cluster);
        }

        List<BackendView> backends = cluster.backends();
        List<ClusterHost> hosts = new ArrayList<>(backends.size());
        Map<String, Integer> byAddress = new HashMap<>();
        for (BackendView b : backends) {
            hosts.add(new ClusterHost(b.address(), b.healthy() ? "Healthy" : "Unhealthy", b.metricsText()));
            byAddress.put(b.address(), b.index());
        }
        HttpStream stream = slot.vm
                .newHttpStream()
                .withRouteName(ROUTE)
                .withClusterName(CLUSTER)
                .withUpstreamHosts(hosts)
                .withRequestId("sim-" + request.id());
        long started = System.nanoTime();
        boolean served = sendGuarded(request, () -> {
            HeaderMap headers = chatRequestHeaders("llm.sim", "application/json");
            if (request.sessionId() != null) {
                headers = headers.add(CONVERSATION_HEADER, request.sessionId());
            }
            stream.sendRequestHeaders(headers, false);
            stream.sendRequestBody(request.body(), true);
        });
        Optional<String> override = served ? stream.upstreamOverride() : Optional.empty();
        countedFor = request.id();
        countedCached = served ? matchedTokens(stream) : -1;
        if (DEBUG) {
            System.err.printf(
                    "plugin %s: request %d (%d body chars) on gateway %d/VM %d: %.1f ms -> %s%n",
                    name(),
                    request.id(),
                    request.body().length(),
                    slot.number,
                    vmsStarted,
                    (System.nanoTime() - started) / 1e6,
                    override.orElse("fallback"));
        }

        if (stream.localReply().isPresent()) {
            rejects++;
        }
        Integer index = override.map(byAddress::get).orElse(null);
        if (index != null) {
            overrides++;
        } else {
            fallbacks++;
            index = defaultLoadBalancer(backends);
        }
        if (slot.vm.isAlive() && !stream.isEnded()) {
            open.put(request.id(), new Open(slot.gateway, slot.clock, stream, StreamFlag.streams(request.body())));
            openByGateway.merge(slot.gateway, 1, Integer::sum);
        }
        return index;
    }

    @Override
    public long cachedTokensCountedOn(SimRequest request) {
        return request.id() == countedFor ? countedCached : -1;
    }

    /**
     * The decision's {@code matched_tokens} from the access-log property the plugin writes (its attributes, values
     * as strings); -1 without one (a policy that does not report it, a fallback).
     */
    private static long matchedTokens(HttpStream stream) {
        Optional<String> log = stream.property(ACCESS_LOG_PROPERTY);
        if (log.isEmpty()) {
            return -1;
        }
        try {
            JsonValue matched = Json.parse(log.get()).get(CacheAwarePolicy.ATTR_MATCHED_TOKENS);
            return matched != null && matched.isString() ? Long.parseLong(matched.asString()) : -1;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * lb_type cluster: the plugin writes the chosen service into {@link #CLUSTER_HEADER} at the request headers; Envoy
     * re-selects the route by it, so the stream's {@code cluster_name} becomes that service before the response comes
     * back (the plugin checks it), and the service's own balancer picks the backend. No header (a local reply, a
     * trap): the route's default, here a random service, as a fallback.
     */
    private int routeToService(Slot slot, SimRequest request, ClusterView cluster) {
        ServiceLayout services = options.services();
        HttpStream stream = slot.vm
                .newHttpStream()
                .withRouteName(ROUTE)
                .withClusterName(CLUSTER)
                .withUpstreamHosts(List.of())
                .withRequestId("sim-" + request.id());
        boolean served = sendGuarded(request, () -> {
            HeaderMap headers = chatRequestHeaders("llm.sim", "application/json")
                    .add(SESSION_HEADER, request.sessionId() != null ? request.sessionId() : "request-" + request.id());
            stream.sendRequestHeaders(headers, false);
            if (!stream.isEnded()) {
                stream.sendRequestBody(request.body(), true);
            }
        });
        String written = served ? stream.requestHeaders().get(CLUSTER_HEADER).orElse(null) : null;
        countedFor = request.id();
        countedCached = -1;
        if (stream.localReply().isPresent()) {
            rejects++;
        }
        int service = written == null ? -1 : services.indexOfCluster(written);
        if (service >= 0) {
            overrides++;
        } else {
            fallbacks++;
            service = defaultLb.nextInt(services.size());
        }
        stream.withClusterName(services.service(service).cluster());
        if (slot.vm.isAlive() && !stream.isEnded()) {
            open.put(request.id(), new Open(slot.gateway, slot.clock, stream, StreamFlag.streams(request.body())));
            openByGateway.merge(slot.gateway, 1, Integer::sum);
        }
        return serviceBalancer.pick(service, cluster);
    }

    /**
     * Sends a request's callbacks with the watchdog armed and records the guest time; false when the guest trapped
     * (the VM is dead, its decision does not count).
     */
    private boolean sendGuarded(SimRequest request, Runnable send) {
        long started = System.nanoTime();
        ScheduledFuture<?> watchdog = arm();
        try {
            send.run();
            return true;
        } catch (RuntimeException trap) {
            traps++;
            if (DEBUG) {
                System.err.println("plugin " + name() + ": request " + request.id() + ": " + trap);
            }
            return false;
        } finally {
            disarm(watchdog);
            record(System.nanoTime() - started);
        }
    }

    /** Interrupts this thread if the guest runs too long (Chicory then stops the call, and the VM is dead). */
    private ScheduledFuture<?> arm() {
        if (options.guestTimeoutMs() <= 0) {
            return null;
        }
        Thread caller = Thread.currentThread();
        return WATCHDOG.schedule(caller::interrupt, options.guestTimeoutMs(), TimeUnit.MILLISECONDS);
    }

    private static void disarm(ScheduledFuture<?> watchdog) {
        if (watchdog != null) {
            watchdog.cancel(false);
            // the interrupt may have fired after the call returned; it must not leak into the next one
            Thread.interrupted();
        }
    }

    private int defaultLoadBalancer(List<BackendView> backends) {
        List<Integer> healthy = new ArrayList<>();
        for (BackendView b : backends) {
            if (b.healthy()) {
                healthy.add(b.index());
            }
        }
        if (healthy.isEmpty()) {
            return backends.get(defaultLb.nextInt(backends.size())).index();
        }
        return healthy.get(defaultLb.nextInt(healthy.size()));
    }

    private void record(long nanos) {
        if (decisions == decisionMicros.length) {
            decisionMicros = Arrays.copyOf(decisionMicros, decisions * 2);
        }
        decisionMicros[decisions++] = nanos / 1000.0;
    }

    /** What the clock of the gateway serving the open request {@code requestId} reads, in ms; -1 when none is open. */
    long gatewayClockMillis(long requestId) {
        Open o = open.get(requestId);
        return o == null ? -1 : o.clock().millis();
    }

    /** The backend streams its answer: response headers and the first chunk reach the plugin now. */
    @Override
    public void onFirstToken(SimRequest request, int backend, long nowMs) {
        Open o = open.get(request.id());
        if (o == null || !o.streams()) {
            return;
        }
        lastNowMs = nowMs;
        o.syncClock(nowMs);
        callOpenStream(o, stream -> {
            stream.sendResponseHeaders(STREAMING_RESPONSE_HEADERS.copy(), false);
            stream.sendResponseBody(FIRST_CHUNK, false);
        });
    }

    @Override
    public void onComplete(SimRequest request, int backend, long nowMs) {
        Open o = open.remove(request.id());
        if (o == null) {
            return;
        }
        lastNowMs = nowMs;
        o.syncClock(nowMs);
        callOpenStream(o, stream -> {
            if (!o.streams()) {
                stream.sendResponseHeaders(WHOLE_RESPONSE_HEADERS.copy(), false);
                stream.sendResponseBody(WHOLE_ANSWER, false);
            }
            stream.complete();
        });
        int left = openByGateway.merge(o.gateway(), -1, Integer::sum);
        if (left <= 0 && !isCurrent(o.gateway())) {
            closeGateway(o.gateway());
        }
    }

    /**
     * Runs {@code call} on the request's stream while its VM is alive and the stream open, under the guest watchdog; a
     * trap is counted (the emulator has already replaced the VM).
     */
    private void callOpenStream(Open o, Consumer<HttpStream> call) {
        if (!o.stream().vm().isAlive() || o.stream().isEnded()) {
            return;
        }
        ScheduledFuture<?> watchdog = arm();
        try {
            call.accept(o.stream());
        } catch (RuntimeException trap) {
            traps++;
        } finally {
            disarm(watchdog);
        }
    }

    private boolean isCurrent(Gateway gateway) {
        for (Slot s : slots) {
            if (s.gateway == gateway) {
                return true;
            }
        }
        return false;
    }

    /** A gateway leaves the rotation; it is closed once its open streams are done. */
    private void retire(Gateway gateway) {
        Integer left = openByGateway.get(gateway);
        if (left == null || left <= 0) {
            closeGateway(gateway);
        }
    }

    private void closeGateway(Gateway gateway) {
        if (openByGateway.remove(gateway) == null) {
            return;
        }
        RedisStats stats = gateway.redisStats();
        retiredTrips += stats.roundTrips();
        retiredBytes += stats.bytesSent() + stats.bytesReceived();
        gateway.close();
    }

    @Override
    public RunResult.PluginStats pluginStats() {
        long trips = retiredTrips;
        long bytes = retiredBytes;
        for (Gateway g : openByGateway.keySet()) {
            RedisStats stats = g.redisStats();
            trips += stats.roundTrips();
            bytes += stats.bytesSent() + stats.bytesReceived();
        }
        return new RunResult.PluginStats(
                RunResult.Latency.of(Arrays.copyOf(decisionMicros, decisions)),
                trips,
                bytes,
                overrides,
                fallbacks,
                rejects,
                traps,
                vmsStarted,
                decisions);
    }

    @Override
    public void close() {
        for (Open o : open.values()) {
            if (o.stream().vm().isAlive() && !o.stream().isEnded()) {
                o.stream().reset();
            }
        }
        open.clear();
        for (Gateway g : new ArrayList<>(openByGateway.keySet())) {
            closeGateway(g);
        }
    }
}
