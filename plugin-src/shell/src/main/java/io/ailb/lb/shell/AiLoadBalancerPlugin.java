package io.ailb.lb.shell;

import io.ailb.proxywasm.ProxyWasm;

/** The Wasm entry point: {@code wasm-out/ai-load-balancer.wasm}. */
public final class AiLoadBalancerPlugin {
    private AiLoadBalancerPlugin() {}

    /** Only registers the root context: Envoy runs this in a start phase where most host calls are refused. */
    public static void main(String[] args) {
        ProxyWasm.setRootContext(LoadBalancerRoot::new);
    }
}
