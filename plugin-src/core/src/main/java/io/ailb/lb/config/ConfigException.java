package io.ailb.lb.config;

/**
 * An invalid plugin configuration. The message is {@code <path>: <reason>}, or {@code <path>=<value>: <reason>} when
 * the offending value helps (numbers, booleans; never plain strings, which may be secrets), or just the reason when the
 * path is empty (the document itself).
 */
public final class ConfigException extends Exception {
    private final String path;
    private final String reason;

    public ConfigException(String path, String reason) {
        this(path, null, reason);
    }

    /** {@code value} is a short rendering of the offending value, or null. */
    public ConfigException(String path, String value, String reason) {
        super(message(path, value, reason));
        this.path = path;
        this.reason = reason;
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
