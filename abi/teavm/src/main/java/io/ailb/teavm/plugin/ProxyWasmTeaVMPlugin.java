package io.ailb.teavm.plugin;

import org.teavm.backend.wasm.TeaVMWasmHost;
import org.teavm.vm.spi.TeaVMHost;
import org.teavm.vm.spi.TeaVMPlugin;

/**
 * Makes TeaVM's WASI output linkable by a proxy-wasm host (Envoy/Higress): replaces the classlib methods that TeaVM
 * implements as imports from its own host modules ({@code teavm}, {@code teavmMath}) or leaves unimplemented.
 * Also enlarges the GC's work area so that garbage collection cannot overflow it ({@link GcStorageTransformer}) and
 * fixes the GC's exact-fit allocation bugs ({@link GcExactFitTransformer}), makes every static field a GC root
 * ({@link GcStaticRootsTransformer}), keeps young collections inside the GC's region table
 * ({@link GcRegionTableTransformer}) and keeps {@code _start} from leaving a corrupt array behind
 * ({@link MainArgsTransformer}), and compiles the codec's word reads and byte copies to single memory instructions
 * ({@link ByteAccessTransformer}).
 * Registered in {@code META-INF/services/org.teavm.vm.spi.TeaVMPlugin}; TeaVM finds it on its classpath.
 */
public final class ProxyWasmTeaVMPlugin implements TeaVMPlugin {
    @Override
    public void install(TeaVMHost host) {
        TeaVMWasmHost wasmHost = host.getExtension(TeaVMWasmHost.class);
        if (wasmHost == null) {
            return;
        }
        wasmHost.add(context -> new WasmMathIntrinsic());
        wasmHost.add(context -> new ByteAccessIntrinsic());
        host.add(new ClasslibImportTransformer());
        host.add(new GcStorageTransformer());
        host.add(new GcExactFitTransformer());
        host.add(new GcStaticRootsTransformer());
        host.add(new GcRegionTableTransformer());
        host.add(new MainArgsTransformer());
        host.add(new ByteAccessTransformer());
    }
}
