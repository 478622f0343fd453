package io.ailb.sim.bench;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.GuestTrapException;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.LocalRedis;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.WasmArtifacts;
import io.ailb.emulator.WasmPlugin;
import io.ailb.emulator.bench.EmulatorBench;
import io.ailb.sim.report.BenchmarksDoc;
import io.ailb.sim.router.PluginRouter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The SDK/emulator foundation numbers ("Foundation" issue) for the SDK's probe.wasm and for the plugin: module size,
 * compile time, instantiate time, a full request, a trivial export call. The probe is measured by
 * {@link EmulatorBench} itself (its output file is read back); the plugin cannot run EmulatorBench's probe request
 * (it answers no {@code x-probe-op} and needs a real configuration), so its row uses the same definitions with a
 * plugin request. Writes section {@code foundation} of docs/benchmarks.md.
 *
 * <p>{@code mvn -q -pl simulator compile exec:java@foundation}; arguments (all optional, via
 * {@code -Dexec.args}): probe.wasm, plugin .wasm, benchmarks.md (or {@code -}), iterations (5000), warm-up (2000).
 */
public final class FoundationBench {
    static final String COMMAND = "mvn -q -pl simulator compile exec:java@foundation";

    private FoundationBench() {}

    /** One module's five numbers, as display text, plus how they were obtained. */
    record Column(
            String module,
            String size,
            String compile,
            String instantiate,
            String request,
            String trivial,
            String how) {}

    public static void main(String[] args) throws Exception {
        Path probe = args.length > 0 ? Path.of(args[0]) : WasmArtifacts.path("probe");
        Path pluginWasm = args.length > 1 ? Path.of(args[1]) : WasmArtifacts.path("ai-load-balancer");
        // Labelled as the modules are called, not their files: an installed artifact's file carries Maven coordinates.
        String probeName = args.length > 0 ? probe.getFileName().toString() : "probe.wasm";
        String pluginName = args.length > 1 ? pluginWasm.getFileName().toString() : "ai-load-balancer.wasm";
        Path doc = args.length > 2 ? Path.of(args[2]) : PluginCostBench.root().resolve("docs/benchmarks.md");
        int iterations = args.length > 3 ? Integer.parseInt(args[3]) : 5000;
        int warmUp = args.length > 4 ? Integer.parseInt(args[4]) : 2000;
        List<String> notes = new ArrayList<>();

        Column probeColumn = viaEmulatorBench(probe, probeName, iterations, warmUp, notes);
        if (probeColumn == null) {
            probeColumn = own(
                    probe,
                    probeName,
                    "{}",
                    iterations,
                    warmUp,
                    null,
                    notes,
                    FoundationBench::probeRequest,
                    "probe request (x-probe-op get-header → local reply)");
        }
        String why = tryEmulatorBenchOn(pluginWasm, pluginName, notes);
        Column pluginColumn;
        try (LocalRedis redis = LocalRedis.start()) {
            pluginColumn = own(
                    pluginWasm,
                    pluginName,
                    PolicyCase.LEAST_BUSY.configJson,
                    iterations,
                    warmUp,
                    null,
                    notes,
                    FoundationBench::pluginRequest,
                    "least_busy, 1 KiB chat POST → override → end; " + why);
            Column withRedis = own(
                    pluginWasm,
                    pluginName,
                    PolicyCase.GLOBAL_LEAST_REQUEST.configJson,
                    iterations / 5,
                    warmUp / 5,
                    redis,
                    notes,
                    FoundationBench::pluginRequest,
                    "global_least_request, 1 KiB chat POST, 2 real Redis round trips (wall time, included)");
            notes.add("ai-load-balancer.wasm full request with global_least_request (select.lua + release against"
                    + " embedded redis-server, median of " + iterations / 5 + "): " + withRedis.request());
        }
        String markdown = markdown(probeColumn, pluginColumn, notes, iterations, warmUp);
        System.out.println(markdown);
        if (!doc.toString().equals("-")) {
            BenchmarksDoc.replaceSection(doc, "foundation", markdown);
            System.out.println(
                    "wrote section foundation of " + doc.toAbsolutePath().normalize());
        }
    }

