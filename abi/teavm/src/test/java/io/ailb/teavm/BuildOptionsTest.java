package io.ailb.teavm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.teavm.vm.TeaVMOptimizationLevel;

class BuildOptionsTest {
    @Test
    void defaultsToFourToSixtyFourMibAndFullOptimisation() {
        BuildOptions options =
                BuildOptions.parse(new String[] {"--main", "a.B", "--out", "o.wasm", "--spec", "s.json"});
        assertEquals(
                new BuildOptions(
                        "a.B", Path.of("o.wasm"), Path.of("s.json"), 4, 64, TeaVMOptimizationLevel.FULL, false),
                options);
    }

    @Test
    void acceptsHeapSizesAndOptimisationLevelInAnyCase() {
        BuildOptions options = BuildOptions.parse(new String[] {
            "--opt",
            "simple",
            "--min-heap-mb",
            "8",
            "--max-heap-mb",
            "128",
            "--main",
            "a.B",
            "--out",
            "o.wasm",
            "--spec",
            "s.json"
        });
        assertEquals(8, options.minHeapMb());
        assertEquals(128, options.maxHeapMb());
        assertEquals(TeaVMOptimizationLevel.SIMPLE, options.optimization());
        assertEquals(
                true,
                BuildOptions.parse(append(
                                new String[] {"--main", "a.B", "--out", "o.wasm", "--spec", "s.json"},
                                "--names",
                                "true"))
                        .names());
    }

    @Test
    void rejectsUnknownOptionsBadValuesAndInvertedHeapLimits() {
        String[] required = {"--main", "a.B", "--out", "o.wasm", "--spec", "s.json"};
        assertEquals(
                "unknown option --verbose",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> BuildOptions.parse(append(required, "--verbose", "1")))
                        .getMessage());
        assertEquals(
                "--opt must be SIMPLE, ADVANCED or FULL, got FAST",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> BuildOptions.parse(append(required, "--opt", "FAST")))
                        .getMessage());
        assertEquals(
                "--min-heap-mb 100 exceeds --max-heap-mb 64",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> BuildOptions.parse(append(required, "--min-heap-mb", "100")))
                        .getMessage());
        assertEquals(
                "--names must be true or false, got yes",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> BuildOptions.parse(append(required, "--names", "yes")))
                        .getMessage());
        assertEquals(
                "missing value after --out",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> BuildOptions.parse(new String[] {"--main", "a.B", "--out"}))
                        .getMessage());
    }

    private static String[] append(String[] args, String option, String value) {
        String[] result = java.util.Arrays.copyOf(args, args.length + 2);
        result[args.length] = option;
        result[args.length + 1] = value;
        return result;
    }
}
