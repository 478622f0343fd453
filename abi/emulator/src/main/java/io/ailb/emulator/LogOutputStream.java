package io.ailb.emulator;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** WASI stdout/stderr: each complete line becomes a log line, as Envoy logs a module's output. */
final class LogOutputStream extends java.io.OutputStream {
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final Consumer<String> sink;

    LogOutputStream(Consumer<String> sink) {
        this.sink = sink;
    }

    @Override
    public void write(int b) {
        if (b == '\n') {
            flush();
        } else {
            line.write(b);
        }
    }

    @Override
    public void flush() {
        if (line.size() > 0) {
            sink.accept(line.toString(StandardCharsets.UTF_8));
            line.reset();
        }
    }
}
