package io.ailb.sim.bench;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.GuestTrapException;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.RedisEndpoint;
import io.ailb.emulator.Vm;
import io.ailb.emulator.WasmPlugin;
import java.util.ArrayList;
import java.util.List;

/**
 * The real .wasm in the emulator (Chicory compiled mode) with a real Redis, one VM at a time. A VM that traps is
 * replaced by a fresh one (the trap is recorded with the number of requests the VM had served); with
 * {@link #recycleEvery} set, VMs are also replaced proactively, outside the timed region.
 */
final class WasmDriver implements AutoCloseable {
    private static final HeaderMap POST = HeaderMap.of(":method", "POST", ":path", "/v1/chat/completions",
            ":authority", PolicyCase.AUTHORITY, "content-type", PolicyCase.CONTENT_TYPE);

    /** A trap: which VM, after how many completed requests on it, with what message. */
    record Trap(int requestsBefore, String message) {
    }

    private final WasmPlugin plugin;
    private final PolicyCase policy;
    private final RedisEndpoint redis;
    private final List<Trap> traps = new ArrayList<>();
    private Gateway gateway;
    private Vm vm;
    private int requestsOnVm;
    private int vmsStarted;
    private long retiredRedisTrips;
    int recycleEvery;

    WasmDriver(WasmPlugin plugin, PolicyCase policy, RedisEndpoint redis) {
        this.plugin = plugin;
        this.policy = policy;
        this.redis = redis;
        freshVm();
    }

    /** Replaces the VM if it is dead or has served {@link #recycleEvery} requests; call outside timed regions. */
    void prepare() {
        if (vm == null || !vm.isAlive() || (recycleEvery > 0 && requestsOnVm >= recycleEvery)) {
            freshVm();
        }
    }

    void freshVm() {
        if (gateway != null) {
            retiredRedisTrips += gateway.redisStats().roundTrips();
            gateway.close();
        }
        // One gateway per VM: a gateway keeps every VM it started, and a benchmark may start hundreds.
        gateway = Gateway.builder(plugin).withPluginConfig(policy.configJson)
                .withRedisCluster(PolicyCase.REDIS_CLUSTER, redis)
                .withUpstreamHosts(PolicyCase.CLUSTER, PolicyCase.HOSTS).build();
        vm = gateway.startVm();
        requestsOnVm = 0;
        vmsStarted++;
    }

    /**
     * One request start to end: context, headers, whole body, Redis reply delivery, end of stream (log, done, delete)
     * and the release. Returns the override host (null = the cluster decided); throws {@link GuestTrapException}
     * after recording the trap.
     */
    String request(byte[] body) {
        try {
            HttpStream stream = vm.newHttpStream().withRouteName(PolicyCase.ROUTE).withClusterName(PolicyCase.CLUSTER);
            stream.sendRequestHeaders(POST.copy(), false);
            stream.sendRequestBody(body, true);
            String override = stream.upstreamOverride().orElse(null);
            stream.complete();
            requestsOnVm++;
            return override;
        } catch (GuestTrapException e) {
            traps.add(new Trap(requestsOnVm, firstLine(e.getMessage())));
            throw e;
        }
    }

    Vm vm() {
        return vm;
    }

    int requestsOnVm() {
        return requestsOnVm;
    }

    List<Trap> traps() {
        return traps;
    }

    /** Redis round trips of the VMs already replaced. */
    long retiredRedisTrips() {
        return retiredRedisTrips;
    }

    int vmsStarted() {
        return vmsStarted;
    }

    /** TeaVM's current Java heap size in bytes ({@code teavm_availableBytes} = WasmHeap.heapSize), or -1. */
    long heapBytes() {
        return exportValue("teavm_availableBytes");
    }

    /** Where TeaVM's Java heap starts in linear memory ({@code teavm_javaHeapAddress}), or -1. */
    long heapAddress() {
        return exportValue("teavm_javaHeapAddress");
    }

    private long exportValue(String name) {
        if (vm == null || !vm.isAlive()) {
            return -1;
        }
        long[] result = vm.callExport(name);
        return result == null || result.length == 0 ? -1 : result[0];
    }

    static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    @Override
    public void close() {
        if (gateway != null) {
            gateway.close();
        }
    }
}
