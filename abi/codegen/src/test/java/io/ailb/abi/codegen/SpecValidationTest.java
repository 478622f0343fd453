package io.ailb.abi.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.jr.ob.JSON;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each broken spec is rejected with a message naming the entry. */
final class SpecValidationTest {

    @Test
    void theBaseSpecOfTheseTestsIsValid() throws Exception {
        AbiSpec spec = parse(validSpec());

        assertEquals(4, spec.imports().size());
        assertEquals(2, spec.exports().size());
        assertEquals(WasmType.I64, spec.imports().get(2).params().get(1).type());
        assertEquals(1, spec.exports().get(1).defaultResult());
    }

    @Test
    void unsupportedParameterTypeNamesTheImport() {
        Map<String, Object> spec = validSpec();
        param(entry(spec, "imports", 3), 0).put("type", "i16");

        assertRejected(spec, "imports[3] proxy_foo: unsupported Wasm type \"i16\" for parameter \"level\"");
    }

    @Test
    void unsupportedResultTypeNamesTheExport() {
        Map<String, Object> spec = validSpec();
        entry(spec, "exports", 1).put("results", list("v128"));

        assertRejected(spec, "exports[1] proxy_on_done: unsupported Wasm type \"v128\" for the result");
    }

    @Test
    void duplicateImportNamesBothEntries() {
        Map<String, Object> spec = validSpec();
        entry(spec, "imports", 3).put("name", "proxy_log");

        assertRejected(spec, "imports[3] proxy_log: duplicate name (also imports[0] proxy_log)");
    }

    @Test
    void duplicateExportIsRejected() {
        Map<String, Object> spec = validSpec();
        entry(spec, "exports", 1).put("name", "proxy_on_log");
        entry(spec, "exports", 1).put("results", list());
        entry(spec, "exports", 1).remove("defaultResult");

        assertRejected(spec, "exports[1] proxy_on_log: duplicate name (also exports[0] proxy_on_log)");
    }

    @Test
    void namesCollidingInJavaAreRejected() {
        Map<String, Object> spec = validSpec();
        // Both become proxyLoG0.
        entry(spec, "imports", 1).put("name", "proxy_lo_g0");
        entry(spec, "imports", 2).put("name", "proxy_lo_g_0");

        assertRejected(spec, "imports[2] proxy_lo_g_0: duplicate Java name (also imports[1] proxy_lo_g0)");
    }

    @Test
    void exportNamedLikeTheAbiVersionMarkerIsRejected() {
        Map<String, Object> spec = validSpec();
        entry(spec, "exports", 0).put("name", "proxy_abi_version_0_2_100");

        assertRejected(spec, "exports[0] proxy_abi_version_0_2_100: duplicate name (it is the abiVersionExport)");
    }

    @Test
    void duplicateEnumValueIsRejected() {
        Map<String, Object> spec = validSpec();
        values(entry(spec, "enums", 0)).add(map("name", "DEBUG", "value", 0));

        assertRejected(
                spec, "enums[0] LogLevel values[1] DEBUG: duplicate value 0 (also enums[0] LogLevel values[0] TRACE)");
    }

    @Test
    void duplicateEnumIsRejected() {
        Map<String, Object> spec = validSpec();
        enums(spec).add(map("name", "LogLevel", "doc", "again", "values", list(map("name", "A", "value", 1))));

        assertRejected(spec, "enums[1] LogLevel: duplicate name (also enums[0] LogLevel)");
    }

    @Test
    void enumNamedLikeAGeneratedClassIsRejected() {
        Map<String, Object> spec = validSpec();
        entry(spec, "enums", 0).put("name", "GuestExports");

        assertRejected(spec, "enums[0] GuestExports: name clashes with a generated class");
    }

    @Test
    void missingFieldNamesTheEntryAndField() {
        Map<String, Object> spec = validSpec();
        entry(spec, "imports", 1).remove("params");

        assertRejected(spec, "imports[1] proxy_done: missing field \"params\"");
    }

    @Test
    void missingNameFallsBackToTheIndex() {
        Map<String, Object> spec = validSpec();
        entry(spec, "imports", 2).remove("name");

        assertRejected(spec, "imports[2]: missing field \"name\"");
    }

    @Test
    void importOutsideEnvIsRejected() {
        Map<String, Object> spec = validSpec();
        entry(spec, "imports", 3).put("module", "foo");

        assertRejected(spec, "imports[3] proxy_foo: module \"foo\" is not allowed here (expected \"env\")");
    }

    @Test
    void wasiImportOutsideWasiIsRejected() {
        Map<String, Object> spec = validSpec();
        entry(spec, "wasiImports", 0).put("module", "env");

        assertRejected(
                spec,
                "wasiImports[0] fd_write: module \"env\" is not allowed here "
                        + "(expected one of [wasi_snapshot_preview1, wasi_unstable])");
    }

    @Test
    void exportWithResultNeedsADefaultResult() {
        Map<String, Object> spec = validSpec();
        entry(spec, "exports", 1).remove("defaultResult");

        assertRejected(
                spec, "exports[1] proxy_on_done: missing field \"defaultResult\" (required when there is a result)");
    }

    @Test
    void exportWithoutResultMayNotHaveADefaultResult() {
        Map<String, Object> spec = validSpec();
        entry(spec, "exports", 0).put("defaultResult", 0);

        assertRejected(spec, "exports[0] proxy_on_log: has a defaultResult but no result");
    }

