package io.ailb.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.MountableFile;

/**
 * The built module in Higress's all-in-one image, set up as higress-config/standalone/README.md says (its McpBridge,
 * Ingresses and WasmPlugin, with the containers' real addresses), plus one route per other policy; Redis and three
 * fake OpenAI backends on one Docker network; every policy through real HTTP. Needs a Docker engine and the images
 * (pulled on first run); without Docker, JUnit reports it skipped.
 */
@Testcontainers(disabledWithoutDocker = true)
class HigressAllInOneTest {
    private static final Path STANDALONE =
            Path.of("../../higress-config/standalone").toAbsolutePath().normalize();
    private static final String HIGRESS_IMAGE = System.getProperty(
            "ailb.e2e.higressImage", "higress-registry.cn-hangzhou.cr.aliyuncs.com/higress/all-in-one:latest");
    private static final String GATEWAY_LOG = "/var/log/higress/gateway.log";
    private static final int BACKEND_PORT = 8000;
    private static final Pattern README_ADDRESS = Pattern.compile("172\\.30\\.0\\.(\\d+)");
    /** selected_host in the ai_log field, whether or not the access-log encoder escaped its quotes. */
    private static final Pattern SELECTED_HOST = Pattern.compile("selected_host\\\\?\":\\\\?\"([^\"\\\\]+)");

    /** The policy routes beside standalone's own llm route (cache_aware): ingress name → plugin config. */
    private static final Map<String, String> POLICY_ROUTES = Map.of(
            "glr",
            "{lb_policy: global_least_request, lb_config: {serviceFQDN: redis.static, servicePort: 6379}}",
            "prefix",
            "{lb_policy: prefix_cache, lb_config: {serviceFQDN: redis.static, servicePort: 6379}}",
            "least",
            "{lb_policy: least_busy, lb_config: {metric_policy: least, target_metric: 'vllm:num_requests_running',"
                    + " metricsRefreshInterval: 200}}");

    private static final Network NETWORK = Network.newNetwork();

    @Container
    private static final GenericContainer<?> REDIS = new GenericContainer<>("redis:7-alpine")
            .withNetwork(NETWORK)
            .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*", 1));

    @Container
    private static final GenericContainer<?> LLM_1 = backend("llm-1");

    @Container
    private static final GenericContainer<?> LLM_2 = backend("llm-2");

    @Container
    private static final GenericContainer<?> LLM_3 = backend("llm-3");

    private static GenericContainer<?> higress;
    private static HttpGateway http;
    /** Backend name → its address as the plugin sees it (IP:port). */
    private static final Map<String, String> ADDRESSES = new TreeMap<>();

    private static GenericContainer<?> backend(String name) {
        return new GenericContainer<>("python:3.12-alpine")
                .withNetwork(NETWORK)
                .withEnv("BACKEND_NAME", name)
                .withCopyFileToContainer(
                        MountableFile.forHostPath(STANDALONE.resolve("fake-llm/fake_openai.py"), 0644),
                        "/app/fake_openai.py")
                .withCommand("python", "/app/fake_openai.py")
                .withExposedPorts(BACKEND_PORT)
                .waitingFor(Wait.forHttp("/health").forPort(BACKEND_PORT).forStatusCode(200));
    }

