package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.ConfigurationRejectedException;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.LogLine;
import io.ailb.emulator.PluginVm;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.yaml.snakeyaml.Yaml;

/**
 * Every WasmPlugin in higress-config/ is accepted by the real .wasm, with its plugin config built the way Higress's
 * controller builds it; every configuration in broken-configs.yaml is refused with its one log line.
 */
class ConfigExamplesTest {
    private static final Path EXAMPLES =
            Path.of("../../higress-config").toAbsolutePath().normalize();
    private static final String REJECTED_PREFIX = "ai-load-balancer: invalid configuration, plugin not started: ";
    private static final String WARNING_PREFIX = "ai-load-balancer: configuration warning: ";
    private static final Path STANDALONE = EXAMPLES.resolve("standalone/data");
    private static final Path BUILT_MODULE =
            EXAMPLES.resolveSibling("plugin-src/shell/target/wasm/ai-load-balancer.wasm");

    @TestFactory
    Stream<DynamicTest> everyWasmPluginExampleIsAccepted() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(EXAMPLES)) {
            files = walk.filter(p -> p.toString().endsWith(".yaml"))
                    .filter(ConfigExamplesTest::isWasmPlugin)
                    .sorted()
                    .toList();
        }
        assertTrue(files.size() >= 5, "examples found: " + files);
        return files.stream()
                .map(file -> DynamicTest.dynamicTest(EXAMPLES.relativize(file).toString(), () -> {
                    String json = JSON.std.asString(pluginConfig(load(file)));
                    PluginVm vm = PluginFixture.gateway(json).build().startVm();
                    assertTrue(vm.isAlive());
                    assertTrue(
                            vm.logs().stream().anyMatch(l -> l.message().equals("ai-load-balancer: configured")),
                            vm.logs().toString());
                    assertEquals(List.of(), warnings(vm.logs()), "an example has nothing the plugin ignores");
                }));
    }

    /**
     * The EnvoyFilter shipped for lb_type cluster patches a route to select its cluster by the very header every
     * cluster example writes.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theClusterHeaderEnvoyFilterMatchesTheExamplesHeader() throws IOException {
        Map<String, Object> filter = load(EXAMPLES.resolve("cluster-metrics/envoyfilter.yaml"));
        assertEquals("EnvoyFilter", filter.get("kind"));
        Map<String, Object> patch =
                ((List<Map<String, Object>>) ((Map<String, Object>) filter.get("spec")).get("configPatches")).get(0);
        assertEquals("HTTP_ROUTE", patch.get("applyTo"));
        Map<String, Object> route = (Map<String, Object>)
                ((Map<String, Object>) ((Map<String, Object>) patch.get("patch")).get("value")).get("route");
        String header = (String) route.get("cluster_header");
        List<String> examples = new ArrayList<>();
        for (String example : List.of("cluster-metrics/wasmplugin.yaml", "cluster-hash/wasmplugin.yaml")) {
            Map<String, Object> config = pluginConfig(load(EXAMPLES.resolve(example)));
            for (Map<String, Object> rule : (List<Map<String, Object>>) config.get("_rules_")) {
                assertEquals("cluster", rule.get("lb_type"), example);
                Map<String, Object> lbConfig = (Map<String, Object>) rule.get("lb_config");
                assertEquals(header, lbConfig.getOrDefault("cluster_header", "x-higress-target-cluster"), example);
                examples.add(example);
            }
        }
        assertEquals(2, examples.size(), examples.toString());
    }

    @Test
    void typosAndAFallbackSwitchWithoutFallbackStartThePluginWithOneWarningEach() {
        PluginVm vm = PluginFixture.gateway("{\"lb_polcy\":\"x\",\"lb_policy\":\"least_busy\","
                        + "\"fallback_on_error\":true,\"lb_config\":{\"Rate_Limit\":0.5}}")
                .build()
                .startVm();

        assertTrue(vm.isAlive());
        assertEquals(
                List.of(
                        "lb_polcy: unknown field at the top level, ignored; closest known field: lb_policy",
                        "fallback_on_error=true: has no effect without fallback_policy; when lb_policy fails the "
                                + "service's own load balancer chooses",
                        "lb_config.Rate_Limit: unknown field in lb_config of least_busy, ignored; closest known "
                                + "field: rate_limit"),
                warnings(vm.logs()),
                vm.logs().toString());
    }

    /**
     * standalone/: every file is the object its folder holds and is named after; the plugin's Redis service is a
     * static service of the McpBridge with the same port, and some route references it, or Higress would never push
     * its cluster; a chat request on the llm route, with the McpBridge's instances and Redis cluster as Higress names
     * them, is routed by the policy itself to one of those instances.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theStandaloneSetupRoutesThroughItsOwnStaticServices() throws IOException {
        Map<String, Map<String, Object>> mcpBridges = standaloneObjects("mcpbridges", "McpBridge");
        Map<String, Map<String, Object>> ingresses = standaloneObjects("ingresses", "Ingress");
        Map<String, Map<String, Object>> wasmPlugins = standaloneObjects("wasmplugins", "WasmPlugin");
        assertEquals(
                List.of("default"), List.copyOf(mcpBridges.keySet()), "Higress reads only the McpBridge 'default'");
        Map<String, Map<String, Object>> registries = new LinkedHashMap<>();
        for (Map<String, Object> registry :
                (List<Map<String, Object>>) spec(mcpBridges.get("default")).get("registries")) {
            assertEquals("static", registry.get("type"));
            registries.put(registry.get("name") + ".static", registry);
        }
        List<String> destinations = ingresses.values().stream()
                .map(ingress -> ((Map<String, String>)
                                ((Map<String, Object>) ingress.get("metadata")).get("annotations"))
                        .get("higress.io/destination"))
                .toList();
        for (String destination : destinations) {
            assertTrue(registries.containsKey(destination.split(":")[0]), destination + " is not a static service");
        }

        Map<String, Object> plugin = wasmPlugins.get("ai-load-balancer");
        String url = (String) spec(plugin).get("url");
        assertEquals("file:///opt/plugins/ai-load-balancer.wasm", url, "README mounts wasm-out/ at /opt/plugins");
        // The README mounts wasm-out/, where `package` copies this build output; `mvn test` stops before that copy.
        assertTrue(Files.isRegularFile(BUILT_MODULE), "the module the README mounts: " + BUILT_MODULE);
        Map<String, Object> rule =
                ((List<Map<String, Object>>) pluginConfig(plugin).get("_rules_")).get(0);
        Map<String, Object> lbConfig = (Map<String, Object>) rule.get("lb_config");
        String redisService = (String) lbConfig.get("serviceFQDN");
        Object redisPort = lbConfig.get("servicePort");
        assertTrue(registries.containsKey(redisService), redisService + " is not a static service");
        assertEquals(registries.get(redisService).get("port"), redisPort, "servicePort must be the McpBridge port");
        assertTrue(destinations.contains(redisService + ":" + redisPort), "no route references " + redisService);

        String route = ((List<String>) rule.get("_match_route_")).get(0);
        assertTrue(ingresses.containsKey(route), "the plugin's route " + route + " is an Ingress here");
        String llmService = destinations.get(List.copyOf(ingresses.keySet()).indexOf(route));
        Map<String, Object> llm = registries.get(llmService.split(":")[0]);
        List<String> instances = Arrays.asList(((String) llm.get("domain")).split(","));
        String llmCluster = "outbound|" + llm.get("port") + "||" + llm.get("name") + ".static";
        Gateway gateway = Gateway.builder(PluginFixture.plugin())
                .withPluginConfig(JSON.std.asString(pluginConfig(plugin)))
                .withRedisCluster(
                        "outbound|" + redisPort + "||" + redisService,
                        PluginFixture.redis().endpoint())
                .withUpstreamHosts(
                        llmCluster, instances.stream().map(ClusterHost::healthy).toList())
                .build();
        HttpStream stream =
                gateway.startVm().newHttpStream().withRouteName(route).withClusterName(llmCluster);
        stream.sendRequestHeaders(
                HeaderMap.of(":method", "POST", ":path", "/v1/chat/completions", "content-type", "application/json"),
                false);
        stream.sendRequestBody("{\"model\":\"fake\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}", true);

        String chosen = stream.upstreamOverride().orElseThrow();
        assertTrue(instances.contains(chosen), chosen + " not in " + instances);
        String accessLog = stream.property("ai_log").orElseThrow();
        assertTrue(accessLog.contains("\"selected_host\":\"" + chosen + "\""), accessLog);
        assertFalse(accessLog.contains("fallback"), accessLog);
        stream.complete();
    }

    /** The objects of one standalone/data folder by name, each checked to be of that folder's kind and file name. */
    private static Map<String, Map<String, Object>> standaloneObjects(String folder, String kind) throws IOException {
        Map<String, Map<String, Object>> objects = new LinkedHashMap<>();
        List<Path> files;
        try (Stream<Path> list = Files.list(STANDALONE.resolve(folder))) {
            files = list.sorted().toList();
        }
        for (Path file : files) {
            Map<String, Object> object = load(file);
            assertEquals(kind, object.get("kind"), file.toString());
            @SuppressWarnings("unchecked")
            Map<String, Object> metadata = (Map<String, Object>) object.get("metadata");
            String name = (String) metadata.get("name");
            assertEquals(name + ".yaml", file.getFileName().toString(), "Higress names the object after its file");
            assertEquals("higress-system", metadata.get("namespace"), file.toString());
            objects.put(name, object);
        }
        assertFalse(objects.isEmpty(), folder);
        return objects;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(Map<String, Object> object) {
        return (Map<String, Object>) object.get("spec");
    }

    private static List<String> warnings(List<LogLine> logs) {
        return logs.stream()
                .map(LogLine::message)
                .filter(m -> m.startsWith(WARNING_PREFIX))
                .map(m -> m.substring(WARNING_PREFIX.length()))
                .toList();
    }

    @TestFactory
    Stream<DynamicTest> everyBrokenConfigIsRefusedWithItsMessage() throws IOException {
        List<Map<String, Object>> cases;
        try (Reader reader = Files.newBufferedReader(EXAMPLES.resolve("broken-configs.yaml"))) {
            cases = new Yaml().load(reader);
        }
        assertFalse(cases.isEmpty());
        return cases.stream()
                .map(c -> DynamicTest.dynamicTest((String) c.get("name"), () -> {
                    List<LogLine> logs = new ArrayList<>();
                    Gateway gateway = PluginFixture.gateway(JSON.std.asString(c.get("config")))
                            .withLogSink(logs::add)
                            .build();

                    ConfigurationRejectedException refused =
                            assertThrows(ConfigurationRejectedException.class, gateway::startVm);
                    assertEquals(
                            REJECTED_PREFIX + c.get("error"),
                            refused.reason().orElseThrow(),
                            "the exception quotes the refusal line");

                    List<String> errors = logs.stream()
                            .map(LogLine::message)
                            .filter(m -> m.startsWith(REJECTED_PREFIX))
                            .toList();
                    assertEquals(List.of(REJECTED_PREFIX + c.get("error")), errors, "log: " + logs);
                }));
    }

    private static boolean isWasmPlugin(Path file) {
        try {
            return "WasmPlugin".equals(load(file).get("kind"));
        } catch (IOException | ClassCastException e) {
            return false;
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> load(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file)) {
            return new Yaml().load(reader);
        }
    }

    /** spec.defaultConfig plus spec.matchRules as Higress's controller turns them into {@code _rules_}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> pluginConfig(Map<String, Object> wasmPlugin) {
        Map<String, Object> spec = (Map<String, Object>) wasmPlugin.get("spec");
        Map<String, Object> config = new LinkedHashMap<>();
        if (spec.get("defaultConfig") != null && !Boolean.TRUE.equals(spec.get("defaultConfigDisable"))) {
            config.putAll((Map<String, Object>) spec.get("defaultConfig"));
        }
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> match : (List<Map<String, Object>>) spec.getOrDefault("matchRules", List.of())) {
            if (Boolean.TRUE.equals(match.get("configDisable"))) {
                continue;
            }
            Map<String, Object> rule = new LinkedHashMap<>((Map<String, Object>) match.get("config"));
            putIfPresent(rule, "_match_route_", match.get("ingress"));
            putIfPresent(rule, "_match_domain_", match.get("domain"));
            putIfPresent(rule, "_match_service_", match.get("service"));
            rules.add(rule);
        }
        if (!rules.isEmpty()) {
            config.put("_rules_", rules);
        }
        return config;
    }

    private static void putIfPresent(Map<String, Object> rule, String key, Object values) {
        if (values != null) {
            rule.put(key, values);
        }
    }
}
