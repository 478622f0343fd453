package io.ailb.teavm;

import java.nio.file.Path;
import java.util.Locale;
import org.teavm.vm.TeaVMOptimizationLevel;

/** The command line of {@link BuildWasm}. */
record BuildOptions(
        String mainClass,
        Path out,
        Path spec,
        int minHeapMb,
        int maxHeapMb,
        TeaVMOptimizationLevel optimization,
        boolean names) {

    static final String USAGE = "usage: BuildWasm --main <class> --out <file.wasm> --spec <proxy-wasm-abi.json>"
            + " [--min-heap-mb 4] [--max-heap-mb 64] [--opt SIMPLE|ADVANCED|FULL]"
            + " [--names true|false]";

    /** @throws IllegalArgumentException with a message naming the bad or missing option */
    static BuildOptions parse(String[] args) {
        String mainClass = null;
        Path out = null;
        Path spec = null;
        int minHeapMb = 4;
        int maxHeapMb = 64;
        TeaVMOptimizationLevel optimization = TeaVMOptimizationLevel.FULL;
        boolean names = false;
        for (int i = 0; i < args.length; i += 2) {
            String option = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value after " + option);
            }
            String value = args[i + 1];
            switch (option) {
                case "--main" -> mainClass = value;
                case "--out" -> out = Path.of(value);
                case "--spec" -> spec = Path.of(value);
                case "--min-heap-mb" -> minHeapMb = positiveInt(option, value);
                case "--max-heap-mb" -> maxHeapMb = positiveInt(option, value);
                case "--opt" -> optimization = optimizationLevel(value);
                case "--names" -> names = bool(option, value);
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        if (mainClass == null || out == null || spec == null) {
            throw new IllegalArgumentException("--main, --out and --spec are required");
        }
        if (minHeapMb > maxHeapMb) {
            throw new IllegalArgumentException("--min-heap-mb " + minHeapMb + " exceeds --max-heap-mb " + maxHeapMb);
        }
        return new BuildOptions(mainClass, out, spec, minHeapMb, maxHeapMb, optimization, names);
    }

    private static int positiveInt(String option, String value) {
        try {
            int parsed = Integer.parseInt(value);
            // The GC storage doubles the heap's footprint (GcStorage); 2 x 1024 MiB + tables fits in 4 GiB.
            if (parsed > 0 && parsed <= 1024) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " needs a number of MiB in 1..1024, got " + value);
    }

    private static boolean bool(String option, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(option + " must be true or false, got " + value);
        };
    }

    private static TeaVMOptimizationLevel optimizationLevel(String value) {
        try {
            return TeaVMOptimizationLevel.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--opt must be SIMPLE, ADVANCED or FULL, got " + value);
        }
    }
}
