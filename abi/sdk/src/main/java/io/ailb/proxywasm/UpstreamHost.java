package io.ailb.proxywasm;

/** One host of the cluster the current route selected, as Higress reports it. */
public final class UpstreamHost {
    private final String address;
    private final String info;

    public UpstreamHost(String address, String info) {
        this.address = address;
        this.info = info;
    }

    /** {@code ip:port}. */
    public String address() {
        return address;
    }

    /** JSON text such as {@code {"health_status": "Healthy", "metrics": "..."}}; parse it, don't match it. */
    public String info() {
        return info;
    }

    @Override
    public String toString() {
        return address;
    }
}
