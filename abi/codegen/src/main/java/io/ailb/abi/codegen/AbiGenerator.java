package io.ailb.abi.codegen;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Generates the Java bindings of the ABI spec for one side.
 *
 * <pre>java io.ailb.abi.codegen.AbiGenerator --spec abi/spec/proxy-wasm-abi.json --side guest|host --out DIR</pre>
 *
 * <p>Output is deterministic (spec order, no timestamps) and a file is rewritten only when its content changes.
 */
public final class AbiGenerator {
    static final String USAGE = "usage: AbiGenerator --spec <file> --side guest|host --out <dir>";

    private AbiGenerator() {}

    public static void main(String[] args) {
        try {
            run(args);
        } catch (IllegalArgumentException e) {
            System.err.println("AbiGenerator: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
        } catch (SpecException | IOException e) {
            System.err.println("AbiGenerator: " + e.getMessage());
            System.exit(1);
        }
    }

    /** Runs the command line; returns the number of files written. */
    static int run(String[] args) throws SpecException, IOException {
        Path spec = null;
        Side side = null;
        Path out = null;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + args[i]);
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--spec" -> spec = Path.of(value);
                case "--side" -> side = parseSide(value);
                case "--out" -> out = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (spec == null || side == null || out == null) {
            throw new IllegalArgumentException("--spec, --side and --out are all required");
        }
        return OutputDirectory.sync(out, side.packagePath(), generate(SpecReader.read(spec), side));
    }

    /** The sources of {@code side} for {@code spec}, paths relative to a source root. */
    public static List<GeneratedFile> generate(AbiSpec spec, Side side) {
        return side == Side.GUEST ? GuestBindings.render(spec) : HostBindings.render(spec);
    }

    private static Side parseSide(String value) {
        for (Side side : Side.values()) {
            if (side.name().toLowerCase(Locale.ROOT).equals(value)) {
                return side;
            }
        }
        throw new IllegalArgumentException("--side must be guest or host, not \"" + value + "\"");
    }
}
