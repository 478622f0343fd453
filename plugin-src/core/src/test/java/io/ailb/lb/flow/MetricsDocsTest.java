package io.ailb.lb.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonValue;
import io.ailb.lb.policy.FallbackReason;
import io.ailb.lb.policy.PolicyRegistry;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's metric table and the Grafana dashboard name only metrics the plugin defines, and name them all. */
class MetricsDocsTest {
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    private static final Path README = ROOT.resolve("README.md");
    private static final Path DASHBOARD = ROOT.resolve("docs/grafana/ai-load-balancer.json");
    private static final Pattern PROMETHEUS_NAME = Pattern.compile("\\bailb_[a-z0-9_]+");
    /** A metric in the README's table: its first cell, in backquotes. */
    private static final Pattern TABLE_NAME = Pattern.compile("(?m)^\\| `(ailb\\.[^`]+)` \\|");

    /** Every Envoy name the plugin defines, with {@code <policy>}, {@code <reason>} and {@code <ip:port>} spelled out. */
    private static Set<String> envoyNames() throws IllegalAccessException {
        Set<String> names = new TreeSet<>();
        for (Field field : FlowMetrics.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                names.add((String) field.get(null));
            }
        }
        for (String policy : PolicyRegistry.names()) {
            names.add(FlowMetrics.routed(policy));
            names.add(FlowMetrics.rejected(policy));
        }
        for (FallbackReason reason : FallbackReason.values()) {
            names.add(FlowMetrics.fallback(reason));
        }
        return names;
    }

    private static Set<String> histograms() {
        return Set.of(FlowMetrics.DECISION_TIME_MS, FlowMetrics.REDIS_LATENCY_MS, FlowMetrics.PREFIX_MATCH_DEPTH);
    }

    /** What Prometheus shows (Envoy drops {@code wasmcustom.} and turns other characters into {@code _}). */
    private static String prometheus(String envoyName) {
        return envoyName.replaceAll("[^A-Za-z0-9_]", "_");
    }

    /** The queryable names: counters and gauges, histogram series, backend metrics with the host as a label. */
    private static Set<String> queryable() throws IllegalAccessException {
        Set<String> out = new TreeSet<>();
        for (String name : envoyNames()) {
            if (histograms().contains(name)) {
                for (String series : List.of("_bucket", "_sum", "_count")) {
                    out.add(prometheus(name) + series);
                }
            } else {
                out.add(prometheus(name));
            }
        }
        for (String kind : BackendMetrics.KINDS) {
            out.add("ailb_backend_" + kind);
        }
        return out;
    }

    private static List<String> dashboardQueries() throws IOException {
        JsonValue dashboard = Json.parse(Files.readAllBytes(DASHBOARD));
        List<String> queries = new ArrayList<>();
        for (JsonValue panel : dashboard.get("panels").elements()) {
            for (JsonValue target : panel.get("targets").elements()) {
                queries.add(target.get("expr").asString());
            }
        }
        return queries;
    }

    private static Set<String> namesIn(List<String> queries) {
        Set<String> names = new LinkedHashSet<>();
        for (String query : queries) {
            Matcher m = PROMETHEUS_NAME.matcher(query);
            while (m.find()) {
                names.add(m.group());
            }
        }
        return names;
    }

    @Test
    void everyMetricTheDashboardQueriesIsDefinedByThePlugin() throws Exception {
        List<String> queries = dashboardQueries();
        assertFalse(queries.isEmpty());
        Set<String> unknown = new TreeSet<>(namesIn(queries));
        unknown.removeAll(queryable());
        assertEquals(Set.of(), unknown, "queried by the dashboard, defined by nobody");
    }

    @Test
    void theDashboardShowsEveryFallbackReasonAndEveryPolicysRoutedRequests() throws Exception {
        Set<String> queried = namesIn(dashboardQueries());
        for (FallbackReason reason : FallbackReason.values()) {
            assertTrue(queried.contains(prometheus(FlowMetrics.fallback(reason))), reason.toString());
        }
        for (String policy : PolicyRegistry.names()) {
            assertTrue(queried.contains(prometheus(FlowMetrics.routed(policy))), policy);
        }
        for (String kind : BackendMetrics.KINDS) {
            assertTrue(queried.contains("ailb_backend_" + kind), kind);
        }
    }

    @Test
    void theReadmeTableListsEveryMetricAndNothingElse() throws Exception {
        Set<String> documented = new TreeSet<>();
        Matcher m = TABLE_NAME.matcher(Files.readString(README));
        while (m.find()) {
            documented.add(m.group(1));
        }
        Set<String> expected = new TreeSet<>();
        for (String name : envoyNames()) {
            if (name.startsWith("ailb.routed.")) {
                expected.add(FlowMetrics.routed("<policy>"));
            } else if (name.startsWith("ailb.rejected.")) {
                expected.add(FlowMetrics.rejected("<policy>"));
            } else if (name.startsWith("ailb.fallback.")) {
                expected.add("ailb.fallback.<reason>");
            } else {
                expected.add(name);
            }
        }
        for (String kind : BackendMetrics.KINDS) {
            expected.add(BackendMetrics.name("<ip:port>", kind));
        }
        assertEquals(expected, documented);
    }

    @Test
    void theReadmeNamesEveryFallbackReason() throws Exception {
        String readme = Files.readString(README);
        for (FallbackReason reason : FallbackReason.values()) {
            String name = FlowMetrics.fallback(reason).substring("ailb.fallback.".length());
            assertTrue(readme.contains("`" + name + "`"), name);
        }
    }
}
