package io.ailb.lb.flow;

import java.util.List;

/**
 * The metric names of one backend, {@code ailb.backend.<ip:port>.<kind>}: the host sits between two fixed parts, so
 * one Envoy {@code stats_tags} regex or one Prometheus relabel rule turns it into a label. Built once per host and
 * kept by the {@link RoutePolicy}: the names are used on every routed request.
 */
public final class BackendMetrics {
    /** Counter: requests pinned to the backend. */
    public static final String ROUTED = "routed";
    /** Counter: estimated prompt tokens of the requests a prefix-aware policy pinned to it. */
    public static final String PROMPT_TOKENS = "prompt_tokens";
    /** Counter: of those, the tokens of the blocks that matched a prefix the backend holds. */
    public static final String MATCHED_TOKENS = "matched_tokens";
    /** Gauge: this gateway's requests pinned to it and not yet ended (all its VMs add to one Envoy gauge). */
    public static final String INFLIGHT = "inflight";
    /** Gauge: its in-flight count across every gateway, as Redis reported it at the last decision for it. */
    public static final String INFLIGHT_GLOBAL = "inflight_global";
    /** Every kind, for documentation and checks. */
    public static final List<String> KINDS = List.of(ROUTED, PROMPT_TOKENS, MATCHED_TOKENS, INFLIGHT, INFLIGHT_GLOBAL);

    private static final String PREFIX = "ailb.backend.";

    private final String routed;
    private final String promptTokens;
    private final String matchedTokens;
    private final String inflight;
    private final String inflightGlobal;

    BackendMetrics(String host) {
        routed = name(host, ROUTED);
        promptTokens = name(host, PROMPT_TOKENS);
        matchedTokens = name(host, MATCHED_TOKENS);
        inflight = name(host, INFLIGHT);
        inflightGlobal = name(host, INFLIGHT_GLOBAL);
    }

    /** {@code ailb.backend.<host>.<kind>}. */
    public static String name(String host, String kind) {
        return PREFIX + host + "." + kind;
    }

    public String routed() {
        return routed;
    }

    public String promptTokens() {
        return promptTokens;
    }

    public String matchedTokens() {
        return matchedTokens;
    }

    public String inflight() {
        return inflight;
    }

    public String inflightGlobal() {
        return inflightGlobal;
    }
}
