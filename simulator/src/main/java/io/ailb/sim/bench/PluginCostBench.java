package io.ailb.sim.bench;

import io.ailb.emulator.GuestTrapException;
import io.ailb.emulator.LocalRedis;
import io.ailb.emulator.WasmArtifacts;
import io.ailb.emulator.WasmPlugin;
import io.ailb.sim.report.BenchmarksDoc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Per-request decision cost of each policy versus chat-body size, in the real .wasm (emulator, Chicory compiled mode,
 * real Redis) next to the same core run directly on the JVM; plus module size and TeaVM's heap after many requests.
 * Prints a table and writes section {@code plugin-cost} of docs/benchmarks.md.
 *
 * <p>{@code mvn -q -pl simulator compile exec:java@plugin-cost} (options: {@code -Dexec.args="--help"}).
 */
public final class PluginCostBench {
    static final String COMMAND = "mvn -q -pl simulator compile exec:java@plugin-cost";
    static final int[] DEFAULT_SIZES = {1 << 10, 16 << 10, 256 << 10, 1 << 20, 4 << 20};

    /** Command-line options. */
    static final class Options extends CostBenchOptions {
        List<PolicyCase> policies = List.of(PolicyCase.values());
        int heapRequests = 100_000;
        int heapBodyBytes = 1 << 10;
        int recycleEvery;

