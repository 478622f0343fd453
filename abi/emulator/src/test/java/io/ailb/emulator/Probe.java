package io.ailb.emulator;

import java.util.ArrayList;
import java.util.List;

/** The probe filter of abi/example (PROBE.md), loaded once per test class. */
final class Probe {
    /** Compiled once per JVM: Chicory's compiler takes seconds on the probe, every VM reuses its output. */
    private static WasmPlugin plugin;

    private Probe() {}

    /** The compiled probe (abi/example builds it before this module's tests run). */
    static synchronized WasmPlugin load() {
        if (plugin == null) {
            plugin = WasmArtifacts.load("probe");
        }
        return plugin;
    }

    /** Request headers selecting probe operation {@code op}, plus {@code extra} name/value pairs. */
    static HeaderMap request(String op, String... extra) {
        List<String> pairs = new ArrayList<>(List.of(":method", "GET", ":path", "/probe", ":authority", "probe"));
        if (!op.isEmpty()) {
            pairs.add("x-probe-op");
            pairs.add(op);
        }
        pairs.addAll(List.of(extra));
        return HeaderMap.of(pairs.toArray(new String[0]));
    }

    /** Sends {@code headers} with end_of_stream on a new stream and returns the local reply's body. */
    static String answer(PluginVm vm, HeaderMap headers) {
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(headers, true);
        return stream.localReply()
                .orElseThrow(() -> new AssertionError("no local reply" + vm.tail()))
                .bodyText();
    }
}
