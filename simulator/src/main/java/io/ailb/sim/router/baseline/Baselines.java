package io.ailb.sim.router.baseline;

import io.ailb.sim.router.Router;
import java.util.List;

/** The baseline routers by the names the result tables and the CLI use. */
public final class Baselines {
    private static final List<String> NAMES = List.of("random", "round_robin", "least_inflight", "max_prefix",
            "sglang_cache_aware", "llmd", "dynamo", "dynamo_kv_events", "oracle");

    private Baselines() {
    }

    /** Every name {@link #create} accepts, in table order (cache-blind, cache-aware products, oracle). */
    public static List<String> names() {
        return NAMES;
    }

    /**
     * A fresh router (routers hold state: create one per run). {@code seed} drives every random choice, so the same
     * seed on the same run gives the same decisions.
     *
     * @throws IllegalArgumentException for an unknown name; the message lists the known ones
     */
    public static Router create(String name, long seed) {
        switch (name == null ? "" : name) {
            case "random":
                return new RandomRouter(seed);
            case "round_robin":
                return new RoundRobinRouter();
            case "least_inflight":
                return new LeastInflightRouter(seed);
            case "max_prefix":
                return new MaxPrefixRouter(seed);
            case "sglang_cache_aware":
                return new SglangCacheAwareRouter();
            case "llmd":
                return new LlmdRouter(seed);
            case "dynamo":
                return new DynamoRouter(seed, DynamoRouter.Overlap.APPROXIMATE);
            case "dynamo_kv_events":
                return new DynamoRouter(seed, DynamoRouter.Overlap.KV_EVENTS);
            case "oracle":
                return new OracleRouter();
            default:
                throw new IllegalArgumentException(
                        "unknown baseline router '" + name + "'; known: " + String.join(", ", NAMES));
        }
    }
}
