package io.ailb.abi.codegen;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.abi.codegen.AbiSpec.EnumType;
import io.ailb.abi.codegen.AbiSpec.EnumValue;
import io.ailb.abi.codegen.AbiSpec.Function;
import io.ailb.abi.codegen.AbiSpec.Param;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the ABI spec JSON and validates it in one pass. Every error names its entry, e.g.
 * {@code imports[3] proxy_foo: unsupported Wasm type "i16" for parameter "level"}.
 */
public final class SpecReader {
    /** Module of every proxy-wasm host function. */
    public static final String ENV_MODULE = "env";

    /** Modules a WASI import may come from. */
    public static final Set<String> WASI_MODULES = Set.of("wasi_snapshot_preview1", "wasi_unstable");

    /** Class names the generator writes itself; an enum may not take one. */
    static final Set<String> GENERATED_CLASS_NAMES = Set.of(
            "ProxyWasmImports",
            "GuestCallbacks",
            "ProxyWasmExports",
            "HostImports",
            "HostImportTable",
            "GuestExports",
            "WasiImports");

    /** Local names the generated method bodies use; a parameter may not shadow them. */
    static final Set<String> RESERVED_PARAM_NAMES = Set.of("current", "results", "impl", "instance", "args");

    /** Member names of the generated {@code GuestExports}; an export's Java name may not take one. */
    static final Set<String> RESERVED_EXPORT_NAMES = Set.of("has", "exportedFunctions", "lookUp");

    private static final Set<String> TOP_FIELDS =
            Set.of("name", "abiVersionExport", "enums", "imports", "exports", "wasiImports");
    private static final Set<String> ENUM_FIELDS = Set.of("name", "doc", "values");
    private static final Set<String> ENUM_VALUE_FIELDS = Set.of("name", "value", "doc");
    private static final Set<String> IMPORT_FIELDS = Set.of("module", "name", "doc", "higress", "params", "results");
    private static final Set<String> EXPORT_FIELDS =
            Set.of("name", "doc", "higress", "required", "params", "results", "defaultResult");
    private static final Set<String> WASI_FIELDS = Set.of("module", "name", "doc", "params", "results");
    private static final Set<String> PARAM_FIELDS = Set.of("name", "type");

    private SpecReader() {}

    /** Reads and validates the spec at {@code path}. */
    public static AbiSpec read(Path path) throws SpecException {
        String json;
        try {
            json = Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new SpecException("cannot read ABI spec " + path + ": " + e.getMessage(), e);
        }
        return parse(json);
    }

    /** Parses and validates spec JSON text. */
    public static AbiSpec parse(String json) throws SpecException {
        Map<String, Object> root;
        try {
            root = JSON.std.mapFrom(json);
        } catch (IOException e) {
            throw new SpecException("ABI spec is not valid JSON: " + e.getMessage(), e);
        }
        if (root == null) {
            throw new SpecException("ABI spec is empty");
        }
        checkFields("spec", root, TOP_FIELDS);
        String name = string("spec", root, "name");
        String abiVersionExport = string("spec", root, "abiVersionExport");
        checkPattern("spec", "abiVersionExport", abiVersionExport, Names.SNAKE_CASE);

        List<EnumType> enums = readEnums(list("spec", root, "enums"));
        List<Function> imports = readFunctions("imports", list("spec", root, "imports"), Kind.IMPORT);
        List<Function> exports = readFunctions("exports", list("spec", root, "exports"), Kind.EXPORT);
        List<Function> wasiImports = readFunctions("wasiImports", list("spec", root, "wasiImports"), Kind.WASI);
        for (int i = 0; i < exports.size(); i++) {
            if (exports.get(i).name().equals(abiVersionExport)) {
                throw new SpecException(
                        entry("exports", i, abiVersionExport) + ": duplicate name (it is the abiVersionExport)");
            }
        }
        return new AbiSpec(name, abiVersionExport, enums, imports, exports, wasiImports);
    }

    private enum Kind {
        IMPORT,
        EXPORT,
        WASI
    }

