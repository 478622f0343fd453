package io.ailb.abi.codegen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.types.ValType;
import io.ailb.abi.codegen.AbiSpec.Function;
import java.io.File;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.teavm.interop.Export;
import org.teavm.interop.Import;

/** Generated sources compile against TeaVM interop / Chicory and behave as the spec says. */
final class GeneratedCodeTest {
    private static final Path MINI_SPEC = Path.of("src/test/resources/mini-abi.json");

    /**
     * A hand-assembled module with one export, {@code proxy_on_done: (i32) -> i32}, returning 7 (not the default 1),
     * so a call that reaches it is told apart from one that falls back.
     */
    private static final byte[] MODULE_WITH_ON_DONE = concat(
            new byte[] {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00},
            new byte[] {0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f},
            new byte[] {0x03, 0x02, 0x01, 0x00},
            new byte[] {0x07, 0x11, 0x01, 0x0d},
            "proxy_on_done".getBytes(StandardCharsets.US_ASCII),
            new byte[] {0x00, 0x00},
            new byte[] {0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x07, 0x0b});

    /** Compiled bindings per spec and side: compiling is the slow part, so each is done once. */
    private static final Map<String, ClassLoader> COMPILED = new HashMap<>();

    @TempDir
    static Path work;

    @Test
    void realSpecGuestBindingsCompileAndCarryTheirWasmNames() throws Exception {
        AbiSpec spec = SpecReader.read(RealSpecTest.REAL_SPEC);
        ClassLoader loader = compile(spec, Side.GUEST);
        Class<?> imports = loader.loadClass("io.ailb.proxywasm.bindings.ProxyWasmImports");
        for (Function function : spec.imports()) {
            Method method = imports.getMethod(function.javaName(), parameterTypes(function));
            Import annotation = method.getAnnotation(Import.class);
            assertEquals(function.module(), annotation.module(), function.name());
            assertEquals(function.name(), annotation.name(), function.name());
        }
        Class<?> exports = loader.loadClass("io.ailb.proxywasm.bindings.ProxyWasmExports");
        for (Function function : spec.exports()) {
            Method method = exports.getMethod(function.javaName(), parameterTypes(function));
            assertEquals(function.name(), method.getAnnotation(Export.class).name());
        }
        assertEquals(
                spec.abiVersionExport(),
                exports.getMethod("proxyAbiVersion02100")
                        .getAnnotation(Export.class)
                        .name());
    }

    @Test
    void guestExportsReturnTheDefaultUntilCallbacksAreInstalled() throws Exception {
        ClassLoader loader = compile(SpecReader.read(RealSpecTest.REAL_SPEC), Side.GUEST);
        Class<?> exports = loader.loadClass("io.ailb.proxywasm.bindings.ProxyWasmExports");
        Class<?> callbacks = loader.loadClass("io.ailb.proxywasm.bindings.GuestCallbacks");
        Method onRequestHeaders = exports.getMethod("proxyOnRequestHeaders", int.class, int.class, int.class);
        Method onConfigure = exports.getMethod("proxyOnConfigure", int.class, int.class);

        assertEquals(0, onRequestHeaders.invoke(null, 2, 5, 0));
        assertEquals(1, onConfigure.invoke(null, 1, 0));

        Object installed = Proxy.newProxyInstance(
                loader,
                new Class<?>[] {callbacks},
                (proxy, method, args) -> method.getName().equals("proxyOnRequestHeaders") ? (Integer) args[1] + 1 : 0);
        exports.getField("callbacks").set(null, installed);
        try {
            assertEquals(6, onRequestHeaders.invoke(null, 2, 5, 0));
            assertEquals(0, onConfigure.invoke(null, 1, 0));
        } finally {
            exports.getField("callbacks").set(null, null);
        }
    }

