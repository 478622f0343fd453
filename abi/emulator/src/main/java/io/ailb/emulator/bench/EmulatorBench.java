package io.ailb.emulator.bench;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.WasmPlugin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Measures the emulator on a proxy-wasm module (Chicory runtime compiler): module size, compile time, instantiate
 * time, a full request through the probe filter (headers in, local reply, response callbacks, end callbacks) and a
 * trivial export call; medians after warm-up. Prints a markdown section and writes it to the optional output file.
 *
 * <p>{@code java -cp … io.ailb.emulator.bench.EmulatorBench <probe.wasm> [out.md] [iterations] [warm-up]}; the
 * trivial call runs ten times as often.
 */
public final class EmulatorBench {

    private EmulatorBench() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: EmulatorBench <probe.wasm> [out.md] [iterations] [warm-up]");
            System.exit(2);
        }
        Path wasm = Path.of(args[0]);
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 5000;
        int warmUp = args.length > 3 ? Integer.parseInt(args[3]) : 2000;
        String report = run(wasm, iterations, warmUp);
        System.out.print(report);
        if (args.length > 1) {
            Files.writeString(Path.of(args[1]), report, StandardCharsets.UTF_8);
        }
    }

    static String run(Path wasm, int iterations, int warmUp) {
        WasmPlugin plugin = WasmPlugin.load(wasm);
        Gateway gateway = Gateway.builder(plugin).withPluginConfig("{}").build();
        long[] instantiate = new long[5];
        for (int i = 0; i < instantiate.length; i++) {
            instantiate[i] = gateway.startVm().instantiateNanos();
        }
        PluginVm vm = gateway.startVm();
        HeaderMap request = HeaderMap.of(
                ":method",
                "GET",
                ":path",
                "/bench",
                ":authority",
                "bench",
                "x-probe-op",
                "get-header",
                "x-probe-arg",
                ":path");
        long[] requests = measure(warmUp, iterations, () -> {
            HttpStream stream = vm.newHttpStream();
            stream.sendRequestHeaders(request.copy(), true);
            if (stream.localReply().isEmpty()) {
                throw new IllegalStateException("the probe did not answer");
            }
        });
        long[] trivial = measure(warmUp * 10, iterations * 10, () -> vm.callExport("proxy_on_memory_allocate", 16));
        StringBuilder out = new StringBuilder();
        out.append("## Emulator (Chicory 1.7.5, runtime compiler)\n\n");
        out.append("Module `")
                .append(plugin.name())
                .append("`, JDK ")
                .append(System.getProperty("java.version"))
                .append(", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores; medians after ")
                .append(warmUp)
                .append(" warm-up runs.\n\n");
        out.append("| measure | value |\n|---|---|\n");
        out.append(row("module size", String.format(Locale.ROOT, "%,d bytes", plugin.sizeBytes())));
        out.append(row("compile (once per module)", millis(plugin.compileNanos())));
        out.append(row(
                "instantiate a VM: Chicory instance on the compiled code (median of 5)", millis(median(instantiate))));
        out.append(row(
                "full request: headers → local reply → response callbacks → log/done/delete (median of " + iterations
                        + ")",
                micros(median(requests))));
        out.append(row(
                "trivial export call, proxy_on_memory_allocate (median of " + iterations * 10 + ")",
                micros(median(trivial))));
        return out.toString();
    }

    private static long[] measure(int warmUp, int iterations, Runnable body) {
        for (int i = 0; i < warmUp; i++) {
            body.run();
        }
        long[] samples = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            long start = System.nanoTime();
            body.run();
            samples[i] = System.nanoTime() - start;
        }
        return samples;
    }

    private static long median(long[] samples) {
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String row(String name, String value) {
        return "| " + name + " | " + value + " |\n";
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.2f µs", nanos / 1e3);
    }
}
