package io.ailb.lb.policy.clusterheader;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.StringField;

/** A request header name read from lb_config: an HTTP token, stored lower-case as Envoy keeps header names. */
public final class HeaderName {
    /** Higress's default since #3252 (the README said {@code x-envoy-target-cluster} before). */
    public static final StringField CLUSTER_HEADER = StringField.optional(
            "cluster_header",
            "x-higress-target-cluster",
            "lb_type cluster: the request header the chosen service is written to; the route must select its cluster "
                    + "by it (route.cluster_header)");

    private HeaderName() {}

    /** The field's value, lower-cased; refused unless it is a token (no ':' pseudo-header, no spaces). */
    public static String read(StringField field, ConfigView config) throws ConfigException {
        String name = field.read(config);
        if (name.isEmpty()) {
            throw new ConfigException(config.fieldPath(field.name()), "must not be empty");
        }
        return checked(field, config, name);
    }

    /** As {@link #read}, but an empty value is allowed and read as "" (the feature the header drives is off). */
    public static String readOrEmpty(StringField field, ConfigView config) throws ConfigException {
        return checked(field, config, field.read(config));
    }

    private static String checked(StringField field, ConfigView config, String name) throws ConfigException {
        for (int i = 0; i < name.length(); i++) {
            if (!isTokenChar(name.charAt(i))) {
                throw new ConfigException(
                        config.fieldPath(field.name()),
                        name,
                        "must be an HTTP header name: letters, digits and !#$%&'*+-.^_`|~ only");
            }
        }
        return name.toLowerCase();
    }

    private static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
