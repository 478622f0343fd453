package io.ailb.emulator;

import com.dylibso.chicory.runtime.ExportFunction;
import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportFunction;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasi.WasiOptions;
import com.dylibso.chicory.wasi.WasiPreview1;
import io.ailb.emulator.bindings.GuestExports;
import io.ailb.emulator.bindings.HostImportTable;
import io.ailb.emulator.bindings.LogLevel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntSupplier;

/**
 * The Chicory instance of one VM and every call into it. A call runs with a context as the effective one; a trap (or
 * a JVM stack overflow) kills the VM, as in Envoy: the replies still due are dropped and the trap is reported with
 * the guest's stack and its last log lines.
 */
final class GuestRuntime {
    private static final String START_EXPORT = "_start";

    private final int vmId;
    private final WasmPlugin plugin;
    private final ContextRegistry contexts;
    private final DeliveryQueue deliveries;
    private final GuestLog log;
    private WasiPreview1 wasi;
    private Instance instance;
    private GuestExports exports;
    private GuestMemory memory;
    private long instantiateNanos;
    private boolean alive = true;
    private boolean starting;

    GuestRuntime(int vmId, WasmPlugin plugin, ContextRegistry contexts, DeliveryQueue deliveries, GuestLog log) {
        this.vmId = vmId;
        this.plugin = plugin;
        this.contexts = contexts;
        this.deliveries = deliveries;
        this.log = log;
    }

    /** Builds the instance with {@code host}'s functions and WASI; a failing start section kills the VM. */
    void instantiate(Gateway.Builder options, HostCalls host) {
        WasiOptions.Builder wasiOptions = WasiOptions.builder()
                .withClock(options.clockValue())
                .withRandom(new Random(options.randomSeed() + vmId))
                .withStdout(new LogOutputStream(line -> log.add(LogLevel.INFO, line)))
                .withStderr(new LogOutputStream(line -> log.add(LogLevel.ERROR, line)));
        options.environment().forEach(wasiOptions::withEnvironment);
        wasi = WasiPreview1.builder().withOptions(wasiOptions.build()).build();
        List<ImportFunction> functions = new ArrayList<>();
        for (HostFunction function : HostImportTable.functions(host)) {
            functions.add(host.guard(function));
        }
        functions.addAll(List.of(wasi.toHostFunctions()));
        long start = System.nanoTime();
        try {
            Instance.Builder builder = Instance.builder(plugin.module())
                    .withImportValues(
                            ImportValues.builder().withFunctions(functions).build())
                    .withStart(false);
            if (plugin.machineFactory() != null) {
                builder.withMachineFactory(plugin.machineFactory());
            }
            instance = builder.build();
        } catch (RuntimeException e) {
            alive = false;
            throw trap("start section", e);
        }
        instantiateNanos = System.nanoTime() - start;
        exports = new GuestExports(instance);
        memory = new GuestMemory(instance.memory(), exports);
    }

    /** Runs {@code _start} if the module has it; meanwhile host calls other than logging are refused. */
    void runStart() {
        if (!exports.has(START_EXPORT)) {
            return;
        }
        ExportFunction startFunction = instance.export(START_EXPORT);
        starting = true;
        try {
            invoke(START_EXPORT, 0, () -> {
                startFunction.apply();
                return 0;
            });
        } finally {
            starting = false;
        }
    }

    /** Runs one guest callback with {@code contextId} as the effective context; a trap kills the VM. */
    int invoke(String export, int contextId, IntSupplier call) {
        int saved = contexts.enter(contextId);
        try {
            return call.getAsInt();
        } catch (GuestTrapException nested) {
            throw nested;
        } catch (RuntimeException | StackOverflowError e) {
            alive = false;
            deliveries.dropReplies();
            throw trap(export + "(context " + contextId + ")", e);
        } finally {
            contexts.restore(saved);
        }
    }

    /** Calls export {@code name} with raw arguments, in the root context. */
    long[] callExport(String name, long... args) {
        ExportFunction function = instance.export(name);
        long[][] result = new long[1][];
        invoke(name, contexts.rootContextId(), () -> {
            result[0] = function.apply(args);
            return 0;
        });
        return result[0];
    }

    private GuestTrapException trap(String export, Throwable cause) {
        String stack = GuestStack.describe(cause, plugin.module().nameSection());
        return new GuestTrapException(
                export,
                "VM " + vmId + " of " + plugin.name() + " died in " + export + ": " + cause
                        + (stack.isEmpty() ? "" : "\nguest stack: " + stack) + log.tail(),
                cause);
    }

    boolean isAlive() {
        return alive;
    }

    /** Whether {@code _start} is running. */
    boolean isStarting() {
        return starting;
    }

    GuestExports exports() {
        return exports;
    }

    GuestMemory memory() {
        return memory;
    }

    long instantiateNanos() {
        return instantiateNanos;
    }

    void close() {
        wasi.close();
    }
}
