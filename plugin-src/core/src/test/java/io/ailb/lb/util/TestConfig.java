package io.ailb.lb.util;

import io.ailb.codec.json.Json;
import io.ailb.lb.config.ConfigView;

/** Builds config views for tests from JSON text. */
public final class TestConfig {
    private TestConfig() {}

    /** {@code json} as the {@code lb_config} object. */
    public static ConfigView view(String json) {
        return ConfigView.of(Json.parse(json), "lb_config");
    }

    /** {@code json} as a whole plugin config (the document root). */
    public static ConfigView root(String json) {
        return ConfigView.root(Json.parse(json));
    }
}