    @Test
    void defaultResultMustFitTheResultType() {
        Map<String, Object> spec = validSpec();
        entry(spec, "exports", 1).put("defaultResult", 4_294_967_296L);

        assertRejected(spec, "exports[1] proxy_on_done: defaultResult 4294967296 is not an i32");
    }

    @Test
    void moreThanOneResultIsRejected() {
        Map<String, Object> spec = validSpec();
        entry(spec, "imports", 0).put("results", list("i32", "i32"));

        assertRejected(spec, "imports[0] proxy_log: 2 results; at most one is supported");
    }

    @Test
    void unknownFieldIsRejected() {
        Map<String, Object> spec = validSpec();
        entry(spec, "exports", 1).put("defaultResults", 1);

        assertRejected(spec, "exports[1] proxy_on_done: unknown field \"defaultResults\"");
    }

    @Test
    void parameterNameUsedByGeneratedCodeIsRejected() {
        Map<String, Object> spec = validSpec();
        param(entry(spec, "exports", 0), 0).put("name", "current");

        assertRejected(spec, "exports[0] proxy_on_log: parameter name \"current\" is reserved");
    }

    @Test
    void duplicateParameterIsRejected() {
        Map<String, Object> spec = validSpec();
        param(entry(spec, "imports", 0), 1).put("name", "level");

        assertRejected(spec, "imports[0] proxy_log: duplicate parameter \"level\"");
    }

    @Test
    void nameThatIsNotSnakeCaseIsRejected() {
        Map<String, Object> spec = validSpec();
        entry(spec, "imports", 3).put("name", "proxyFoo");

        assertRejected(spec, "imports[3] proxyFoo: name \"proxyFoo\" does not match [a-z][a-z0-9]*(_[a-z0-9]+)*");
    }

    @Test
    void textThatIsNotJsonIsRejected() {
        SpecException e = assertThrows(SpecException.class, () -> SpecReader.parse("{\"name\": "));

        assertTrue(e.getMessage().startsWith("ABI spec is not valid JSON: "), e.getMessage());
    }

    private static void assertRejected(Map<String, Object> spec, String message) {
        SpecException e = assertThrows(SpecException.class, () -> parse(spec));
        assertEquals(message, e.getMessage());
    }

    private static AbiSpec parse(Map<String, Object> spec) throws Exception {
        return SpecReader.parse(JSON.std.asString(spec));
    }

    private static Map<String, Object> validSpec() {
        return map(
                "name", "test ABI",
                "abiVersionExport", "proxy_abi_version_0_2_100",
                "enums",
                        list(map(
                                "name",
                                "LogLevel",
                                "doc",
                                "Levels.",
                                "values",
                                list(map("name", "TRACE", "value", 0, "doc", "Trace.")))),
                "imports",
                        list(
                                envImport(
                                        "proxy_log",
                                        params("level", "i32", "messageData", "i32", "messageSize", "i32")),
                                envImport("proxy_done", params()),
                                envImport("proxy_increment_metric", params("metricId", "i32", "delta", "i64")),
                                envImport("proxy_foo", params("level", "i32"))),
                "exports",
                        list(
                                map(
                                        "name",
                                        "proxy_on_log",
                                        "doc",
                                        "Log.",
                                        "higress",
                                        false,
                                        "required",
                                        false,
                                        "params",
                                        params("contextId", "i32"),
                                        "results",
                                        list()),
                                map(
                                        "name",
                                        "proxy_on_done",
                                        "doc",
                                        "Done.",
                                        "higress",
                                        false,
                                        "required",
                                        false,
                                        "params",
                                        params("contextId", "i32"),
                                        "results",
                                        list("i32"),
                                        "defaultResult",
                                        1)),
                "wasiImports",
                        list(map(
                                "module",
                                "wasi_snapshot_preview1",
                                "name",
                                "fd_write",
                                "params",
                                params("fd", "i32", "iovs", "i32", "iovsLen", "i32", "returnWritten", "i32"),
                                "results",
                                list("i32"))));
    }

    private static Map<String, Object> envImport(String name, List<Object> params) {
        return map(
                "module",
                "env",
                "name",
                name,
                "doc",
                "Doc.",
                "higress",
                false,
                "params",
                params,
                "results",
                list("i32"));
    }

    private static List<Object> params(String... namesAndTypes) {
        List<Object> params = new ArrayList<>();
        for (int i = 0; i < namesAndTypes.length; i += 2) {
            params.add(map("name", namesAndTypes[i], "type", namesAndTypes[i + 1]));
        }
        return params;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> entry(Map<String, Object> spec, String section, int index) {
        return (Map<String, Object>) ((List<Object>) spec.get(section)).get(index);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> param(Map<String, Object> function, int index) {
        return (Map<String, Object>) ((List<Object>) function.get("params")).get(index);
    }

    @SuppressWarnings("unchecked")
    private static List<Object> values(Map<String, Object> enumType) {
        return (List<Object>) enumType.get("values");
    }

    @SuppressWarnings("unchecked")
    private static List<Object> enums(Map<String, Object> spec) {
        return (List<Object>) spec.get("enums");
    }

    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    private static List<Object> list(Object... items) {
        return new ArrayList<>(Arrays.asList(items));
    }
}
