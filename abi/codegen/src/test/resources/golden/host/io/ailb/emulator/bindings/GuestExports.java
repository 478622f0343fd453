// Generated from abi/spec/proxy-wasm-abi.json by io.ailb.abi.codegen.AbiGenerator. Do not edit.
package io.ailb.emulator.bindings;

import com.dylibso.chicory.runtime.ExportFunction;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasm.types.Export;
import com.dylibso.chicory.wasm.types.ExportSection;
import com.dylibso.chicory.wasm.types.ExternalType;
import java.util.HashSet;
import java.util.Set;

/**
 * Typed calls into the guest's callbacks of mini ABI; calling an export the module lacks returns the spec's default
 * result.
 */
public final class GuestExports {
    private final Set<String> exportedFunctions;
    private final ExportFunction proxyOnRequestHeaders;
    private final ExportFunction proxyOnDelete;
    private final ExportFunction proxyOnWeight;

    public GuestExports(Instance instance) {
        this.exportedFunctions = exportedFunctionNames(instance);
        this.proxyOnRequestHeaders = lookUp(instance, "proxy_on_request_headers");
        this.proxyOnDelete = lookUp(instance, "proxy_on_delete");
        this.proxyOnWeight = lookUp(instance, "proxy_on_weight");
    }

    /** Whether the module exports a function called {@code exportName}. */
    public boolean has(String exportName) {
        return exportedFunctions.contains(exportName);
    }

    /**
     * Headers arrived.
     * <p>Result assumed when the export is absent: 0.
     */
    public int proxyOnRequestHeaders(int contextId, int headers, int endOfStream) {
        if (this.proxyOnRequestHeaders == null) {
            return 0;
        }
        long[] results = this.proxyOnRequestHeaders.apply(contextId, headers, endOfStream);
        return (int) results[0];
    }

    /** Context removed. */
    public void proxyOnDelete(int contextId) {
        if (this.proxyOnDelete != null) {
            this.proxyOnDelete.apply(contextId);
        }
    }

    /**
     * Returns a weight.
     * <p>Higress extension.
     * <p>Required: the host refuses a module without this export.
     * <p>Result assumed when the export is absent: 1.5.
     */
    public double proxyOnWeight(long bias) {
        if (this.proxyOnWeight == null) {
            return 1.5;
        }
        long[] results = this.proxyOnWeight.apply(bias);
        return Double.longBitsToDouble(results[0]);
    }

    private ExportFunction lookUp(Instance instance, String name) {
        return exportedFunctions.contains(name) ? instance.export(name) : null;
    }

    private static Set<String> exportedFunctionNames(Instance instance) {
        Set<String> names = new HashSet<>();
        ExportSection section = instance.module().exportSection();
        for (int i = 0; i < section.exportCount(); i++) {
            Export export = section.getExport(i);
            if (export.exportType() == ExternalType.FUNCTION) {
                names.add(export.name());
            }
        }
        return names;
    }
}