    /** Runs EmulatorBench's main on {@code wasm} and reads its table back; null (with a note) if it failed. */
    private static Column viaEmulatorBench(Path wasm, String name, int iterations, int warmUp, List<String> notes) {
        try {
            Path out = Files.createTempFile("emulator-bench", ".md");
            long before = hangMillis;
            hangMillis = 180_000;
            try {
                timed(() -> {
                    try {
                        EmulatorBench.main(new String[] {
                            wasm.toString(), out.toString(), Integer.toString(iterations), Integer.toString(warmUp)
                        });
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            } finally {
                hangMillis = before;
            }
            List<String> values = new ArrayList<>();
            for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                String[] cells = line.split("\\|");
                if (line.startsWith("| ")
                        && cells.length >= 3
                        && !cells[1].trim().equals("measure")) {
                    values.add(cells[2].trim());
                }
            }
            Files.deleteIfExists(out);
            if (values.size() != 5) {
                notes.add("EmulatorBench output not understood: " + values);
                return null;
            }
            return new Column(
                    name,
                    values.get(0),
                    values.get(1),
                    values.get(2),
                    values.get(3),
                    values.get(4),
                    "io.ailb.emulator.bench.EmulatorBench (probe request: headers →"
                            + " local reply → response callbacks → log/done/delete)");
        } catch (RuntimeException | java.io.IOException e) {
            notes.add("EmulatorBench on " + name + " failed: `" + WasmDriver.firstLine(e.toString())
                    + "`; measured here with the same definitions, a fresh VM after each trap");
            return null;
        }
    }

    /** Why EmulatorBench's own request cannot measure the plugin (tried, so the reason is the real one). */
    private static String tryEmulatorBenchOn(Path wasm, String name, List<String> notes) {
        try {
            Path out = Files.createTempFile("emulator-bench", ".md");
            timed(() -> {
                try {
                    EmulatorBench.main(new String[] {wasm.toString(), out.toString(), "10", "0"});
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Files.deleteIfExists(out);
            return "EmulatorBench itself ran on it too";
        } catch (RuntimeException | java.io.IOException e) {
            notes.add("EmulatorBench on " + name + ": `" + WasmDriver.firstLine(e.toString())
                    + "` (it sends the probe's request with config `{}`), so the plugin column uses the same"
                    + " definitions with a plugin request");
            return "measured by FoundationBench";
        }
    }

    private interface RequestOp {
        void run(PluginVm vm);
    }

    private static void probeRequest(PluginVm vm) {
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(
                HeaderMap.of(
                        ":method",
                        "GET",
                        ":path",
                        "/bench",
                        ":authority",
                        "bench",
                        "x-probe-op",
                        "get-header",
                        "x-probe-arg",
                        ":path"),
                true);
        if (stream.localReply().isEmpty()) {
            throw new IllegalStateException("the probe did not answer");
        }
    }

    private static final byte[] CHAT_1K = ChatBodies.chat(1024, 3);

    private static void pluginRequest(PluginVm vm) {
        HttpStream stream = vm.newHttpStream().withRouteName(PolicyCase.ROUTE).withClusterName(PolicyCase.CLUSTER);
        stream.sendRequestHeaders(
                PluginRouter.chatRequestHeaders(PolicyCase.AUTHORITY, PolicyCase.CONTENT_TYPE), false);
        stream.sendRequestBody(CHAT_1K, true);
        if (stream.upstreamOverride().isEmpty()) {
            throw new IllegalStateException("the plugin did not route: " + vm.logs());
        }
        stream.complete();
    }

    /** EmulatorBench's definitions, measured here with a fresh VM after a trap (traps are counted in the notes). */
    private static Column own(
            Path wasm,
            String name,
            String config,
            int iterations,
            int warmUp,
            LocalRedis redis,
            List<String> notes,
            RequestOp request,
            String how) {
        WasmPlugin plugin = WasmPlugin.load(wasm);
        Supplier<PluginVm> vms = () -> {
            Gateway.Builder builder = Gateway.builder(plugin)
                    .withPluginConfig(config)
                    .withUpstreamHosts(PolicyCase.CLUSTER, PolicyCase.HOSTS);
            if (redis != null) {
                builder.withRedisCluster(PolicyCase.REDIS_CLUSTER, redis.endpoint());
            }
            return builder.build().startVm();
        };
        long[] instantiate = new long[5];
        for (int i = 0; i < instantiate.length; i++) {
            instantiate[i] = vms.get().instantiateNanos();
        }
        PluginVm[] vm = {vms.get()};
        int[] traps = {0};
        int[] servedBeforeFirstTrap = {-1};
        int[] served = {0};
        int[] recycleEvery = {0};
        Consumer<RequestOp> guarded = op -> {
            if (!vm[0].isAlive() || (recycleEvery[0] > 0 && served[0] >= recycleEvery[0])) {
                vm[0] = vms.get();
                served[0] = 0;
            }
            try {
                op.run(vm[0]);
                served[0]++;
            } catch (GuestTrapException e) {
                traps[0]++;
                if (servedBeforeFirstTrap[0] < 0) {
                    servedBeforeFirstTrap[0] = served[0];
                }
                if (served[0] >= 2 && (recycleEvery[0] == 0 || served[0] / 2 < recycleEvery[0])) {
                    recycleEvery[0] = served[0] / 2;
                }
                throw e;
            }
        };
        long requestMedian = median(measure(warmUp, iterations, () -> guarded.accept(request)));
        String requestTraps = trapNote(traps[0], servedBeforeFirstTrap[0], recycleEvery[0]);
        traps[0] = 0;
        servedBeforeFirstTrap[0] = -1;
        recycleEvery[0] = 0;
        served[0] = 0;
        vm[0] = vms.get();
        long trivialMedian = median(measure(
                warmUp * 10, iterations * 10, () -> guarded.accept(v -> v.callExport("proxy_on_memory_allocate", 16))));
        String trivialTraps = trapNote(traps[0], servedBeforeFirstTrap[0], recycleEvery[0]);
        if (!requestTraps.isEmpty() || !trivialTraps.isEmpty()) {
            notes.add(name + " (" + how + "): " + (requestTraps.isEmpty() ? "" : "full request: " + requestTraps + ". ")
                    + (trivialTraps.isEmpty() ? "" : "trivial call: " + trivialTraps + "."));
        }
        return new Column(
                name,
                String.format(Locale.ROOT, "%,d bytes", plugin.sizeBytes()),
                Samples.millis(plugin.compileNanos()),
                Samples.millis(median(instantiate)),
                String.format(Locale.ROOT, "%.2f µs", requestMedian / 1e3),
                String.format(Locale.ROOT, "%.2f µs", trivialMedian / 1e3),
                how);
    }

    private static String trapNote(int traps, int servedBeforeFirst, int recycleEvery) {
        return traps == 0
                ? ""
                : traps + " trap(s)/hang(s), the first after " + servedBeforeFirst
                        + " calls on one VM; those calls are not timed and from then on a fresh VM (start not timed) every "
                        + recycleEvery + " calls";
    }

    private static final java.util.concurrent.ExecutorService WORKER =
            java.util.concurrent.Executors.newSingleThreadExecutor(task -> {
                Thread thread = new Thread(task, "foundation-worker");
                thread.setDaemon(true);
                return thread;
            });
    static long hangMillis = 5_000;

    /**
     * Runs {@code body} on the worker thread and returns its wall time measured there; a call that does not return
     * within {@link #hangMillis} is interrupted (Chicory's compiled code checks), which kills the VM.
     */
    private static long timed(Runnable body) {
        java.util.concurrent.Future<Long> call = WORKER.submit(() -> {
            long start = System.nanoTime();
            body.run();
            return System.nanoTime() - start;
        });
        try {
            return call.get(hangMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            call.cancel(true);
            try {
                WORKER.submit(() -> {}).get();
            } catch (InterruptedException | java.util.concurrent.ExecutionException ignored) {
                // The worker is free again either way.
            }
            hangs++;
            throw new WasmDriver.HangException("no answer within " + hangMillis + " ms, interrupted");
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static int hangs;

    /** Wall-clock samples; a call whose VM died (trap or hang) is dropped (at most 100 in a row). */
    private static long[] measure(int warmUp, int iterations, Runnable body) {
        int failures = 0;
        for (int i = 0; i < warmUp; i++) {
            try {
                timed(body);
                failures = 0;
            } catch (GuestTrapException | WasmDriver.HangException e) {
                if (++failures > 100) {
                    throw e;
                }
            }
        }
        long[] samples = new long[iterations];
        int count = 0;
        while (count < iterations) {
            long nanos;
            try {
                nanos = timed(body);
                failures = 0;
            } catch (GuestTrapException | WasmDriver.HangException e) {
                if (++failures > 100) {
                    throw e;
                }
                continue;
            }
            samples[count++] = nanos;
        }
        return samples;
    }

    private static long median(long[] samples) {
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    static String markdown(Column probe, Column plugin, List<String> notes, int iterations, int warmUp) {
        StringBuilder md = new StringBuilder();
        md.append("## Foundation: SDK probe and plugin in the emulator (Chicory 1.7.5, runtime compiler)\n\n");
        md.append("Command: `")
                .append(COMMAND)
                .append("` (FoundationBench). JDK ")
                .append(System.getProperty("java.version"))
                .append(", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores; wall-clock medians after ")
                .append(warmUp)
                .append(" warm-up runs (")
                .append(iterations)
                .append(" samples; the trivial call ten" + " times as many).\n\n");
        md.append("| measure | ")
                .append(probe.module())
                .append(" | ")
                .append(plugin.module())
                .append(" |\n");
        md.append("|---|---:|---:|\n");
        md.append("| module size | ")
                .append(probe.size())
                .append(" | ")
                .append(plugin.size())
                .append(" |\n");
        md.append("| compile, once per module (`WasmPlugin.load`) | ")
                .append(probe.compile())
                .append(" | ")
                .append(plugin.compile())
                .append(" |\n");
        md.append("| instantiate a VM on the compiled code (median of 5) | ")
                .append(probe.instantiate())
                .append(" | ")
                .append(plugin.instantiate())
                .append(" |\n");
        md.append("| full request, stream created to log/done/delete | ")
                .append(probe.request())
                .append(" | ")
                .append(plugin.request())
                .append(" |\n");
        md.append("| trivial export call, `proxy_on_memory_allocate(16)` | ")
                .append(probe.trivial())
                .append(" | ")
                .append(plugin.trivial())
                .append(" |\n\n");
        md.append("- ").append(probe.module()).append(": ").append(probe.how()).append(".\n");
        md.append("- ")
                .append(plugin.module())
                .append(": ")
                .append(plugin.how())
                .append(". No Redis in this"
                        + " request (least_busy reads the 3 hosts' metrics from the host info); it includes copying the body"
                        + " into guest memory and parsing it.\n");
        md.append("- Instantiate = building the Chicory instance only; starting a VM also runs `_start`, context"
                + " create, `proxy_on_vm_start` and `proxy_on_configure`.\n");
        for (String note : notes) {
            md.append("- ").append(note).append('\n');
        }
        return md.toString();
    }
}
