package io.ailb.emulator;

import java.util.regex.Pattern;

/** Property paths: callers write segments separated by '.', the ABI separates them with NUL. */
final class Properties {
    private static final Pattern DOT = Pattern.compile("\\.");

    private Properties() {
    }

    static String key(String dottedPath) {
        return String.join("\0", DOT.split(dottedPath, -1));
    }
}
