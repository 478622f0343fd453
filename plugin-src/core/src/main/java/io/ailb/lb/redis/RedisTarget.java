package io.ailb.lb.redis;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.IntField;
import io.ailb.lb.config.StringField;
import java.util.List;
import java.util.Objects;

/**
 * A Redis service as Higress knows it. Equal targets share one {@code proxy_redis_init}, so the shell initialises each
 * distinct target once.
 */
public final class RedisTarget {
    private static final int MAX_DATABASE = 15;

    public static final StringField SERVICE_FQDN = StringField.required(
            "serviceFQDN", "the Redis service as Higress knows it, e.g. redis.static or redis.dns");
    public static final IntField SERVICE_PORT =
            IntField.required("servicePort", 1, 65535, "", "its port (for a static service: the McpBridge port)");
    public static final StringField USERNAME = StringField.optional("username", "", "Redis ACL user");
    public static final StringField PASSWORD = StringField.optional("password", "", "Redis password");
    public static final IntField TIMEOUT = IntField.optional(
            "timeout",
            3000,
            1,
            Integer.MAX_VALUE,
            "ms",
            "Redis operation timeout; past it the request is routed by the fallback");
    /**
     * Envoy's Redis client passes {@code ?db=N} on as SELECT N and the server decides; Redis has 16 databases unless
     * its {@code databases} setting says otherwise (Redis Cluster only database 0), and a bigger index fails every
     * call, so the default server's range is the accepted one.
     */
    public static final IntField DATABASE = IntField.optional(
            "database", 0, 0, MAX_DATABASE, "", "Redis logical database (Redis has 16 by default; Cluster only 0)");
    /** The lb_config fields {@link #fromConfig} reads. */
    public static final List<ConfigField> FIELDS =
            ConfigField.list(SERVICE_FQDN, SERVICE_PORT, USERNAME, PASSWORD, TIMEOUT, DATABASE);

    private final String serviceFqdn;
    private final int servicePort;
    private final String username;
    private final String password;
    private final int timeoutMillis;
    private final int database;

    public RedisTarget(
            String serviceFqdn, int servicePort, String username, String password, int timeoutMillis, int database) {
        this.serviceFqdn = Objects.requireNonNull(serviceFqdn, "serviceFqdn");
        this.servicePort = servicePort;
        this.username = username == null ? "" : username;
        this.password = password == null ? "" : password;
        this.timeoutMillis = timeoutMillis;
        this.database = database;
    }

    /** Reads the Higress fields {@code serviceFQDN, servicePort, username, password, timeout, database}. */
    public static RedisTarget fromConfig(ConfigView config) throws ConfigException {
        String fqdn = SERVICE_FQDN.read(config);
        int port = SERVICE_PORT.read(config);
        String username = USERNAME.read(config);
        String password = PASSWORD.read(config);
        int timeout = TIMEOUT.read(config);
        int database = DATABASE.read(config);
        return new RedisTarget(fqdn, port, username, password, timeout, database);
    }

    public String serviceFqdn() {
        return serviceFqdn;
    }

    public int servicePort() {
        return servicePort;
    }

    public String username() {
        return username;
    }

    public String password() {
        return password;
    }

    public int timeoutMillis() {
        return timeoutMillis;
    }

    public int database() {
        return database;
    }

    /** The Envoy cluster name {@code proxy_redis_init} takes, built like wasm-go's FQDNCluster plus {@code ?db=N}. */
    public String clusterName() {
        String name = "outbound|" + servicePort + "||" + serviceFqdn;
        return database == 0 ? name : name + "?db=" + database;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof RedisTarget)) {
            return false;
        }
        RedisTarget that = (RedisTarget) other;
        return servicePort == that.servicePort
                && timeoutMillis == that.timeoutMillis
                && database == that.database
                && serviceFqdn.equals(that.serviceFqdn)
                && username.equals(that.username)
                && password.equals(that.password);
    }

    @Override
    public int hashCode() {
        return Objects.hash(serviceFqdn, servicePort, username, password, timeoutMillis, database);
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return "RedisTarget{" + clusterName() + ", user=" + username + ", timeout=" + timeoutMillis + "ms}";
    }
}
