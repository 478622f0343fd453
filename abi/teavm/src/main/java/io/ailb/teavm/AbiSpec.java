package io.ailb.teavm;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parts of {@code abi/spec/proxy-wasm-abi.json} the build checks need: the functions a host links
 * ({@code imports} plus {@code wasiImports}), the guest exports and the ABI-version marker export.
 *
 * @param linkableImports "module.name" → signature of every import an Envoy/Higress host provides
 * @param exports export name → signature of every guest export the ABI defines
 * @param requiredExports exports the spec marks {@code "required": true}
 */
record AbiSpec(Map<String, WasmSignature> linkableImports, Map<String, WasmSignature> exports,
        List<String> requiredExports, String abiVersionExport) {

    static AbiSpec load(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("ABI spec not found: " + file);
        }
        Map<String, Object> root = JSON.std.mapFrom(Files.readString(file));
        Object abiVersionExport = root.get("abiVersionExport");
        if (!(abiVersionExport instanceof String)) {
            throw new IOException(file + ": \"abiVersionExport\" is missing");
        }
        Map<String, WasmSignature> imports = new LinkedHashMap<>();
        for (Map<String, Object> function : functions(root, "imports", file)) {
            imports.put(text(function, "module", file) + "." + text(function, "name", file), signature(function, file));
        }
        for (Map<String, Object> function : functions(root, "wasiImports", file)) {
            imports.put(text(function, "module", file) + "." + text(function, "name", file), signature(function, file));
        }
        Map<String, WasmSignature> exports = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        for (Map<String, Object> function : functions(root, "exports", file)) {
            String name = text(function, "name", file);
            exports.put(name, signature(function, file));
            if (Boolean.TRUE.equals(function.get("required"))) {
                required.add(name);
            }
        }
        return new AbiSpec(imports, exports, required, (String) abiVersionExport);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> functions(Map<String, Object> root, String key, Path file)
            throws IOException {
        Object value = root.get(key);
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list) || !list.stream().allMatch(Map.class::isInstance)) {
            throw new IOException(file + ": \"" + key + "\" must be an array of objects");
        }
        return (List<Map<String, Object>>) value;
    }

    private static WasmSignature signature(Map<String, Object> function, Path file) throws IOException {
        List<String> params = new ArrayList<>();
        Object declaredParams = function.getOrDefault("params", List.of());
        if (!(declaredParams instanceof List<?> paramList)) {
            throw new IOException(file + ": params of " + function.get("name") + " must be an array");
        }
        for (Object param : paramList) {
            if (!(param instanceof Map<?, ?> paramObject) || !(paramObject.get("type") instanceof String type)) {
                throw new IOException(file + ": a param of " + function.get("name") + " has no type");
            }
            params.add(type);
        }
        List<String> results = new ArrayList<>();
        Object declaredResults = function.getOrDefault("results", List.of());
        if (!(declaredResults instanceof List<?> resultList)) {
            throw new IOException(file + ": results of " + function.get("name") + " must be an array");
        }
        for (Object result : resultList) {
            results.add(String.valueOf(result));
        }
        return new WasmSignature(params, results);
    }

    private static String text(Map<String, Object> object, String key, Path file) throws IOException {
        if (!(object.get(key) instanceof String value)) {
            throw new IOException(file + ": an entry lacks \"" + key + "\": " + object);
        }
        return value;
    }
}
