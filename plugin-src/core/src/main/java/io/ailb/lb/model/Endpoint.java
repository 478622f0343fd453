package io.ailb.lb.model;

import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonException;
import io.ailb.codec.json.JsonValue;
import io.ailb.codec.util.Utf8;

/** One upstream host of the current cluster, as {@code proxy_get_upstream_hosts} reports it (B.7). Immutable. */
public final class Endpoint {
    private static final String HEALTHY = "Healthy";

    private final String address;
    private final boolean healthy;
    private final String metricsText;

    public Endpoint(String address, boolean healthy, String metricsText) {
        if (address == null) {
            throw new IllegalArgumentException("address is required");
        }
        this.address = address;
        this.healthy = healthy;
        this.metricsText = metricsText;
    }

    /**
     * Reads the host's info JSON (nlohmann {@code dump(0)} text: newlines between members). Healthy only when
     * {@code health_status} is exactly {@code "Healthy"}, as in Higress. Invalid or non-object JSON gives an unhealthy
     * endpoint without metrics instead of an exception: one bad host must not fail the request.
     */
    public static Endpoint fromHostInfo(String address, String infoJson) {
        if (infoJson == null) {
            return new Endpoint(address, false, null);
        }
        JsonValue info;
        try {
            info = Json.parse(Utf8.encode(infoJson));
        } catch (JsonException e) {
            return new Endpoint(address, false, null);
        }
        JsonValue status = info.get("health_status");
        JsonValue metrics = info.get("metrics");
        boolean healthy =
                status != null && status.isString() && status.asString().equals(HEALTHY);
        return new Endpoint(address, healthy, metrics != null && metrics.isString() ? metrics.asString() : null);
    }

    /** {@code ip:port}. */
    public String address() {
        return address;
    }

    public boolean healthy() {
        return healthy;
    }

    /** The Prometheus text of the {@code metrics} field, or null. */
    public String metricsText() {
        return metricsText;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Endpoint)) {
            return false;
        }
        Endpoint that = (Endpoint) other;
        return address.equals(that.address)
                && healthy == that.healthy
                && (metricsText == null ? that.metricsText == null : metricsText.equals(that.metricsText));
    }

    @Override
    public int hashCode() {
        return address.hashCode() * 31 + (healthy ? 1 : 0);
    }

    @Override
    public String toString() {
        return address + (healthy ? "(healthy)" : "(unhealthy)");
    }
}
