package io.ailb.proxywasm.testkit;

import io.ailb.codec.json.JsonWriter;
import io.ailb.proxywasm.UpstreamHost;

/**
 * Upstream hosts as Higress's {@code proxy_get_upstream_hosts} reports them: the address and an info JSON object with
 * {@code health_status} and {@code metrics} (the host's last Prometheus scrape), laid out one member per line as the
 * Higress Envoy fork prints it, so a guest that matches the text instead of parsing it is caught.
 */
public final class HigressHosts {
    private HigressHosts() {}

    /** A healthy host without metrics. */
    public static UpstreamHost healthy(String address) {
        return of(address, "Healthy", "");
    }

    public static UpstreamHost unhealthy(String address) {
        return of(address, "Unhealthy", "");
    }

    /** A healthy host with the Prometheus text Higress scraped from it. */
    public static UpstreamHost withMetrics(String address, String prometheusText) {
        return of(address, "Healthy", prometheusText);
    }

    public static UpstreamHost of(String address, String healthStatus, String metrics) {
        return new UpstreamHost(
                address, "{\n\"health_status\": " + quote(healthStatus) + ",\n\"metrics\": " + quote(metrics) + "\n}");
    }

    private static String quote(String text) {
        return new JsonWriter().value(text).toString();
    }
}
