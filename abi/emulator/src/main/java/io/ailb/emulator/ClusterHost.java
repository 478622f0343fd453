package io.ailb.emulator;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One host of an upstream cluster as {@code proxy_get_upstream_hosts} reports it: the address and an info JSON built
 * like the Higress Envoy fork does (nlohmann {@code dump(0)}: one member per line, keys sorted, {@code ": "}).
 */
public record ClusterHost(String address, String healthStatus, String metrics) {

    /** A healthy host without metrics. */
    public static ClusterHost healthy(String address) {
        return new ClusterHost(address, "Healthy", "");
    }

    /** {@code {\n"health_status": "Healthy",\n"metrics": "…"\n}}. */
    public String infoJson() {
        return "{\n\"health_status\": " + quote(healthStatus) + ",\n\"metrics\": " + quote(metrics) + "\n}";
    }

    private static String quote(String text) {
        try {
            return JSON.std.asString(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