    @Test
    void enumNameOfNamesKnownAndUnknownValues() throws Exception {
        ClassLoader loader = compile(SpecReader.read(RealSpecTest.REAL_SPEC), Side.GUEST);
        Class<?> bufferType = loader.loadClass("io.ailb.proxywasm.bindings.BufferType");

        assertEquals(9, bufferType.getField("REDIS_CALL_RESPONSE").getInt(null));
        assertEquals(
                "REDIS_CALL_RESPONSE", bufferType.getMethod("nameOf", int.class).invoke(null, 9));
        assertEquals("UNKNOWN(42)", bufferType.getMethod("nameOf", int.class).invoke(null, 42));
    }

    @Test
    void realSpecHostImportTableLinksEveryEnvImportInSpecOrder() throws Exception {
        AbiSpec spec = SpecReader.read(RealSpecTest.REAL_SPEC);
        ClassLoader loader = compile(spec, Side.HOST);
        List<Object[]> calls = new ArrayList<>();
        List<HostFunction> functions = hostFunctions(loader, calls, 0);

        assertEquals(spec.imports().size(), functions.size());
        for (int i = 0; i < functions.size(); i++) {
            Function expected = spec.imports().get(i);
            HostFunction actual = functions.get(i);
            assertEquals(expected.module(), actual.module());
            assertEquals(expected.name(), actual.name());
            assertEquals(
                    expected.params().stream().map(p -> valType(p.type())).toList(),
                    actual.paramTypes(),
                    expected.name());
            assertEquals(List.of(ValType.I32), actual.returnTypes(), expected.name());
        }
        HostFunction increment = functions.stream()
                .filter(f -> f.name().equals("proxy_increment_metric"))
                .findFirst()
                .orElseThrow();
        increment.handle().apply(null, 4L, -3L);
        assertEquals("proxyIncrementMetric", calls.get(0)[0]);
        assertArrayEquals(new Object[] {4, -3L}, (Object[]) calls.get(0)[1]);
    }

    @Test
    void hostImportTableConvertsF64AndVoid() throws Exception {
        ClassLoader loader = compile(SpecReader.read(MINI_SPEC), Side.HOST);
        List<Object[]> calls = new ArrayList<>();
        List<HostFunction> functions = hostFunctions(loader, calls, 0.25);

        long[] mixed = functions.get(1).handle().apply(null, 9L, Double.doubleToRawLongBits(2.5));
        assertArrayEquals(new Object[] {9L, 2.5}, (Object[]) calls.get(0)[1]);
        assertArrayEquals(new long[] {Double.doubleToRawLongBits(0.25)}, mixed);
        assertEquals(null, functions.get(2).handle().apply(null));
        assertEquals("proxyNotify", calls.get(1)[0]);
    }

    @Test
    void guestExportsCallPresentExportsAndDefaultAbsentOnes() throws Exception {
        ClassLoader loader = compile(SpecReader.read(RealSpecTest.REAL_SPEC), Side.HOST);
        Instance instance = Instance.builder(Parser.parse(MODULE_WITH_ON_DONE))
                .withStart(false)
                .build();
        Class<?> type = loader.loadClass("io.ailb.emulator.bindings.GuestExports");
        Object exports = type.getConstructor(Instance.class).newInstance(instance);

        assertTrue((Boolean) type.getMethod("has", String.class).invoke(exports, "proxy_on_done"));
        assertFalse((Boolean) type.getMethod("has", String.class).invoke(exports, "proxy_on_configure"));
        assertEquals(7, type.getMethod("proxyOnDone", int.class).invoke(exports, 3));
        assertEquals(1, type.getMethod("proxyOnConfigure", int.class, int.class).invoke(exports, 1, 0));
        assertEquals(
                0,
                type.getMethod("proxyOnRequestHeaders", int.class, int.class, int.class)
                        .invoke(exports, 2, 1, 0));
        // An absent void export is a no-op, not an error.
        type.getMethod("proxyOnLog", int.class).invoke(exports, 2);
    }

    @Test
    void hostWasiNamesFollowTheSpec() throws Exception {
        AbiSpec spec = SpecReader.read(RealSpecTest.REAL_SPEC);
        ClassLoader loader = compile(spec, Side.HOST);

        Object names = loader.loadClass("io.ailb.emulator.bindings.WasiImports")
                .getField("NAMES")
                .get(null);
        assertEquals(spec.wasiImports().stream().map(Function::qualifiedName).toList(), names);
    }