    /**
     * Starts Higress once the backends and Redis run: a static service needs their IP addresses, which Docker gives
     * only at start. The module is copied to where the README mounts it; the configuration is in /data before start.
     */
    @BeforeAll
    static void startHigress() throws IOException {
        Map<String, String> readmeToReal = new LinkedHashMap<>();
        readmeToReal.put("20", ip(REDIS));
        for (int i = 1; i <= 3; i++) {
            GenericContainer<?> llm = List.of(LLM_1, LLM_2, LLM_3).get(i - 1);
            readmeToReal.put("1" + i, ip(llm));
            ADDRESSES.put("llm-" + i, ip(llm) + ":" + BACKEND_PORT);
        }
        String mcpBridge = README_ADDRESS
                .matcher(Files.readString(STANDALONE.resolve("data/mcpbridges/default.yaml")))
                .replaceAll(m -> readmeToReal.get(m.group(1)));
        assertEquals(
                4, readmeToReal.values().stream().filter(mcpBridge::contains).count(), mcpBridge);

        GenericContainer<?> container = new GenericContainer<>(HIGRESS_IMAGE)
                .withNetwork(NETWORK)
                .withExposedPorts(8080)
                .withCopyFileToContainer(
                        MountableFile.forHostPath(module(), 0644), "/opt/plugins/ai-load-balancer.wasm")
                .withCopyToContainer(Transferable.of(mcpBridge), "/data/mcpbridges/default.yaml")
                .withCopyToContainer(Transferable.of(wasmPlugin()), "/data/wasmplugins/ai-load-balancer.yaml")
                // the llm route answers only once the controller, pilot and gateway all run with this configuration
                .waitingFor(Wait.forHttp("/v1/models")
                        .forPort(8080)
                        .forStatusCode(200)
                        .withStartupTimeout(Duration.ofMinutes(5)));
        for (String ingress : standaloneFiles("data/ingresses")) {
            container.withCopyToContainer(
                    Transferable.of(Files.readString(
                            STANDALONE.resolve("data/ingresses").resolve(ingress))),
                    "/data/ingresses/" + ingress);
        }
        for (String route : POLICY_ROUTES.keySet()) {
            container.withCopyToContainer(Transferable.of(policyIngress(route)), "/data/ingresses/" + route + ".yaml");
        }
        container.start();
        higress = container;
        http = new HttpGateway(higress.getHost(), higress.getMappedPort(8080));
        for (String host : List.of("", "glr", "prefix", "least")) {
            awaitPluginDecisions(host);
        }
    }

    @AfterAll
    static void stopHigress() {
        if (higress != null) {
            higress.stop();
        }
    }

    private static Path module() {
        String path = System.getProperty("ailb.wasm.ai-load-balancer");
        assertTrue(path != null && Files.isRegularFile(Path.of(path)), "the built module: " + path);
        return Path.of(path);
    }

    private static String ip(GenericContainer<?> container) {
        return container.getContainerInfo().getNetworkSettings().getNetworks().values().stream()
                .findFirst()
                .orElseThrow()
                .getIpAddress();
    }

