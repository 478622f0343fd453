package io.ailb.lb.policy;

import java.util.Objects;

/** An HTTP GET the shell should send to one upstream host and report back with {@code onScrapeResult}. */
public final class ScrapeRequest {
    private final String clusterName;
    private final String host;
    private final String path;
    private final int timeoutMillis;
    private final int maxBodyBytes;

    /** {@code maxBodyBytes}: a longer answer is a failed scrape, never parsed. */
    public ScrapeRequest(String clusterName, String host, String path, int timeoutMillis, int maxBodyBytes) {
        this.clusterName = Objects.requireNonNull(clusterName, "clusterName");
        this.host = Objects.requireNonNull(host, "host");
        this.path = Objects.requireNonNull(path, "path");
        this.timeoutMillis = timeoutMillis;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** The Envoy cluster the host was seen in. */
    public String clusterName() {
        return clusterName;
    }

    /** {@code ip:port}. */
    public String host() {
        return host;
    }

    public String path() {
        return path;
    }

    public int timeoutMillis() {
        return timeoutMillis;
    }

    /** The longest answer the policy reads. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof ScrapeRequest)) {
            return false;
        }
        ScrapeRequest that = (ScrapeRequest) other;
        return timeoutMillis == that.timeoutMillis
                && maxBodyBytes == that.maxBodyBytes
                && clusterName.equals(that.clusterName)
                && host.equals(that.host)
                && path.equals(that.path);
    }

    @Override
    public int hashCode() {
        return Objects.hash(clusterName, host, path, timeoutMillis, maxBodyBytes);
    }

    @Override
    public String toString() {
        return "GET http://" + host + path + " (" + clusterName + ", " + timeoutMillis + "ms)";
    }
}
