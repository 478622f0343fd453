package io.ailb.lb.config;

import io.ailb.lb.util.Decimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The {@code _match_*} selectors of one {@code _rules_} entry, as Higress's controller writes them (B.9).
 *
 * <p>Within one kind any entry may match; when a rule has several kinds, all of them must match. (wasm-go instead
 * picks one kind by priority and ignores the others, except route+service which it ANDs; ANDing every kind given is
 * the reading that never matches a request the rule's author excluded.) Domains compare case-insensitively, as
 * HTTP hosts do, with the authority's port removed.
 */
public final class RuleMatcher {
    public static final StringListField ROUTE =
            StringListField.optional("_match_route_", "route names, matched exactly");
    public static final StringListField DOMAIN = StringListField.optional(
            "_match_domain_",
            "domains: exact, *.suffix or prefix*, case-insensitive; the port of :authority is ignored");
    public static final StringListField SERVICE =
            StringListField.optional("_match_service_", "services: fqdn or fqdn:port");
    public static final StringListField ROUTE_PREFIX =
            StringListField.optional("_match_route_prefix_", "route name prefixes");
    /** The selectors Higress's controller writes into each {@code _rules_} entry. */
    public static final List<ConfigField> FIELDS = ConfigField.list(ROUTE, DOMAIN, SERVICE, ROUTE_PREFIX);

    private final List<String> routes;
    private final List<String> domains;
    private final List<String> services;
    private final List<String> routePrefixes;
    /** Parsed services: fqdn and port (0 = any port), parallel to {@link #services}. */
    private final String[] serviceHosts;

    private final int[] servicePorts;

    private RuleMatcher(
            List<String> routes,
            List<String> domains,
            List<String> services,
            List<String> routePrefixes,
            String[] serviceHosts,
            int[] servicePorts) {
        this.routes = routes;
        this.domains = domains;
        this.services = services;
        this.routePrefixes = routePrefixes;
        this.serviceHosts = serviceHosts;
        this.servicePorts = servicePorts;
    }

    static RuleMatcher parse(ConfigView rule) throws ConfigException {
        List<String> routes = ROUTE.read(rule);
        List<String> domains = DOMAIN.read(rule);
        List<String> services = SERVICE.read(rule);
        List<String> routePrefixes = ROUTE_PREFIX.read(rule);
        if (routes.isEmpty() && domains.isEmpty() && services.isEmpty() && routePrefixes.isEmpty()) {
            throw new ConfigException(
                    rule.path(),
                    "needs at least one of " + ROUTE.name() + ", " + DOMAIN.name() + ", " + SERVICE.name() + ", "
                            + ROUTE_PREFIX.name());
        }
        List<String> lowerDomains = new ArrayList<>(domains.size());
        for (String domain : domains) {
            lowerDomains.add(domain.toLowerCase(Locale.ROOT));
        }
        String[] hosts = new String[services.size()];
        int[] ports = new int[services.size()];
        for (int i = 0; i < services.size(); i++) {
            String service = services.get(i);
            int colon = service.lastIndexOf(':');
            hosts[i] = colon < 0 ? service : service.substring(0, colon);
            ports[i] = colon < 0 ? 0 : port(service.substring(colon + 1));
            if (hosts[i].isEmpty() || ports[i] < 0) {
                throw new ConfigException(
                        rule.fieldPath(SERVICE.name()) + "[" + i + "]",
                        service,
                        "must be fqdn or fqdn:port with a port in [1, 65535]");
            }
        }
        return new RuleMatcher(
                routes, Collections.unmodifiableList(lowerDomains), services, routePrefixes, hosts, ports);
    }

    /** Route names, matched exactly. */
    public List<String> routes() {
        return routes;
    }

    /** Domains (lower case): exact, {@code *suffix} or {@code prefix*}. */
    public List<String> domains() {
        return domains;
    }

    /** Services: {@code fqdn} or {@code fqdn:port}. */
    public List<String> services() {
        return services;
    }

    public List<String> routePrefixes() {
        return routePrefixes;
    }

    /** Whether a request matches; any argument may be null (unknown), which fails the matchers that need it. */
    public boolean matches(String routeName, String authority, String clusterName) {
        return (routes.isEmpty() || (routeName != null && routes.contains(routeName)))
                && (routePrefixes.isEmpty() || matchesRoutePrefix(routeName))
                && (domains.isEmpty() || matchesDomain(authority))
                && (services.isEmpty() || matchesService(clusterName));
    }

    private boolean matchesRoutePrefix(String routeName) {
        if (routeName == null) {
            return false;
        }
        for (String prefix : routePrefixes) {
            if (routeName.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private boolean matchesDomain(String authority) {
        if (authority == null) {
            return false;
        }
        String host = stripPort(authority).toLowerCase(Locale.ROOT);
        for (String domain : domains) {
            if (domain.startsWith("*")) {
                if (host.endsWith(domain.substring(1))) {
                    return true;
                }
            } else if (domain.endsWith("*")) {
                if (host.startsWith(domain.substring(0, domain.length() - 1))) {
                    return true;
                }
            } else if (host.equals(domain)) {
                return true;
            }
        }
        return false;
    }

    /** Cluster names look like {@code outbound|8080|subset|svc.ns.svc.cluster.local}. */
    private boolean matchesService(String clusterName) {
        if (clusterName == null) {
            return false;
        }
        // Exactly four '|'-separated fields: direction, port, subset, fqdn.
        int first = clusterName.indexOf('|');
        int second = first < 0 ? -1 : clusterName.indexOf('|', first + 1);
        int third = second < 0 ? -1 : clusterName.indexOf('|', second + 1);
        if (third < 0 || clusterName.indexOf('|', third + 1) >= 0) {
            return false;
        }
        int port = port(clusterName.substring(first + 1, second));
        String fqdn = clusterName.substring(third + 1);
        for (int i = 0; i < serviceHosts.length; i++) {
            if (serviceHosts[i].equals(fqdn) && (servicePorts[i] == 0 || servicePorts[i] == port)) {
                return true;
            }
        }
        return false;
    }

    /** Removes a trailing {@code :port}; keeps bracketed IPv6 literals intact and leaves bare IPv6 alone. */
    static String stripPort(String authority) {
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            return close < 0 ? authority : authority.substring(0, close + 1);
        }
        int colon = authority.indexOf(':');
        if (colon < 0 || authority.indexOf(':', colon + 1) >= 0) {
            return authority;
        }
        return authority.substring(0, colon);
    }

    /** A decimal port in [1, 65535], or -1. */
    private static int port(String text) {
        long value = Decimal.nonNegative(text, 5);
        return value >= 1 && value <= 65535 ? (int) value : -1;
    }
}