        Options() {
            super(DEFAULT_SIZES, COMMAND);
            warmUpSeconds = 20;
            measureSeconds = 4;
            minSamples = 5;
            hangSeconds = 15;
        }

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--policies" -> o.policies = java.util.Arrays.stream(value.split(","))
                            .map(PolicyCase::byName)
                            .toList();
                    case "--heap-requests" -> o.heapRequests = Integer.parseInt(value);
                    case "--heap-body" -> o.heapBodyBytes = parseSize(value);
                    case "--recycle-every" -> o.recycleEvery = Integer.parseInt(value);
                    default -> {
                        if (!o.readShared(args[i], value)) {
                            System.err.println("usage: PluginCostBench [--wasm path] [--doc path|-]"
                                    + " [--sizes 1k,16k,...] [--policies least_busy,...] [--warmup-seconds s]"
                                    + " [--warmup-max n] [--measure-seconds s] [--min-samples n] [--max-samples n]"
                                    + " [--heap-requests n] [--heap-body 1k] [--recycle-every k] [--hang-seconds s]");
                            System.exit(args[i].equals("--help") ? 0 : 2);
                        }
                    }
                }
                i++;
            }
            return o;
        }
    }

    /** The result of one policy and body size. */
    record Row(
            PolicyCase policy,
            int bodyBytes,
            int messages,
            Samples wasm,
            Samples jvm,
            int wasmRouted,
            int jvmRouted,
            double redisPerRequest,
            String note) {}

    /** Heap readings of one long run on one VM. */
    record HeapRun(
            PolicyCase policy,
            long startHeap,
            long heapAddress,
            Map<Integer, Long> readings,
            int served,
            WasmDriver.Trap trap) {}

    private PluginCostBench() {}

    /** The repository root, for docs/: system property {@code ailb.root} (set by exec:java), else the working dir. */
    static Path root() {
        return Path.of(System.getProperty("ailb.root", ".")).toAbsolutePath().normalize();
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        CpuClock.check();
        if (options.wasm != null && !Files.isRegularFile(options.wasm)) {
            throw new IllegalStateException(options.wasm.toAbsolutePath() + " is missing: build plugin-src/shell");
        }
        WasmPlugin plugin =
                options.wasm != null ? WasmPlugin.load(options.wasm) : WasmArtifacts.load("ai-load-balancer");
        List<Row> rows = new ArrayList<>();
        List<HeapRun> heap = new ArrayList<>();
        List<String> trapLog = new ArrayList<>();
        int[] recycle = {options.recycleEvery};
        try (LocalRedis redis = LocalRedis.start()) {
            for (PolicyCase policy : options.policies) {
                redis.flushAll();
                try (WasmDriver wasm = new WasmDriver(plugin, policy, redis.endpoint());
                        JvmCoreDriver jvm = new JvmCoreDriver(policy, redis.endpoint())) {
                    wasm.recycleEvery = recycle[0];
                    wasm.hangMillis = (long) (options.hangSeconds * 1000);
                    for (int size : options.sizes) {
                        byte[] body = ChatBodies.chat(size, 7);
                        rows.add(measure(options, policy, body, wasm, jvm, recycle, trapLog));
                        System.out.println(format(rows.get(rows.size() - 1)));
                    }
                }
            }
            for (PolicyCase policy : options.policies) {
                if (options.heapRequests > 0) {
                    redis.flushAll();
                    heap.add(heapRun(options, plugin, policy, redis));
                    System.out.println(describe(heap.get(heap.size() - 1)));
                }
            }
        }
        String markdown = markdown(options, plugin, rows, heap, trapLog, recycle[0]);
        System.out.println();
        System.out.println(markdown);
        if (!options.doc.toString().equals("-")) {
            BenchmarksDoc.replaceSection(options.doc, "plugin-cost", markdown);
            System.out.println("wrote section plugin-cost of "
                    + options.doc.toAbsolutePath().normalize());
        }
    }

    private static Row measure(
            Options options,
            PolicyCase policy,
            byte[] body,
            WasmDriver wasm,
            JvmCoreDriver jvm,
            int[] recycle,
            List<String> trapLog) {
        int messages = ChatBodies.messageCount(body);
        // The .wasm first, then the JVM, each warmed up on this very body.
        int[] wasmRouted = {0};
        int trapsBefore = wasm.traps().size();
        long redisBefore = redisTrips(wasm);
        int[] wasmRequests = {0};
        Samples wasmSamples;
        String failure = "";
        try {
            wasmSamples = run(
                    options,
                    () -> {
                        wasm.prepare();
                        return () -> {
                            String routed = wasm.request(body);
                            wasmRequests[0]++;
                            if (routed != null) {
                                wasmRouted[0]++;
                            }
                            return new long[] {wasm.lastCpuNanos, wasm.lastWallNanos};
                        };
                    },
                    e -> {
                        if (WasmDriver.vmDied(e)) {
                            WasmDriver.Trap trap = wasm.traps().get(wasm.traps().size() - 1);
                            // Recycling helps only when a VM served some requests before dying.
                            int k = trap.requestsBefore() >= 2 ? trap.requestsBefore() / 2 : recycle[0];
                            trapLog.add(String.format(
                                    Locale.ROOT,
                                    "%s, %s body: VM died after %d requests: %s",
                                    policy.policyName,
                                    sizeName(body.length),
                                    trap.requestsBefore(),
                                    trap.message()));
                            if (k > 0 && (recycle[0] == 0 || k < recycle[0])) {
                                recycle[0] = k;
                            }
                            wasm.recycleEvery = recycle[0];
                            return true;
                        }
                        return false;
                    });
        } catch (RuntimeException e) {
            wasmSamples = new Samples();
            failure = "not measurable: " + WasmDriver.firstLine(e.getMessage()) + ". ";
        }
        double redisPerRequest = wasmRequests[0] == 0 ? 0 : (double) (redisTrips(wasm) - redisBefore) / wasmRequests[0];
        int[] jvmRouted = {0};
        Samples jvmSamples = run(
                options,
                () -> () -> {
                    long wall0 = System.nanoTime();
                    long cpu0 = CpuClock.now();
                    if (jvm.request(body) != null) {
                        jvmRouted[0]++;
                    }
                    long cpu = CpuClock.now() - cpu0;
                    return new long[] {cpu, System.nanoTime() - wall0};
                },
                e -> false);
        int traps = wasm.traps().size() - trapsBefore;
        String note = failure
                + (traps == 0 ? "" : traps + " trap(s)/hang(s), fresh VM every " + wasm.recycleEvery + " requests");
        return new Row(
                policy,
                body.length,
                messages,
                wasmSamples,
                jvmSamples,
                wasmRouted[0],
                jvmRouted[0],
                redisPerRequest,
                note);
    }

    private static long redisTrips(WasmDriver wasm) {
        // Only the current VM's count is visible; the ratio is taken over requests on the VMs that reported.
        return wasm.vm() == null ? 0 : wasm.vm().redisStats().roundTrips() + wasm.retiredRedisTrips();
    }

    /**
     * Warm-up then measurement of one operation. {@code prepare} runs untimed before each operation and returns it;
     * {@code onError} says whether an exception is tolerated (the sample is dropped).
     */
    /** One timed operation; returns {cpu, wall} nanoseconds measured on the thread that did the work. */
    interface TimedOp {
        long[] run();
    }

    static Samples run(
            Options options, Supplier<TimedOp> prepare, java.util.function.Predicate<RuntimeException> onError) {
        int consecutiveErrors = 0;
        long warmUpEnd = System.nanoTime() + (long) (options.warmUpSeconds * 1e9);
        for (int i = 0; i < options.warmUpMax && (i < 3 || System.nanoTime() < warmUpEnd); i++) {
            TimedOp op = prepare.get();
            try {
                op.run();
                consecutiveErrors = 0;
            } catch (RuntimeException e) {
                if (!onError.test(e) || ++consecutiveErrors >= 3) {
                    throw e;
                }
            }
        }
        Samples samples = new Samples();
        long measureEnd = System.nanoTime() + (long) (options.measureSeconds * 1e9);
        while (samples.size() < options.maxSamples
                && (samples.size() < options.minSamples || System.nanoTime() < measureEnd)) {
            TimedOp op = prepare.get();
            long[] timing;
            try {
                timing = op.run();
            } catch (RuntimeException e) {
                if (!onError.test(e) || ++consecutiveErrors >= 3) {
                    throw e;
                }
                continue;
            }
            consecutiveErrors = 0;
            samples.add(timing[0], timing[1]);
        }
        return samples;
    }

    private static HeapRun heapRun(Options options, WasmPlugin plugin, PolicyCase policy, LocalRedis redis) {
        byte[] body = ChatBodies.chat(options.heapBodyBytes, 11);
        try (WasmDriver wasm = new WasmDriver(plugin, policy, redis.endpoint())) {
            wasm.hangMillis = (long) (options.hangSeconds * 1000);
            long start = wasm.heapBytes();
            long address = wasm.heapAddress();
            Map<Integer, Long> readings = new LinkedHashMap<>();
            int served = 0;
            long lastHeap = start;
            WasmDriver.Trap trap = null;
            for (int i = 1; i <= options.heapRequests; i++) {
                try {
                    wasm.request(body);
                } catch (GuestTrapException | WasmDriver.HangException e) {
                    trap = wasm.traps().get(wasm.traps().size() - 1);
                    if (served > 0) {
                        readings.put(served, lastHeap);
                    }
                    break;
                }
                served = i;
                // Read after every request (untimed), so the last heap size before a trap is known too.
                lastHeap = wasm.heapBytes();
                if (i == 1 || i == 10 || i == 100 || i == 1000 || i % 10_000 == 0 || i == options.heapRequests) {
                    readings.put(i, lastHeap);
                }
            }
            return new HeapRun(policy, start, address, readings, served, trap);
        }
    }

    // ---- formatting ------------------------------------------------------------------------------------------------

    static int parseSize(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("m") || t.endsWith("mib")) {
            return Integer.parseInt(t.replaceAll("[a-z]", "")) << 20;
        }
        if (t.endsWith("k") || t.endsWith("kib")) {
            return Integer.parseInt(t.replaceAll("[a-z]", "")) << 10;
        }
        return Integer.parseInt(t);
    }

    static String sizeName(int bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    private static String format(Row row) {
        return String.format(
                Locale.ROOT,
                "%-21s %8s %5d msgs  wasm %12s cpu %12s wall (n=%d)  jvm %12s cpu %12s wall"
                        + " (n=%d)  wasm/jvm %s  %s",
                row.policy().policyName,
                sizeName(row.bodyBytes()),
                row.messages(),
                Samples.micros(row.wasm().medianCpu()),
                Samples.micros(row.wasm().medianWall()),
                row.wasm().size(),
                Samples.micros(row.jvm().medianCpu()),
                Samples.micros(row.jvm().medianWall()),
                row.jvm().size(),
                Samples.ratio(row.wasm().medianCpu(), row.jvm().medianCpu()),
                row.note());
    }

    private static String describe(HeapRun run) {
        StringBuilder out = new StringBuilder(run.policy().policyName)
                .append(": heap at start ")
                .append(Samples.bytes(run.startHeap()));
        run.readings()
                .forEach((n, bytes) ->
                        out.append(", after ").append(n).append(": ").append(Samples.bytes(bytes)));
        if (run.trap() != null) {
            out.append("; VM died after ")
                    .append(run.served())
                    .append(" requests: ")
                    .append(run.trap().message());
        }
        return out.toString();
    }

    static String markdown(
            Options options, WasmPlugin plugin, List<Row> rows, List<HeapRun> heap, List<String> trapLog, int recycle) {
        // recycle: the last value in force; each cell's note names its own.
        StringBuilder md = new StringBuilder();
        md.append("## Plugin cost per request: .wasm in the emulator vs the same core on the JVM\n\n");
        md.append("Command: `")
                .append(options.commandLine)
                .append("` (PluginCostBench; `-Dexec.args=\"--help\"` for" + " options). Module `")
                .append(plugin.name())
                .append("` ")
                .append(Samples.bytes(plugin.sizeBytes()))
                .append(", compiled by Chicory in ")
                .append(Samples.millis(plugin.compileNanos()))
                .append("; JDK ")
                .append(System.getProperty("java.version"))
                .append(", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, embedded redis-server.\n\n");
        md.append("What is measured, per request, medians after warm-up (")
                .append(String.format(Locale.ROOT, "≤ %.0f s / %d runs", options.warmUpSeconds, options.warmUpMax))
                .append(" per cell, then ≤ ")
                .append(String.format(Locale.ROOT, "%.0f s / %d samples", options.measureSeconds, options.maxSamples))
                .append("):\n\n");
        md.append(
                "- **wasm**: one whole stream in the emulator, Chicory compiled mode: context create, request headers,"
                        + " the whole body in one `proxy_on_request_body` (POST, `application/json`), the decision's Redis"
                        + " reply delivered, then `complete()` (log/done/delete) and the release command with its reply."
                        + " Redis is real (embedded redis-server) and the emulator makes each round trip synchronously.\n");
        md.append("- **jvm**: the same work by the pure-Java core on the JVM, as the shell does it: endpoints from the"
                + " same host-info JSON (built once: the shell, too, rebuilds them only when the host list changes),"
                + " route match, `RequestParser.parse` when the policy reads the body,"
                + " `RequestFlow.start`, the replies, `onStreamEnd` and the release; its `FlowHost` answers from the"
                + " **same real Redis** (one blocking connection, replies handed over after the step returns)."
                + " Not included on the JVM side: the proxy-wasm ABI work (copying headers/body into guest memory,"
                + " properties, metrics and the `ai_log` property write).\n");
        md.append("- **cpu** = CPU time of the driving thread (ThreadMXBean). Redis runs in another process and the"
                + " thread blocks in a socket read meanwhile, so cpu = guest code + emulator host functions + socket"
                + " syscalls, **without the Redis round trip's wait**; this is the guest-side cost. **wall** includes"
                + " the round trips. **ratio** = wasm cpu / jvm cpu.\n");
        md.append("- Bodies: `{\"model\",\"stream\",\"max_tokens\",\"messages\"}` with a system prompt and alternating"
                + " user/assistant turns of ≈ size/8 (≤ 1 KiB) text each; the same body every request (prefix_cache"
                + " and cache_aware then find their whole path: the steady state of a long conversation). least_busy"
                + " reads metrics from the host info (3 hosts) and needs no Redis; the others make 2 round trips per"
                + " request (the decision script, the release; no response arrives, so cache_aware makes no"
                + " first-token call).\n\n");
        md.append("| policy | body | messages | wasm cpu | jvm cpu | **wasm/jvm** | wasm wall | jvm wall | samples"
                + " wasm / jvm | routed wasm / jvm | Redis trips/req (wasm) | note |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Row row : rows) {
            md.append("| ")
                    .append(row.policy().policyName)
                    .append(" | ")
                    .append(sizeName(row.bodyBytes()))
                    .append(" | ")
                    .append(row.messages())
                    .append(" | ")
                    .append(Samples.micros(row.wasm().medianCpu()))
                    .append(" | ")
                    .append(Samples.micros(row.jvm().medianCpu()))
                    .append(" | **")
                    .append(Samples.ratio(row.wasm().medianCpu(), row.jvm().medianCpu()))
                    .append("** | ")
                    .append(Samples.micros(row.wasm().medianWall()))
                    .append(" | ")
                    .append(Samples.micros(row.jvm().medianWall()))
                    .append(" | ")
                    .append(row.wasm().size())
                    .append(" / ")
                    .append(row.jvm().size())
                    .append(" | ")
                    .append(row.wasmRouted())
                    .append(" / ")
                    .append(row.jvmRouted())
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f", row.redisPerRequest()))
                    .append(" | ")
                    .append(row.note())
                    .append(" |\n");
        }
        md.append("\n\"routed\" counts timed and warm-up requests that got an upstream override (a sanity check that"
                + " both sides decided).\n\n");
        md.append("### Guest heap after many requests\n\n");
        md.append("One VM, ")
                .append(sizeName(options.heapBodyBytes))
                .append(" chat body, up to ")
                .append(String.format(Locale.ROOT, "%,d", options.heapRequests))
                .append(" requests. The number is"
                        + " TeaVM's Java heap size (`teavm_availableBytes` export = `WasmHeap.heapSize`, bytes reserved for"
                        + " the GC heap; it grows when a collection cannot free enough, it is not the live-object size)."
                        + " The heap starts at linear-memory address `teavm_javaHeapAddress`, so linear memory ≥ address +"
                        + " heap size.\n\n");
        md.append("| policy | heap at start | readings (requests: heap size) | requests served | result |\n");
        md.append("|---|---:|---|---:|---|\n");
        for (HeapRun run : heap) {
            StringBuilder readings = new StringBuilder();
            run.readings().forEach((n, bytes) -> readings.append(readings.length() == 0 ? "" : "; ")
                    .append(String.format(Locale.ROOT, "%,d: %s", n, Samples.bytes(bytes))));
            String result = run.trap() == null
                    ? "heap after " + String.format(Locale.ROOT, "%,d", run.served()) + " requests: "
                            + Samples.bytes(run.readings().getOrDefault(run.served(), -1L))
                    : "not measurable at " + String.format(Locale.ROOT, "%,d", options.heapRequests)
                            + " — VM dies after " + run.served() + " requests: `"
                            + run.trap().message() + "`";
            md.append("| ")
                    .append(run.policy().policyName)
                    .append(" | ")
                    .append(Samples.bytes(run.startHeap()))
                    .append(" (at ")
                    .append(run.heapAddress())
                    .append(") | ")
                    .append(readings.length() == 0 ? "—" : readings)
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", run.served()))
                    .append(" | ")
                    .append(result)
                    .append(" |\n");
        }
        md.append("\n### Traps during the timing runs\n\n");
        if (trapLog.isEmpty()) {
            md.append("None: every VM served all its requests.\n");
        } else {
            md.append("The guest trapped or hung (a hang = no answer within the hang limit, then"
                            + " interrupted); such requests are not counted. After a VM died having served N ≥ 2 requests, the"
                            + " timing runs use a fresh VM every N/2 requests (the smallest such value so far, given in each"
                            + " cell's note; VM start not timed), so GC cost beyond that many requests on one VM is not in"
                            + " the numbers. Hang limit: ")
                    .append(String.format(Locale.ROOT, "%.0f s", options.hangSeconds))
                    .append(".\n\n");
            for (String line : trapLog) {
                md.append("- ").append(line).append('\n');
            }
        }
        return md.toString();
    }
}
