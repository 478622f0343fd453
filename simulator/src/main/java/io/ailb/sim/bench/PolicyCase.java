package io.ailb.sim.bench;

import io.ailb.emulator.ClusterHost;
import io.ailb.sim.router.PluginRouter;
import java.util.List;

/** One policy under test: its plugin configuration (the simulator's) and the upstream hosts (metrics in host info). */
enum PolicyCase {
    LEAST_BUSY("least_busy"),
    GLOBAL_LEAST_REQUEST("global_least_request"),
    PREFIX_CACHE("prefix_cache"),
    CACHE_AWARE("cache_aware");

    static final String ROUTE = "ai-route-chat.internal";
    static final String CLUSTER = "outbound|8000||llm.static";
    static final String REDIS_CLUSTER = PluginRouter.REDIS_CLUSTER;
    static final String AUTHORITY = "llm.example.com";
    static final String CONTENT_TYPE = "application/json";

    private static final String BUSY =
            "vllm:num_requests_waiting 9\nvllm:num_requests_running 9\nvllm:gpu_cache_usage_perc 0.9\n";
    private static final String IDLE =
            "vllm:num_requests_waiting 0\nvllm:num_requests_running 1\nvllm:gpu_cache_usage_perc 0.1\n";
    private static final String MEDIUM =
            "vllm:num_requests_waiting 3\nvllm:num_requests_running 4\nvllm:gpu_cache_usage_perc 0.5\n";

    /** Three healthy vLLM backends, metrics in the host info as Higress reports them. */
    static final List<ClusterHost> HOSTS = List.of(
            new ClusterHost("10.0.0.1:8000", "Healthy", BUSY),
            new ClusterHost("10.0.0.2:8000", "Healthy", IDLE),
            new ClusterHost("10.0.0.3:8000", "Healthy", MEDIUM));

    final String policyName;
    final String configJson;
    final boolean usesRedis;

    PolicyCase(String policyName) {
        this.policyName = policyName;
        this.configJson = PluginRouter.configFor(policyName);
        this.usesRedis = PluginRouter.usesRedis(policyName);
    }

    static PolicyCase byName(String name) {
        for (PolicyCase value : values()) {
            if (value.policyName.equals(name)) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown policy " + name);
    }
}
