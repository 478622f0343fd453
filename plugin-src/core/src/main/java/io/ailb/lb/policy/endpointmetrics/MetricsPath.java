package io.ailb.lb.policy.endpointmetrics;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.StringField;

/** The path instances serve their Prometheus metrics on, for every policy that scrapes them. */
public final class MetricsPath {
    public static final StringField FIELD = StringField.optional(
            "metricsPath",
            "/metrics",
            "scraped by the plugin when Higress gives no metrics in the host info; must start with / and hold no "
                    + "spaces or control characters");

    private MetricsPath() {}

    /** The configured path; refused unless it can be sent as a request's :path as it is. */
    public static String read(ConfigView config) throws ConfigException {
        String path = FIELD.read(config);
        boolean plain = path.startsWith("/");
        for (int i = 0; i < path.length() && plain; i++) {
            char c = path.charAt(i);
            plain = c > ' ' && c != 0x7f;
        }
        if (!plain) {
            throw new ConfigException(
                    config.fieldPath(FIELD.name()), path, "must start with / and hold no spaces or control characters");
        }
        return path;
    }
}
