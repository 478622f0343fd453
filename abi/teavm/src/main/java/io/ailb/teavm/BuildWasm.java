package io.ailb.teavm;

import io.ailb.abi.codegen.AbiSpec;
import io.ailb.abi.codegen.SpecException;
import io.ailb.abi.codegen.SpecReader;
import io.ailb.teavm.plugin.GcStorage;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.teavm.diagnostics.Problem;
import org.teavm.diagnostics.ProblemSeverity;
import org.teavm.tooling.TeaVMProblemRenderer;
import org.teavm.tooling.TeaVMTargetType;
import org.teavm.tooling.TeaVMTool;
import org.teavm.tooling.TeaVMToolException;
import org.teavm.tooling.TeaVMToolLog;

/**
 * Build driver: compiles a guest class to a proxy-wasm module with TeaVM 0.13.1 (target WEBASSEMBLY_WASI), then
 * checks the written module against the ABI spec. Run by exec-maven-plugin with the guest module's compile
 * classpath, which holds the guest classes, the SDK, teavm-classlib and this module (with its TeaVM plugin).
 * Exit status 0 on success, 1 on a failed build or check (the output file is then deleted), 2 on a bad command line.
 *
 * <p>{@link #main} compiles in a JVM with constant identity hashes, starting one when needed, so that the same
 * classes always give the same bytes ({@link ConstantIdentityHashes}). {@link #run} compiles in the calling JVM and
 * warns when that JVM's identity hashes are not constant.
 */
public final class BuildWasm {
    private static final int MIB = 1024 * 1024;

    private BuildWasm() {}

    public static void main(String[] args) {
        if (!ConstantIdentityHashes.inThisJvm() && !Boolean.getBoolean(ConstantIdentityHashes.CHILD_PROPERTY)) {
            System.exit(runInJvmWithConstantIdentityHashes(args));
        }
        System.exit(run(args, classPathOfThisJvm(), System.out, System.err));
    }