    private static List<EnumType> readEnums(List<Object> items) throws SpecException {
        List<EnumType> enums = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Map<String, Object> item = object("enums[" + i + "]", items.get(i));
            String label = entry("enums", i, item.get("name"));
            checkFields(label, item, ENUM_FIELDS);
            String name = string(label, item, "name");
            checkPattern(label, "name", name, Names.UPPER_CAMEL);
            if (GENERATED_CLASS_NAMES.contains(name)) {
                throw new SpecException(label + ": name clashes with a generated class");
            }
            checkUnique(seen, name, label, "duplicate name");
            String doc = string(label, item, "doc");
            List<Object> valueItems = list(label, item, "values");
            if (valueItems.isEmpty()) {
                throw new SpecException(label + ": has no values");
            }
            List<EnumValue> values = new ArrayList<>();
            Map<String, String> seenNames = new HashMap<>();
            Map<String, String> seenValues = new HashMap<>();
            for (int v = 0; v < valueItems.size(); v++) {
                Map<String, Object> valueItem = object(label + " values[" + v + "]", valueItems.get(v));
                String valueLabel = label + " " + entry("values", v, valueItem.get("name"));
                checkFields(valueLabel, valueItem, ENUM_VALUE_FIELDS);
                String valueName = string(valueLabel, valueItem, "name");
                checkPattern(valueLabel, "name", valueName, Names.CONSTANT);
                checkUnique(seenNames, valueName, valueLabel, "duplicate name");
                int value = intValue(valueLabel, "value", required(valueLabel, valueItem, "value"));
                if (seenValues.containsKey(Integer.toString(value))) {
                    throw new SpecException(valueLabel + ": duplicate value " + value + " (also "
                            + seenValues.get(Integer.toString(value)) + ")");
                }
                seenValues.put(Integer.toString(value), valueLabel);
                String valueDoc = valueItem.containsKey("doc") ? string(valueLabel, valueItem, "doc") : "";
                values.add(new EnumValue(valueName, value, valueDoc));
            }
            enums.add(new EnumType(name, doc, values));
        }
        return enums;
    }

    private static List<Function> readFunctions(String section, List<Object> items, Kind kind) throws SpecException {
        List<Function> functions = new ArrayList<>();
        Map<String, String> seenNames = new HashMap<>();
        Map<String, String> seenJavaNames = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Map<String, Object> item = object(section + "[" + i + "]", items.get(i));
            String label = entry(section, i, item.get("name"));
            checkFields(
                    label,
                    item,
                    kind == Kind.IMPORT ? IMPORT_FIELDS : kind == Kind.EXPORT ? EXPORT_FIELDS : WASI_FIELDS);
            String name = string(label, item, "name");
            checkPattern(label, "name", name, Names.SNAKE_CASE);

            String module = "";
            if (kind != Kind.EXPORT) {
                module = string(label, item, "module");
                boolean allowed = kind == Kind.IMPORT ? ENV_MODULE.equals(module) : WASI_MODULES.contains(module);
                if (!allowed) {
                    throw new SpecException(label + ": module \"" + module + "\" is not allowed here (expected "
                            + (kind == Kind.IMPORT ? "\"" + ENV_MODULE + "\"" : "one of " + sorted(WASI_MODULES))
                            + ")");
                }
            }
            checkUnique(seenNames, module + "." + name, label, "duplicate name");
            checkUnique(seenJavaNames, Names.lowerCamel(name), label, "duplicate Java name");
            if (kind == Kind.EXPORT && RESERVED_EXPORT_NAMES.contains(Names.lowerCamel(name))) {
                throw new SpecException(label + ": Java name \"" + Names.lowerCamel(name) + "\" is reserved");
            }

            String doc = kind == Kind.WASI && !item.containsKey("doc") ? "" : string(label, item, "doc");
            boolean higress = kind != Kind.WASI && bool(label, item, "higress");
            boolean required = kind == Kind.EXPORT && bool(label, item, "required");
            List<Param> params = readParams(label, list(label, item, "params"));
            WasmType result = readResult(label, list(label, item, "results"));

            Number defaultResult = null;
            if (kind == Kind.EXPORT) {
                defaultResult = readDefaultResult(label, item, result);
            }
            functions.add(new Function(module, name, doc, higress, required, params, result, defaultResult));
        }
        return functions;
    }

    private static List<Param> readParams(String label, List<Object> items) throws SpecException {
        List<Param> params = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        for (int p = 0; p < items.size(); p++) {
            Map<String, Object> item = object(label + " params[" + p + "]", items.get(p));
            String paramLabel = label + " params[" + p + "]";
            checkFields(paramLabel, item, PARAM_FIELDS);
            String name = string(paramLabel, item, "name");
            checkPattern(paramLabel, "name", name, Names.LOWER_CAMEL);
            if (Names.JAVA_RESERVED.contains(name) || RESERVED_PARAM_NAMES.contains(name)) {
                throw new SpecException(label + ": parameter name \"" + name + "\" is reserved");
            }
            if (seen.containsKey(name)) {
                throw new SpecException(label + ": duplicate parameter \"" + name + "\"");
            }
            seen.put(name, paramLabel);
            String typeName = string(paramLabel, item, "type");
            WasmType type = WasmType.fromWasmName(typeName);
            if (type == null) {
                throw new SpecException(
                        label + ": unsupported Wasm type \"" + typeName + "\" for parameter \"" + name + "\"");
            }
            params.add(new Param(name, type));
        }
        return params;
    }

    private static WasmType readResult(String label, List<Object> results) throws SpecException {
        if (results.size() > 1) {
            throw new SpecException(label + ": " + results.size() + " results; at most one is supported");
        }
        if (results.isEmpty()) {
            return null;
        }
        Object typeName = results.get(0);
        WasmType type = typeName instanceof String ? WasmType.fromWasmName((String) typeName) : null;
        if (type == null) {
            throw new SpecException(label + ": unsupported Wasm type " + quoted(typeName) + " for the result");
        }
        return type;
    }

    private static Number readDefaultResult(String label, Map<String, Object> item, WasmType result)
            throws SpecException {
        Object value = item.get("defaultResult");
        if (result == null) {
            if (value != null) {
                throw new SpecException(label + ": has a defaultResult but no result");
            }
            return null;
        }
        if (value == null) {
            throw new SpecException(label + ": missing field \"defaultResult\" (required when there is a result)");
        }
        if (!(value instanceof Number)) {
            throw new SpecException(label + ": defaultResult must be a number, not " + quoted(value));
        }
        Number number = (Number) value;
        if (result == WasmType.I32) {
            return intValue(label, "defaultResult", number);
        }
        if (result == WasmType.I64 && !isIntegral(number)) {
            throw new SpecException(label + ": defaultResult " + number + " is not an i64");
        }
        return number;
    }

    private static void checkFields(String label, Map<String, Object> item, Set<String> allowed) throws SpecException {
        for (String key : item.keySet()) {
            if (!allowed.contains(key)) {
                throw new SpecException(label + ": unknown field \"" + key + "\"");
            }
        }
    }

    private static void checkPattern(String label, String field, String value, Pattern pattern) throws SpecException {
        if (!pattern.matcher(value).matches()) {
            throw new SpecException(label + ": " + field + " \"" + value + "\" does not match " + pattern.pattern());
        }
    }

    private static void checkUnique(Map<String, String> seen, String key, String label, String problem)
            throws SpecException {
        String previous = seen.putIfAbsent(key, label);
        if (previous != null) {
            throw new SpecException(label + ": " + problem + " (also " + previous + ")");
        }
    }

    private static String entry(String section, int index, Object name) {
        String base = section + "[" + index + "]";
        return name instanceof String ? base + " " + name : base;
    }

    private static Object required(String label, Map<String, Object> item, String field) throws SpecException {
        Object value = item.get(field);
        if (value == null) {
            throw new SpecException(label + ": missing field \"" + field + "\"");
        }
        return value;
    }

    private static String string(String label, Map<String, Object> item, String field) throws SpecException {
        Object value = required(label, item, field);
        if (!(value instanceof String)) {
            throw new SpecException(label + ": field \"" + field + "\" must be a string, not " + quoted(value));
        }
        return (String) value;
    }

    private static boolean bool(String label, Map<String, Object> item, String field) throws SpecException {
        Object value = required(label, item, field);
        if (!(value instanceof Boolean)) {
            throw new SpecException(label + ": field \"" + field + "\" must be true or false, not " + quoted(value));
        }
        return (Boolean) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(String label, Map<String, Object> item, String field) throws SpecException {
        Object value = required(label, item, field);
        if (!(value instanceof List)) {
            throw new SpecException(label + ": field \"" + field + "\" must be a list, not " + quoted(value));
        }
        return (List<Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(String label, Object value) throws SpecException {
        if (!(value instanceof Map)) {
            throw new SpecException(label + ": must be an object, not " + quoted(value));
        }
        return (Map<String, Object>) value;
    }

    private static int intValue(String label, String field, Object value) throws SpecException {
        if (!(value instanceof Number)
                || !isIntegral((Number) value)
                || ((Number) value).longValue() != ((Number) value).intValue()) {
            throw new SpecException(label + ": " + field + " " + quoted(value) + " is not an i32");
        }
        return ((Number) value).intValue();
    }

    private static boolean isIntegral(Number number) {
        return number instanceof Integer
                || number instanceof Long
                || number instanceof BigInteger && ((BigInteger) number).bitLength() < 64;
    }

    private static String quoted(Object value) {
        return value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
    }

    private static List<String> sorted(Set<String> values) {
        return values.stream().sorted().toList();
    }
}
