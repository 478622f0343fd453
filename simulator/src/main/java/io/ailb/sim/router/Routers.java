package io.ailb.sim.router;

import io.ailb.emulator.LocalRedis;
import io.ailb.emulator.WasmArtifacts;
import io.ailb.emulator.WasmPlugin;
import io.ailb.sim.cluster.ClusterConfigs;
import io.ailb.sim.cluster.ServiceBaselines;
import io.ailb.sim.cluster.ServiceLayout;
import io.ailb.sim.router.baseline.Baselines;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Turns router specs into fresh routers. {@code plugin:POLICY} runs the .wasm with {@link PluginRouter#configFor};
 * {@code plugin:@FILE} and {@code plugin:{JSON}} run it with that plugin configuration. Any other name is a
 * {@link Baselines} router.
 */
public final class Routers {
    /** The {@link WasmArtifacts} name of the plugin module. */
    static final String PLUGIN_MODULE = "ai-load-balancer";

    /** Plugin-related resources, created on first use and shared by every plugin router of one invocation. */
    public static final class PluginEnvironment implements AutoCloseable {
        private final Path wasm;
        private final int gateways;
        private final int vmsPerGateway;
        private final int requestsPerVm;
        private final long guestTimeoutMs;
        private WasmPlugin plugin;
        private LocalRedis redis;

        public PluginEnvironment(Path wasm, int gateways, int requestsPerVm) {
            this(wasm, gateways, requestsPerVm, PluginRouter.DEFAULT_GUEST_TIMEOUT_MS);
        }

        /** @param wasm the module to run; null for {@link #defaultWasm()}, looked up when a plugin router first runs */
        public PluginEnvironment(Path wasm, int gateways, int requestsPerVm, long guestTimeoutMs) {
            this(wasm, gateways, 1, requestsPerVm, guestTimeoutMs);
        }

        /** With {@code vmsPerGateway} worker VMs in each gateway, sharing its shared data. */
        public PluginEnvironment(Path wasm, int gateways, int vmsPerGateway, int requestsPerVm, long guestTimeoutMs) {
            this.wasm = wasm;
            this.gateways = gateways;
            this.vmsPerGateway = vmsPerGateway;
            this.requestsPerVm = requestsPerVm;
            this.guestTimeoutMs = guestTimeoutMs;
        }

        synchronized WasmPlugin plugin() {
            if (plugin == null && wasm == null) {
                plugin = WasmArtifacts.load(PLUGIN_MODULE);
            } else if (plugin == null) {
                if (!Files.isRegularFile(wasm)) {
                    throw new IllegalStateException(wasm + " is missing: build plugin-src/shell first");
                }
                plugin = WasmPlugin.load(wasm);
            }
            return plugin;
        }

        synchronized LocalRedis redis() {
            if (redis == null) {
                redis = LocalRedis.start();
            }
            return redis;
        }

        @Override
        public synchronized void close() {
            if (redis != null) {
                redis.close();
                redis = null;
            }
        }
    }

    private Routers() {}

    /** The module plugin-src/shell built, as the Maven build resolves it ({@link WasmArtifacts}). */
    public static Path defaultWasm() {
        return WasmArtifacts.path(PLUGIN_MODULE);
    }

    /** Splits a comma-separated list of specs, keeping commas inside a {@code plugin:{…}} JSON. */
    public static List<String> split(String specs) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (char c : specs.toCharArray()) {
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                if (!current.toString().isBlank()) {
                    out.add(current.toString().strip());
                }
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().strip());
        }
        return out;
    }

    /** A supplier of fresh routers for {@code spec}; fails now if the spec cannot be resolved. */
    public static Supplier<Router> resolve(String spec, long seed, PluginEnvironment env) {
        if (spec.startsWith("plugin:")) {
            String rest = spec.substring("plugin:".length());
            GivenConfig given = GivenConfig.of(rest);
            String name = given != null ? given.name() : spec;
            String config = given != null ? given.json() : PluginRouter.configFor(rest);
            return pluginRouters(name, config, seed, env, null);
        }
        Baselines.create(spec, seed); // fails now, naming the known routers, for an unknown spec
        return () -> Baselines.create(spec, seed);
    }

    /**
     * lb_type cluster: a supplier of fresh routers choosing among {@code services}. {@code plugin:NAME} runs the .wasm
     * with {@link ClusterConfigs#configFor}; {@code plugin:@FILE} and {@code plugin:{JSON}} with that configuration
     * (its cluster header must be the default, {@link PluginRouter#CLUSTER_HEADER}); any other name is a
     * {@link ServiceBaselines} router.
     */
    public static Supplier<Router> resolveForServices(
            String spec, long seed, PluginEnvironment env, ServiceLayout services) {
        if (spec.startsWith("plugin:")) {
            String rest = spec.substring("plugin:".length());
            GivenConfig given = GivenConfig.of(rest);
            String name = given != null ? given.name() : spec;
            String config = given != null
                    ? given.json()
                    : ClusterConfigs.configFor(rest, services, PluginRouter.REDIS_FQDN, PluginRouter.REDIS_PORT);
            return pluginRouters(name, config, seed, env, services);
        }
        ServiceBaselines.create(spec, services, seed); // fails now, naming the known routers, for an unknown spec
        return () -> ServiceBaselines.create(spec, services, seed);
    }

    /** Fresh plugin routers running {@code config}; {@code services} null for endpoint routing (lb_type endpoint). */
    private static Supplier<Router> pluginRouters(
            String name, String config, long seed, PluginEnvironment env, ServiceLayout services) {
        return () -> new PluginRouter(
                env.plugin(),
                env.redis(),
                new PluginRouter.Options(
                        name,
                        config,
                        env.gateways,
                        env.vmsPerGateway,
                        env.requestsPerVm,
                        seed,
                        env.guestTimeoutMs,
                        services));
    }

    /** A configuration given with the spec ({@code @FILE} or {@code {JSON}}) and the router name it gets. */
    private record GivenConfig(String name, String json) {
        /** Null when {@code rest} names a policy instead. */
        static GivenConfig of(String rest) {
            if (rest.startsWith("@")) {
                Path file = Path.of(rest.substring(1));
                try {
                    return new GivenConfig("plugin:" + file.getFileName(), Files.readString(file));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read plugin configuration " + file, e);
                }
            }
            if (rest.startsWith("{")) {
                return new GivenConfig("plugin:" + policyOf(rest) + indexOf(rest), rest);
            }
            return null;
        }
    }

    /** "+local" for cache_aware's {@code "index":"local"}, so it reads apart from the Redis mode; else "". */
    private static String indexOf(String json) {
        return json.replace(" ", "").contains("\"index\":\"local\"") ? "+local" : "";
    }

    private static String policyOf(String json) {
        int at = json.indexOf("\"lb_policy\"");
        if (at < 0) {
            return "custom";
        }
        int colon = json.indexOf(':', at);
        int q1 = json.indexOf('"', colon + 1);
        int q2 = q1 < 0 ? -1 : json.indexOf('"', q1 + 1);
        return q1 < 0 || q2 < 0 ? "custom" : json.substring(q1 + 1, q2);
    }
}
