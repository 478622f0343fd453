package io.ailb.sim.router.baseline;

import io.ailb.sim.router.Router;
import java.util.List;

/** The baseline routers by the names the result tables and the CLI use. */
public final class Baselines {
    private static final List<String> NAMES = List.of(
            "random",
            "round_robin",
            "least_inflight",
            "max_prefix",
            SglangCacheAwareRouter.NAME,
            SglangCacheAwareRouter.NAME_2025,
            SmgCacheAwareRouter.NAME,
            "llmd",
            "llmd_precise",
            "dynamo",
            "dynamo_kv_events",
            TtftReferenceRouter.GREEDY,
            TtftReferenceRouter.LOOKAHEAD);

    private Baselines() {}

    /** Every name {@link #create} accepts, in table order (cache-blind, products, perfect-knowledge references). */
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
            case SglangCacheAwareRouter.NAME:
                return new SglangCacheAwareRouter(seed, SglangCacheAwareRouter.LowMatch.MIN_LOAD);
            case SglangCacheAwareRouter.NAME_2025:
                return new SglangCacheAwareRouter(seed, SglangCacheAwareRouter.LowMatch.SMALLEST_TREE);
            case SmgCacheAwareRouter.NAME:
                return new SmgCacheAwareRouter(seed);
            case "llmd":
                return new LlmdRouter(seed, LlmdRouter.Profile.APPROXIMATE);
            case "llmd_precise":
                return new LlmdRouter(seed, LlmdRouter.Profile.PRECISE);
            case "dynamo":
                return new DynamoRouter(seed, DynamoRouter.Overlap.APPROXIMATE);
            case "dynamo_kv_events":
                return new DynamoRouter(seed, DynamoRouter.Overlap.KV_EVENTS);
            case TtftReferenceRouter.GREEDY:
                return new TtftReferenceRouter(false);
            case TtftReferenceRouter.LOOKAHEAD:
                return new TtftReferenceRouter(true);
            default:
                throw new IllegalArgumentException(
                        "unknown baseline router '" + name + "'; known: " + String.join(", ", NAMES));
        }
    }
}
