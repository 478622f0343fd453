package io.ailb.independent;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** What v8-load.js printed for one module: ordered "key value" pairs plus the raw text for failure messages. */
final class V8Report {
    private final Path wasm;
    private final List<String[]> lines;
    private final String raw;

    V8Report(Path wasm, List<String[]> lines, String raw) {
        this.wasm = wasm;
        this.lines = List.copyOf(lines);
        this.raw = raw;
    }

    Optional<String> first(String key) {
        return lines.stream().filter(l -> l[0].equals(key)).map(l -> l[1]).findFirst();
    }

    List<String> all(String key) {
        return lines.stream().filter(l -> l[0].equals(key)).map(l -> l[1]).collect(Collectors.toList());
    }

    /** "name kind" lines → names of the given kind. */
    List<String> named(String key, String kind) {
        return all(key).stream()
                .filter(v -> v.endsWith(" " + kind))
                .map(v -> v.substring(0, v.length() - kind.length() - 1))
                .collect(Collectors.toList());
    }

    /** Import calls the guest made in one phase, as "module.name count". */
    List<String> callsDuring(String phase) {
        return all("call").stream()
                .filter(v -> v.startsWith(phase + " "))
                .map(v -> v.substring(phase.length() + 1))
                .collect(Collectors.toList());
    }

    /** For assertion messages: which file and everything node said. */
    String describe() {
        return wasm + " in V8:\n" + raw;
    }
}