    @Test
    void miniSpecGuestBindingsCompile() throws Exception {
        ClassLoader loader = compile(SpecReader.read(MINI_SPEC), Side.GUEST);
        Class<?> exports = loader.loadClass("io.ailb.proxywasm.bindings.ProxyWasmExports");

        assertEquals(1.5, exports.getMethod("proxyOnWeight", long.class).invoke(null, 3L));
    }

    /** The import table of the compiled host bindings over a recording {@code HostImports}. */
    @SuppressWarnings("unchecked")
    private static List<HostFunction> hostFunctions(ClassLoader loader, List<Object[]> calls, double f64Result)
            throws Exception {
        Class<?> hostImports = loader.loadClass("io.ailb.emulator.bindings.HostImports");
        Object recorder = Proxy.newProxyInstance(loader, new Class<?>[] {hostImports}, (proxy, method, args) -> {
            calls.add(new Object[] {method.getName(), args == null ? new Object[0] : args});
            Class<?> result = method.getReturnType();
            if (result == double.class) {
                return f64Result;
            }
            return result == void.class ? null : (Object) 0;
        });
        Class<?> table = loader.loadClass("io.ailb.emulator.bindings.HostImportTable");
        return (List<HostFunction>) table.getMethod("functions", hostImports).invoke(null, recorder);
    }

    /** Compiles the bindings of {@code side} with {@code -Werror} and returns a loader for them. */
    private static ClassLoader compile(AbiSpec spec, Side side) throws Exception {
        String key = spec.name() + "-" + side;
        ClassLoader cached = COMPILED.get(key);
        if (cached != null) {
            return cached;
        }
        Path sources = work.resolve(key).resolve("src");
        Path classes = work.resolve(key).resolve("classes");
        OutputDirectory.sync(sources, side.packagePath(), AbiGenerator.generate(spec, side));
        Files.createDirectories(classes);

        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files =
                compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            List<File> units = new ArrayList<>();
            for (File file : sources.resolve(side.packagePath()).toFile().listFiles()) {
                units.add(file);
            }
            List<String> options = List.of(
                    "-classpath",
                    dependencyClasspath(),
                    "-d",
                    classes.toString(),
                    "-Xlint:all",
                    "-Werror",
                    "--release",
                    "17");
            boolean compiled = compiler.getTask(
                            null, files, diagnostics, options, null, files.getJavaFileObjectsFromFiles(units))
                    .call();
            StringBuilder report = new StringBuilder();
            for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
                report.append(diagnostic).append('\n');
            }
            assertTrue(compiled, report.toString());
        }
        ClassLoader loader =
                new URLClassLoader(new URL[] {classes.toUri().toURL()}, GeneratedCodeTest.class.getClassLoader());
        COMPILED.put(key, loader);
        return loader;
    }

    /** Jars of TeaVM interop and Chicory, found from their classes (surefire's class path may be a manifest jar). */
    private static String dependencyClasspath() throws Exception {
        List<String> entries = new ArrayList<>();
        for (Class<?> type : List.of(Import.class, Instance.class, ValType.class)) {
            URL location = type.getProtectionDomain().getCodeSource().getLocation();
            assertNotNull(location, type.getName());
            entries.add(Path.of(location.toURI()).toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    private static Class<?>[] parameterTypes(Function function) {
        return function.params().stream()
                .map(p -> switch (p.type()) {
                    case I32 -> int.class;
                    case I64 -> long.class;
                    case F64 -> double.class;
                })
                .toArray(Class<?>[]::new);
    }

    private static ValType valType(WasmType type) {
        return switch (type) {
            case I32 -> ValType.I32;
            case I64 -> ValType.I64;
            case F64 -> ValType.F64;
        };
    }

    private static byte[] concat(byte[]... parts) {
        int length = Arrays.stream(parts).mapToInt(part -> part.length).sum();
        byte[] out = new byte[length];
        int offset = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, offset, part.length);
            offset += part.length;
        }
        return out;
    }
}
