package io.ailb.sim.bench;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.GuestTrapException;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.RedisEndpoint;
import io.ailb.emulator.WasmPlugin;
import io.ailb.sim.router.PluginRouter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The real .wasm in the emulator (Chicory compiled mode) with a real Redis, one VM at a time. A VM that traps is
 * replaced by a fresh one (the trap is recorded with the number of requests the VM had served); with
 * {@link #recycleEvery} set, VMs are also replaced proactively, outside the timed region.
 */
final class WasmDriver implements AutoCloseable {
    private static final HeaderMap POST =
            PluginRouter.chatRequestHeaders(PolicyCase.AUTHORITY, PolicyCase.CONTENT_TYPE);

    /** A guest call that did not return in time and was interrupted; the VM is dead. */
    static final class HangException extends RuntimeException {
        HangException(String message) {
            super(message);
        }
    }

    /** Whether {@code e} means the VM died (trap or hang). */
    static boolean vmDied(RuntimeException e) {
        return e instanceof GuestTrapException || e instanceof HangException;
    }

    /** A trap: which VM, after how many completed requests on it, with what message. */
    record Trap(int requestsBefore, String message) {}

    private final WasmPlugin plugin;
    private final PolicyCase policy;
    private final RedisEndpoint redis;
    private final List<Trap> traps = new ArrayList<>();
    /** Guest calls run here, so a guest stuck in a loop can be interrupted (Chicory's compiled code checks). */
    private final ExecutorService worker = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "wasm-driver");
        thread.setDaemon(true);
        return thread;
    });
    /** A request running longer than this is interrupted and counted as a hang (the VM dies). */
    long hangMillis = 30_000;
    /** CPU and wall nanoseconds of the last {@link #request}, measured on the thread that ran the guest. */
    long lastCpuNanos;

    long lastWallNanos;
    private Gateway gateway;
    private PluginVm vm;
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
        gateway = Gateway.builder(plugin)
                .withPluginConfig(policy.configJson)
                .withRedisCluster(PolicyCase.REDIS_CLUSTER, redis)
                .withUpstreamHosts(PolicyCase.CLUSTER, PolicyCase.HOSTS)
                .build();
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
        Future<String> call = worker.submit(() -> {
            long wall0 = System.nanoTime();
            long cpu0 = CpuClock.now();
            HttpStream stream =
                    vm.newHttpStream().withRouteName(PolicyCase.ROUTE).withClusterName(PolicyCase.CLUSTER);
            stream.sendRequestHeaders(POST.copy(), false);
            stream.sendRequestBody(body, true);
            String override = stream.upstreamOverride().orElse(null);
            stream.complete();
            lastCpuNanos = CpuClock.now() - cpu0;
            lastWallNanos = System.nanoTime() - wall0;
            return override;
        });
        try {
            String override = call.get(hangMillis, TimeUnit.MILLISECONDS);
            requestsOnVm++;
            return override;
        } catch (TimeoutException e) {
            call.cancel(true);
            awaitWorker();
            String message = "hung: no answer within " + hangMillis + " ms, interrupted (guest looping in "
                    + "proxy_on_request_body or later)";
            traps.add(new Trap(requestsOnVm, message));
            throw new HangException(message);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof GuestTrapException trap) {
                traps.add(new Trap(requestsOnVm, firstLine(trap.getMessage())));
                throw trap;
            }
            throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the interrupted guest call has unwound (the worker then runs the next task). */
    private void awaitWorker() {
        try {
            worker.submit(() -> {}).get(60, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the wasm worker did not stop after an interrupt", e);
        }
    }

    PluginVm vm() {
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
        long[] result;
        try {
            result = worker.submit(() -> vm.callExport(name)).get(60, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            return -1;
        }
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
        worker.shutdownNow();
    }
}