    private static List<String> standaloneFiles(String folder) throws IOException {
        try (Stream<Path> files = Files.list(STANDALONE.resolve(folder))) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** standalone's WasmPlugin as it is (its llm rule), plus one rule per policy route. */
    private static String wasmPlugin() throws IOException {
        StringBuilder yaml =
                new StringBuilder(Files.readString(STANDALONE.resolve("data/wasmplugins/ai-load-balancer.yaml"))
                        .stripTrailing());
        yaml.append('\n');
        POLICY_ROUTES.forEach((route, config) -> yaml.append("  - ingress: [")
                .append(route)
                .append("]\n    config: ")
                .append(config)
                .append('\n'));
        return yaml.toString();
    }

    /** A route like standalone's llm route, on its own host so the test picks the policy with the Host header. */
    private static String policyIngress(String route) {
        return """
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata:
                  name: %1$s
                  namespace: higress-system
                  annotations:
                    higress.io/destination: llm.static:80
                spec:
                  ingressClassName: higress
                  rules:
                  - host: %1$s.ailb.test
                    http:
                      paths:
                      - path: /v1
                        pathType: Prefix
                        backend:
                          resource: {apiGroup: networking.higress.io, kind: McpBridge, name: default}
                """
                .formatted(route);
    }

    /** The plugin is configured a little after the route answers: waits for its first decision on that route. */
    private static void awaitPluginDecisions(String route) {
        long deadline = System.currentTimeMillis() + 120_000;
        while (true) {
            HttpGateway.Reply reply = http.chat(host(route), conversation("warm-up " + route), 0);
            if (decision(reply.requestId()) != null) {
                return;
            }
            assertTrue(System.currentTimeMillis() < deadline, "no plugin decision on route '" + route + "'");
            pause(1000);
        }
    }

    private static String host(String route) {
        return route.isEmpty() ? "localhost" : route + ".ailb.test";
    }

    /** The chosen host of one request in the gateway's access log, or null when it has none (yet). */
    private static String decision(String requestId) {
        long deadline = System.currentTimeMillis() + 5_000;
        while (true) {
            String line = accessLogLine(requestId);
            if (line != null) {
                Matcher host = SELECTED_HOST.matcher(line);
                return host.find() ? host.group(1) : null;
            }
            if (System.currentTimeMillis() > deadline) {
                return null;
            }
            pause(200);
        }
    }

    private static String accessLogLine(String requestId) {
        try {
            String log = higress.execInContainer("cat", GATEWAY_LOG).getStdout();
            return log.lines()
                    .filter(l -> l.contains("\"request_id\":\"" + requestId + "\""))
                    .findFirst()
                    .orElse(null);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String conversation(String... turns) {
        StringBuilder messages = new StringBuilder();
        for (int i = 0; i < turns.length; i++) {
            messages.append(i == 0 ? "" : ",")
                    .append("{\"role\":\"")
                    .append(i % 2 == 0 ? "user" : "assistant")
                    .append("\",\"content\":\"")
                    .append(turns[i])
                    .append("\"}");
        }
        return "{\"model\":\"fake\",\"messages\":[" + messages + "]}";
    }

    /** Sends one request; checks that the instance that answered is the one the plugin logged; returns its name. */
    private static String servedAndLogged(String route, String body) {
        HttpGateway.Reply reply = http.chat(host(route), body, 0);
        assertEquals(200, reply.status(), reply.body());
        assertEquals(ADDRESSES.get(reply.servedBy()), decision(reply.requestId()), accessLogLine(reply.requestId()));
        return reply.servedBy();
    }

    /** Each turn of a conversation extends the previous one: the prefix policies keep it on one instance. */
    private static Set<String> instancesOfAConversation(String route, String topic) {
        List<String> turns = new ArrayList<>();
        List<String> served = new ArrayList<>();
        for (int turn = 0; turn < 4; turn++) {
            turns.add(topic + " question " + turn + " " + "context ".repeat(200));
            String backend = servedAndLogged(route, conversation(turns.toArray(String[]::new)));
            served.add(backend);
            turns.add("served by " + backend);
        }
        return Set.copyOf(served);
    }

    @Test
    void cacheAwareOnTheStandaloneRouteKeepsAConversationOnOneInstance() {
        for (String topic : List.of("boats", "trains", "planes")) {
            assertEquals(1, instancesOfAConversation("", topic).size(), topic);
        }
    }

    @Test
    void prefixCacheKeepsAConversationOnOneInstance() {
        for (String topic : List.of("rivers", "mountains", "deserts")) {
            assertEquals(1, instancesOfAConversation("prefix", topic).size(), topic);
        }
    }

    /** Six requests held 3 s each arrive together: the shared in-flight counts spread them two per instance. */
    @Test
    void globalLeastRequestSpreadsConcurrentRequestsAndReleasesThem() throws Exception {
        List<CompletableFuture<HttpGateway.Reply>> replies = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String body = conversation("slow request " + i);
            replies.add(CompletableFuture.supplyAsync(() -> http.chat(host("glr"), body, 3000)));
            pause(100);
        }
        Map<String, Long> perBackend = new TreeMap<>();
        for (CompletableFuture<HttpGateway.Reply> reply : replies) {
            HttpGateway.Reply done = reply.get();
            assertEquals(200, done.status(), done.body());
            assertEquals(ADDRESSES.get(done.servedBy()), decision(done.requestId()));
            perBackend.merge(done.servedBy(), 1L, Long::sum);
        }
        assertEquals(Map.of("llm-1", 2L, "llm-2", 2L, "llm-3", 2L), perBackend);

        long deadline = System.currentTimeMillis() + 10_000;
        while (inflightTotal() != 0) {
            assertTrue(System.currentTimeMillis() < deadline, "in-flight counts not released: " + inflightTotal());
            pause(200);
        }
    }

    /** With one instance busy (its vLLM gauge says one request running), least_busy sends everything elsewhere. */
    @Test
    void leastBusyAvoidsTheInstanceItsMetricsShowBusy() throws Exception {
        CompletableFuture<HttpGateway.Reply> slow =
                CompletableFuture.supplyAsync(() -> http.chat(host("least"), conversation("long one"), 6000));
        pause(1500);
        List<String> others = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            others.add(servedAndLogged("least", conversation("short one " + i)));
        }
        HttpGateway.Reply busy = slow.get();
        assertEquals(200, busy.status(), busy.body());
        assertFalse(others.contains(busy.servedBy()), busy.servedBy() + " was busy, yet served " + others);
    }

    /** The sum of every in-flight count of every route in Redis. */
    private static long inflightTotal() throws IOException, InterruptedException {
        String keys = REDIS.execInContainer("redis-cli", "--scan", "--pattern", "*inflight")
                .getStdout();
        long total = 0;
        for (String key : keys.lines().filter(k -> !k.isBlank()).collect(Collectors.toList())) {
            for (String value : REDIS.execInContainer("redis-cli", "HVALS", key)
                    .getStdout()
                    .lines()
                    .toList()) {
                if (!value.isBlank()) {
                    total += Long.parseLong(value.trim());
                }
            }
        }
        return total;
    }
}