    private static int runInJvmWithConstantIdentityHashes(String[] args) {
        List<String> command = ConstantIdentityHashes.command(
                System.getProperty("java.home"),
                ManagementFactory.getRuntimeMXBean().getInputArguments(),
                System.getProperty("java.class.path"),
                BuildWasm.class.getName(),
                args);
        try {
            return new ProcessBuilder(command).inheritIO().start().waitFor();
        } catch (IOException e) {
            System.err.println("ERROR: cannot start " + command.get(0) + ": " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.err.println("ERROR: interrupted while compiling");
            return 1;
        }
    }

    static int run(String[] args, List<File> classPath, PrintStream out, PrintStream err) {
        BuildOptions options;
        try {
            options = BuildOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("ERROR: " + e.getMessage());
            err.println(BuildOptions.USAGE);
            return 2;
        }
        if (!ConstantIdentityHashes.inThisJvm()) {
            err.println("WARNING: compiling without " + ConstantIdentityHashes.JVM_OPTIONS
                    + ": builds of the same classes may give modules of different bytes");
        }
        try {
            AbiSpec spec = SpecReader.read(options.spec());
            if (!compile(options, classPath, err)) {
                return fail(options.out(), err, List.of("TeaVM could not compile " + options.mainClass()));
            }
            raiseMemoryMaximum(options);
            WasmModuleInfo module = WasmModuleInfo.read(options.out());
            List<String> errors = ModuleCheck.check(module, spec);
            if (!errors.isEmpty()) {
                return fail(options.out(), err, errors);
            }
            out.println(summary(module));
            return 0;
        } catch (SpecException | IOException | TeaVMToolException | RuntimeException e) {
            return fail(options.out(), err, List.of(e.toString()));
        }
    }

    /** @return false when TeaVM reported a severe problem or wrote nothing */
    private static boolean compile(BuildOptions options, List<File> classPath, PrintStream err)
            throws IOException, TeaVMToolException {
        Path out = options.out().toAbsolutePath();
        Files.createDirectories(out.getParent());
        Files.deleteIfExists(out);

        TeaVMTool tool = new TeaVMTool();
        tool.setTargetType(TeaVMTargetType.WEBASSEMBLY_WASI);
        tool.setMainClass(options.mainClass());
        tool.setTargetDirectory(out.getParent().toFile());
        tool.setTargetFileName(out.getFileName().toString());
        tool.setClassPath(classPath);
        // Unobfuscated builds carry a name section: Java method names in traps and in stack dumps of a hung guest.
        tool.setObfuscated(!options.names());
        tool.setOptimizationLevel(options.optimization());
        tool.setMinHeapSize(options.minHeapMb() * MIB);
        tool.setMaxHeapSize(options.maxHeapMb() * MIB);
        tool.setWasmExceptionsUsed(false);
        tool.setIncremental(false);
        tool.setDebugInformationGenerated(false);
        tool.setSourceMapsFileGenerated(false);
        tool.setLog(new StreamLog(err));
        tool.generate();

        List<Problem> problems = tool.getProblemProvider().getProblems();
        if (!problems.isEmpty()) {
            // Every problem with its location and the call chain that reached it.
            TeaVMProblemRenderer.describeProblems(
                    tool.getDependencyInfo().getCallGraph(), tool.getProblemProvider(), new StreamLog(err));
        }
        boolean severe = problems.stream().anyMatch(p -> p.getSeverity() == ProblemSeverity.ERROR);
        return !severe && !tool.wasCancelled() && Files.isRegularFile(out);
    }

    /**
     * TeaVM computes the module's maximum memory with its own GC storage size (heap / 16); our plugin makes the
     * storage as large as the heap, so the heap could not reach --max-heap-mb without a larger maximum.
     */
    private static void raiseMemoryMaximum(BuildOptions options) throws IOException {
        byte[] module = Files.readAllBytes(options.out());
        WasmMemoryLimits.Limits limits = WasmMemoryLimits.read(module);
        if (limits.max() >= 0) {
            long maxPages = GcStorage.maxMemoryPages(limits.max(), (long) options.maxHeapMb() * MIB);
            Files.write(options.out(), WasmMemoryLimits.withMaximum(module, maxPages));
        }
    }

    private static int fail(Path out, PrintStream err, List<String> errors) {
        for (String error : errors) {
            err.println("ERROR: " + error);
        }
        try {
            // A module that failed a check must not be picked up by later build steps or deployments.
            if (Files.deleteIfExists(out)) {
                err.println("ERROR: deleted " + out);
            }
        } catch (IOException e) {
            err.println("ERROR: could not delete " + out + ": " + e);
        }
        return 1;
    }

    static String summary(WasmModuleInfo module) {
        return String.format(
                Locale.ROOT,
                "wasm: %s %d bytes (%.1f KiB), %d imports, %d exports",
                module.path(),
                module.sizeBytes(),
                module.sizeBytes() / 1024.0,
                module.imports().size(),
                module.exports().size());
    }

    private static List<File> classPathOfThisJvm() {
        List<File> files = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                files.add(new File(entry));
            }
        }
        return files;
    }

    /** TeaVM's log on the error stream; info and debug are dropped so a build prints only what matters. */
    private static final class StreamLog implements TeaVMToolLog {
        private final PrintStream stream;

        StreamLog(PrintStream stream) {
            this.stream = stream;
        }

        @Override
        public void info(String text) {}

        @Override
        public void debug(String text) {}

        @Override
        public void warning(String text) {
            stream.println("WARNING: " + text);
        }

        @Override
        public void error(String text) {
            stream.println("ERROR: " + text);
        }

        @Override
        public void info(String text, Throwable e) {}

        @Override
        public void debug(String text, Throwable e) {}

        @Override
        public void warning(String text, Throwable e) {
            warning(text + ": " + e);
        }

        @Override
        public void error(String text, Throwable e) {
            error(text + ": " + e);
            e.printStackTrace(stream);
        }
    }
}
