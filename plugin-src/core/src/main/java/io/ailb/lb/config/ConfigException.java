package io.ailb.lb.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An invalid plugin configuration. The message is {@code <path>: <reason>}, or {@code <path>=<value>: <reason>} when
 * the offending value helps (numbers, booleans; never plain strings, which may be secrets), or just the reason when the
 * path is empty (the document itself).
 */
public final class ConfigException extends Exception {
    private final String path;
    private final String reason;
    private final List<String> warnings;

    public ConfigException(String path, String reason) {
        this(path, null, reason);
    }

    /** {@code value} is a short rendering of the offending value, or null. */
    public ConfigException(String path, String value, String reason) {
        super(message(path, value, reason));
        this.path = path;
        this.reason = reason;
        this.warnings = Collections.emptyList();
    }

    private ConfigException(ConfigException refusal, List<String> warnings) {
        super(refusal.getMessage());
        this.path = refusal.path;
        this.reason = refusal.reason;
        this.warnings = Collections.unmodifiableList(warnings);
    }

    /**
     * The same refusal carrying the warnings found before it (e.g. a misspelt field behind a "required" error), so the
     * log can show the likely cause next to the refusal.
     */
    public ConfigException withWarnings(List<String> found) {
        return found.isEmpty() ? this : new ConfigException(this, new ArrayList<>(found));
    }

    public List<String> warnings() {
        return warnings;
    }

    public String path() {
        return path;
    }

    public String reason() {
        return reason;
    }

    private static String message(String path, String value, String reason) {
        if (path == null || path.isEmpty()) {
            return reason;
        }
        return value == null ? path + ": " + reason : path + "=" + value + ": " + reason;
    }
}
