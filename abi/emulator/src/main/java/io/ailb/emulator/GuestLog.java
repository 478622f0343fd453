package io.ailb.emulator;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/** Everything one VM's guest logged ({@code proxy_log}, WASI stdout and stderr), oldest first. */
final class GuestLog {
    private final List<LogLine> lines = new ArrayList<>();
    private final Consumer<LogLine> sink;
    private final int tailLines;

    /**
     * @param sink sees every line as it is written
     * @param tailLines how many of the last lines {@link #tail()} quotes
     */
    GuestLog(Consumer<LogLine> sink, int tailLines) {
        this.sink = sink;
        this.tailLines = tailLines;
    }

    void add(int level, String message) {
        LogLine line = new LogLine(level, message);
        lines.add(line);
        sink.accept(line);
    }

    List<LogLine> lines() {
        return List.copyOf(lines);
    }

    List<String> messages(int level) {
        return lines.stream()
                .filter(line -> line.level() == level)
                .map(LogLine::message)
                .collect(Collectors.toList());
    }

    int size() {
        return lines.size();
    }

    /** The message of the most severe line logged since line {@code from} (the last of equals), or null. */
    String mostSevereSince(int from) {
        LogLine worst = null;
        for (LogLine line : lines.subList(Math.min(from, lines.size()), lines.size())) {
            if (worst == null || line.level() >= worst.level()) {
                worst = line;
            }
        }
        return worst == null ? null : worst.message();
    }

    /** The last lines, for failure messages. */
    String tail() {
        int from = Math.max(0, lines.size() - tailLines);
        StringBuilder text = new StringBuilder("\nlast guest log lines:");
        if (from == lines.size()) {
            text.append(" (none)");
        }
        for (LogLine line : lines.subList(from, lines.size())) {
            text.append("\n  ").append(line);
        }
        return text.toString();
    }
}
