package io.ailb.emulator;

import java.util.regex.Pattern;

/** Property paths: callers write segments separated by '.', the ABI separates them with NUL. */
final class PropertyPath {
    private static final Pattern DOT = Pattern.compile("\\.");

    private PropertyPath() {}

    static String key(String dottedPath) {
        return String.join("\0", DOT.split(dottedPath, -1));
    }
}
