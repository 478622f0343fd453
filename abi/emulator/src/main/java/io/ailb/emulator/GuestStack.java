package io.ailb.emulator;

import com.dylibso.chicory.wasm.types.NameCustomSection;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The guest's call stack at a trap, read from the JVM frames of Chicory's compiled functions ({@code func_N}) and
 * named from the module's name section (TeaVM writes one with {@code BuildWasm --names true}).
 */
final class GuestStack {
    private static final Pattern COMPILED_FUNCTION = Pattern.compile("func_(\\d+)");
    private static final int MAX_FRAMES = 24;

    private GuestStack() {}

    /** Innermost first, e.g. {@code "GC_sweep < GC_collectGarbageImpl < proxy_on_request_body"}; empty if unknown. */
    static String describe(Throwable trap, NameCustomSection names) {
        List<String> frames = new ArrayList<>();
        for (Throwable t = trap; t != null && frames.isEmpty(); t = t.getCause()) {
            for (StackTraceElement element : t.getStackTrace()) {
                Matcher function = COMPILED_FUNCTION.matcher(element.getMethodName());
                if (!function.matches()) {
                    continue;
                }
                String frame = name(Integer.parseInt(function.group(1)), names);
                // Chicory's call_N trampolines repeat the function below them.
                if (frames.isEmpty() || !frames.get(frames.size() - 1).equals(frame)) {
                    frames.add(frame);
                }
            }
        }
        if (frames.size() > MAX_FRAMES) {
            int dropped = frames.size() - MAX_FRAMES;
            frames = new ArrayList<>(frames.subList(0, MAX_FRAMES));
            frames.add("… " + dropped + " more");
        }
        return String.join(" < ", frames);
    }

    private static String name(int index, NameCustomSection names) {
        String name = names == null ? null : names.nameOfFunction(index);
        return name == null ? "func " + index : name;
    }
}
