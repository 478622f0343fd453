package io.ailb.sim.bench;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.emulator.LocalRedis;
import io.ailb.emulator.WasmArtifacts;
import io.ailb.sim.report.BenchmarksDoc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * Guest time per request of every policy on V8, the engine Envoy runs Wasm plugins on by default: the real .wasm in
 * Node through whole requests ({@code v8-host.js}, our proxy-wasm host) against a real Redis, at body sizes from 1 KiB
 * to 4 MiB in three chat shapes. Prints a table and writes section {@code v8-cost} of docs/benchmarks.md, with the Go
 * plugin's reference figures from issue 9. With {@code --profile NAMED.wasm} it profiles one case with V8's sampling
 * profiler instead and writes section {@code v8-profile}.
 *
 * <p>{@code mvn -q -pl simulator compile exec:java@v8-cost} (options: {@code -Dexec.args="--help"}).
 */
public final class V8CostBench {
    static final String COMMAND = "mvn -q -pl simulator compile exec:java@v8-cost";
    static final int[] DEFAULT_SIZES = {1 << 10, 2 << 10, 32 << 10, 256 << 10, 1 << 20, 4 << 20};
    /** cache_aware deciding in the VM (index local): no Redis round trip, the index in guest memory. */
    static final String CACHE_AWARE_LOCAL_CONFIG =
            "{\"lb_policy\":\"cache_aware\",\"lb_config\":{\"index\":\"local\"}}";
    /**
     * Every policy, as PolicyCase configures them for the emulator's benchmark, and cache_aware's local index, alone
     * and on two VMs pooling their indexes (each decision then reads and writes the counts in shared data).
     */
    static final List<V8Host.Policy> POLICIES = List.of(
            policy(PolicyCase.LEAST_BUSY),
            policy(PolicyCase.GLOBAL_LEAST_REQUEST),
            policy(PolicyCase.PREFIX_CACHE),
            policy(PolicyCase.CACHE_AWARE),
            new V8Host.Policy("cache_aware+local", CACHE_AWARE_LOCAL_CONFIG),
            new V8Host.Policy("cache_aware+local+2vms", CACHE_AWARE_LOCAL_CONFIG, 2));
    /** Envoy's default level for Wasm plugin logs: the guest's debug lines are not built. */
    static final int LOG_LEVEL_INFO = 2;

    private static final int BODY_SEED = 7;
    private static final String PROFILE_POLICY = "prefix_cache";
    private static final int PROFILE_SIZE = 256 << 10;
    private static final int PROFILE_INTERVAL_MICROS = 100;
    private static final int PROFILE_TOP = 10;
    /** Where the profile's module with a name section is built: a copy, the shipped build stays as it is. */
    static final String NAMED_WASM = "simulator/target/v8-cost/ai-load-balancer-names.wasm";

    static final String NAMED_BUILD = "mvn -B -q -pl plugin-src/shell -am -DskipTests package"
            + " dependency:build-classpath -Dmdep.includeScope=compile"
            + " -Dmdep.outputFile=$PWD/simulator/target/v8-cost/shell-cp.txt\n"
            + "java -cp plugin-src/shell/target/classes:$(cat simulator/target/v8-cost/shell-cp.txt)"
            + " io.ailb.teavm.BuildWasm --main io.ailb.lb.shell.AiLoadBalancerPlugin"
            + " --spec abi/spec/proxy-wasm-abi.json --opt ADVANCED --names true --out " + NAMED_WASM;

    /**
     * The Go plugin's guest time per request on V8 (ms), quoted from issue 9: Higress ai-load-balancer 2.0.1, real
     * Redis, conversation bodies; measured outside this repository, drift about 2x between runs.
     */
    static final Map<String, Map<Integer, Double>> GO_REFERENCE_MILLIS = Map.of(
            "prefix_cache", Map.of(2 << 10, 1.0, 32 << 10, 1.2, 256 << 10, 4.0),
            "global_least_request", Map.of(2 << 10, 0.5, 32 << 10, 0.5, 256 << 10, 1.1));

    /** The body shapes. */
    enum Shape {
        CONVERSATION(
                "conversation",
                "a system prompt and 5 user / 4 assistant turns (10 messages) whose text grows"
                        + " with the body (the shape of issue 9's Go figures; `ConversationBodies`)",
                size -> ConversationBodies.conversation(size, BODY_SEED)),
        MANY_MESSAGES(
                "many-messages",
                "a system prompt and alternating turns of ≈ size/8, at most 1 KiB of text"
                        + " each, so ≈ size/1 KiB messages (`ChatBodies`, the plugin-cost section's bodies)",
                size -> ChatBodies.chat(size, BODY_SEED)),
        AGENT(
                "agent",
                "an OpenAI function-calling agent: a task, tool calls (`tool_calls`, null content) and tool results"
                        + " of ≈ size/8, at most 1 KiB each, and tool definitions of a quarter of the body in `tools`"
                        + " after the messages, where the parser reads the first messages again and re-chains the rest"
                        + " (`ChatBodies.agent`)",
                size -> ChatBodies.agent(size, BODY_SEED));

        final String label;
        final String description;
        final IntFunction<byte[]> generator;

        Shape(String label, String description, IntFunction<byte[]> generator) {
            this.label = label;
            this.description = description;
            this.generator = generator;
        }

        static Shape byLabel(String label) {
            for (Shape shape : values()) {
                if (shape.label.equals(label)) {
                    return shape;
                }
            }
            throw new IllegalArgumentException("unknown body shape " + label);
        }
    }

    /** Command-line options. */
    static final class Options extends V8BenchOptions {
        List<Shape> shapes = List.of(Shape.values());
        List<V8Host.Policy> policies = POLICIES;
        Path profileWasm;

        Options() {
            super(DEFAULT_SIZES, COMMAND, "v8-cost");
            warmUpSeconds = 5;
            measureSeconds = 5;
            minSamples = 10;
            hangSeconds = 300;
        }

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--shapes" -> o.shapes =
                            Arrays.stream(value.split(",")).map(Shape::byLabel).toList();
                    case "--policies" -> o.policies = Arrays.stream(value.split(","))
                            .map(V8CostBench::policyNamed)
                            .toList();
                    case "--profile" -> o.profileWasm = Path.of(value);
                    case "--quick" -> {
                        o.quick = true;
                        o.warmUpSeconds = 0.5;
                        o.warmUpMax = 200;
                        o.measureSeconds = 0.5;
                        o.maxSamples = 200;
                        o.minSamples = 3;
                        i--;
                    }
                    default -> {
                        if (!o.readV8(args[i], value)) {
                            usage();
                            System.exit(args[i].equals("--help") ? 0 : 2);
                        }
                    }
                }
                i++;
            }
            if (o.wasm == null) {
                o.wasm = WasmArtifacts.path("ai-load-balancer");
            }
            return o;
        }

        private static void usage() {
            System.err.println("usage: V8CostBench [--quick] [--wasm path] [--doc path|-] [--node executable]"
                    + " [--sizes 1k,2k,...] [--shapes conversation,many-messages,agent] [--policies least_busy,...]"
                    + " [--warmup-seconds s] [--warmup-max n] [--measure-seconds s] [--max-samples n]"
                    + " [--min-samples n] [--hang-seconds s] [--work-dir path] [--profile named.wasm]\n"
                    + "  --quick    short run (≤ 0.5 s warm-up and ≤ 0.5 s / 200 samples per cell); prints the"
                    + " table and leaves docs/benchmarks.md alone unless --doc is given\n"
                    + "  --profile  instead of the table: V8's CPU profile of prefix_cache on the 256 KiB"
                    + " conversation body with a module built with --names true; writes section v8-profile");
        }
    }

    /** One table row: a policy on one body; {@code cell} is null when the run failed before reaching the body. */
    record Row(String policy, V8Host.Body body, V8Host.Cell cell, String failure) {}

    /** A trap and the policy whose run it happened in. */
    record PolicyTrap(String policy, V8Host.Trap trap) {}

    private V8CostBench() {}

    static V8Host.Policy policy(PolicyCase policy) {
        return new V8Host.Policy(policy.policyName, policy.configJson);
    }

    static V8Host.Policy policyNamed(String name) {
        return POLICIES.stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown policy " + name));
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        V8Host node = options.nodeOrExit("V8CostBench");
        Path wasm = options.profileWasm != null ? options.profileWasm : options.wasm;
        if (!Files.isRegularFile(wasm)) {
            System.err.println(wasm.toAbsolutePath() + " is missing: "
                    + (options.profileWasm != null
                            ? "build the named module first (see --help)"
                            : "build the plugin first (mvn -B -q -DskipTests package)"));
            System.exit(1);
        }
        int status = options.profileWasm != null ? profile(options, node) : table(options, node);
        System.exit(status);
    }

    // ---- the table --------------------------------------------------------------------------------------------------

    private static int table(Options options, V8Host node) throws Exception {
        Files.createDirectories(options.workDir);
        Path bodyDir = Files.createTempDirectory(options.workDir, "bodies");
        List<Row> rows = new ArrayList<>();
        List<PolicyTrap> traps = new ArrayList<>();
        V8Host.Report engine = null;
        try {
            List<V8Host.Body> bodies = writeBodies(options, bodyDir);
            try (LocalRedis redis = LocalRedis.start()) {
                for (V8Host.Policy policy : options.policies) {
                    V8Host.Run run = new V8Host.Run(
                            options.wasm,
                            policy,
                            redis.endpoint(),
                            true,
                            options.limits(),
                            LOG_LEVEL_INFO,
                            false,
                            List.of(),
                            options.hangSeconds);
                    System.out.println("== " + policy.name());
                    V8Host.Report report =
                            node.run(run, bodies, options.workDir, line -> progress(policy.name(), line, bodies));
                    if (engine == null && report.moduleBytes() >= 0) {
                        engine = report;
                    }
                    collect(policy.name(), bodies, report, rows);
                    report.traps().forEach(trap -> traps.add(new PolicyTrap(policy.name(), trap)));
                }
            }
        } finally {
            deleteTree(bodyDir);
        }
        String markdown = markdown(options, node, engine, rows, traps);
        System.out.println();
        System.out.println(markdown);
        Path target = options.target();
        if (!target.toString().equals("-")) {
            BenchmarksDoc.replaceSection(target, "v8-cost", markdown);
            System.out.println(
                    "wrote section v8-cost of " + target.toAbsolutePath().normalize());
        }
        return rows.stream().anyMatch(r -> r.failure() != null) ? 1 : 0;
    }

    private static List<V8Host.Body> writeBodies(Options options, Path dir) throws IOException {
        List<V8Host.Body> bodies = new ArrayList<>();
        for (Shape shape : options.shapes) {
            for (int size : options.sizes) {
                byte[] bytes = shape.generator.apply(size);
                Path file = dir.resolve(shape.label + "-" + size + ".json");
                Files.write(file, bytes);
                bodies.add(new V8Host.Body(shape.label, size, ChatBodies.messageCount(bytes), file));
            }
        }
        return bodies;
    }

    private static void collect(String policy, List<V8Host.Body> bodies, V8Host.Report report, List<Row> rows) {
        for (V8Host.Body body : bodies) {
            V8Host.Cell cell = report.cells().stream()
                    .filter(c -> c.shape().equals(body.shape()) && c.bytes() == body.bytes())
                    .findFirst()
                    .orElse(null);
            String failure = null;
            if (cell == null) {
                failure = report.failure() == null
                        ? "not reported"
                        : (body.shape() + " " + body.bytes() + " bytes").equals(report.lastBody())
                                ? "run failed here: " + report.failure()
                                : "not run: the run failed earlier";
            }
            rows.add(new Row(policy, body, cell, failure));
        }
        if (report.failure() != null) {
            System.out.println("node run of " + policy + " failed: " + report.failure());
        }
    }

    private static void progress(String policy, String line, List<V8Host.Body> bodies) {
        if (line.startsWith("cell\t")) {
            V8Host.Cell cell = V8Host.cell(line);
            int messages = bodies.stream()
                    .filter(b -> b.shape().equals(cell.shape()) && b.bytes() == cell.bytes())
                    .mapToInt(V8Host.Body::messages)
                    .findFirst()
                    .orElse(-1);
            System.out.printf(
                    Locale.ROOT,
                    "%-21s %-13s %8s %5d msgs  guest median %10s  p90 %10s  wall %10s"
                            + "  cpu %10s  n=%d  routed %d/%d  traps %d  %s%n",
                    policy,
                    cell.shape(),
                    PluginCostBench.sizeName(cell.bytes()),
                    messages,
                    Samples.micros(cell.medianNs()),
                    Samples.micros(cell.p90Ns()),
                    Samples.micros(cell.wallMedianNs()),
                    Samples.micros(cell.cpuMedianNs()),
                    cell.samples(),
                    cell.routed(),
                    cell.requests(),
                    cell.traps(),
                    cell.status());
        } else if (line.startsWith("trap\t") || line.startsWith("error\t")) {
            System.out.println("  " + line.replace('\t', ' '));
        }
    }

    // ---- the profile ------------------------------------------------------------------------------------------------

    /** Self and total (inclusive) milliseconds per function name in a {@code .cpuprofile}, and which are guest code. */
    record FunctionTimes(Map<String, Double> self, Map<String, Double> total, Set<String> guest) {
        double self(String name) {
            return self.getOrDefault(name, 0.0);
        }

        double guestSelf() {
            return self.entrySet().stream()
                    .filter(e -> guest.contains(e.getKey()))
                    .mapToDouble(Map.Entry::getValue)
                    .sum();
        }
    }

    private static int profile(Options options, V8Host node) throws Exception {
        Path dir = options.workDir.resolve("profile");
        Files.createDirectories(dir);
        try (Stream<Path> old = Files.list(dir)) {
            for (Path file :
                    old.filter(p -> p.toString().endsWith(".cpuprofile")).toList()) {
                Files.delete(file);
            }
        }
        Path bodyDir = Files.createTempDirectory(options.workDir, "bodies");
        V8Host.Report report;
        V8Host.Body body;
        try {
            byte[] bytes = Shape.CONVERSATION.generator.apply(PROFILE_SIZE);
            Path file = bodyDir.resolve("conversation-" + PROFILE_SIZE + ".json");
            Files.write(file, bytes);
            body = new V8Host.Body(Shape.CONVERSATION.label, PROFILE_SIZE, ChatBodies.messageCount(bytes), file);
            List<String> flags = List.of(
                    "--cpu-prof",
                    "--cpu-prof-dir=" + dir.toAbsolutePath(),
                    "--cpu-prof-interval=" + PROFILE_INTERVAL_MICROS);
            // Most samples should be steady-state code: a short warm-up, then many timed requests.
            V8Host.Limits limits = new V8Host.Limits(2, 3, 200, options.quick ? 2 : 20, 20, 1000);
            try (LocalRedis redis = LocalRedis.start()) {
                V8Host.Run run = new V8Host.Run(
                        options.profileWasm,
                        policyNamed(PROFILE_POLICY),
                        redis.endpoint(),
                        true,
                        limits,
                        LOG_LEVEL_INFO,
                        false,
                        flags,
                        options.hangSeconds);
                report = node.run(run, List.of(body), dir, line -> progress(PROFILE_POLICY, line, List.of(body)));
            }
        } finally {
            deleteTree(bodyDir);
        }
        if (report.failure() != null || report.cells().isEmpty()) {
            System.err.println("profile run failed: " + report.failure());
            return 1;
        }
        Path profileFile;
        try (Stream<Path> files = Files.list(dir)) {
            profileFile = files.filter(p -> p.toString().endsWith(".cpuprofile"))
                    .findFirst()
                    .orElseThrow(() -> new IOException("node wrote no .cpuprofile into " + dir));
        }
        String markdown = profileMarkdown(options, report, body, profileFile);
        System.out.println();
        System.out.println(markdown);
        Path target = options.target();
        if (!target.toString().equals("-")) {
            BenchmarksDoc.replaceSection(target, "v8-profile", markdown);
            System.out.println(
                    "wrote section v8-profile of " + target.toAbsolutePath().normalize());
        }
        return 0;
    }

    /**
     * Reads V8's {@code .cpuprofile}: a sample lasts until the next one; its time is the self time of the function it
     * hit and counts once towards the total of every function on that stack. Guest functions come from a
     * {@code wasm://} script.
     */
    static FunctionTimes functionTimes(Path profileFile) throws IOException {
        Map<String, Object> profile = JSON.std.mapFrom(Files.readString(profileFile));
        Map<Integer, String> names = new HashMap<>();
        Map<Integer, Integer> parents = new HashMap<>();
        Set<String> guest = new HashSet<>();
        for (Object item : (List<?>) profile.get("nodes")) {
            Map<?, ?> node = (Map<?, ?>) item;
            Map<?, ?> frame = (Map<?, ?>) node.get("callFrame");
            int id = ((Number) node.get("id")).intValue();
            String name = String.valueOf(frame.get("functionName"));
            boolean wasm = String.valueOf(frame.get("url")).startsWith("wasm://");
            name = name.isEmpty() ? "(anonymous " + (wasm ? "wasm" : "js") + ")" : name;
            names.put(id, name);
            if (wasm) {
                guest.add(name);
            }
            Object children = node.get("children");
            if (children != null) {
                for (Object child : (List<?>) children) {
                    parents.put(((Number) child).intValue(), id);
                }
            }
        }
        List<?> samples = (List<?>) profile.get("samples");
        List<?> deltas = (List<?>) profile.get("timeDeltas");
        Map<String, Double> self = new HashMap<>();
        Map<String, Double> total = new HashMap<>();
        for (int i = 0; i < samples.size(); i++) {
            double millis = i + 1 < deltas.size() ? ((Number) deltas.get(i + 1)).doubleValue() / 1000 : 0;
            Integer node = ((Number) samples.get(i)).intValue();
            self.merge(names.get(node), millis, Double::sum);
            Set<String> onStack = new HashSet<>();
            for (; node != null; node = parents.get(node)) {
                if (onStack.add(names.get(node))) {
                    total.merge(names.get(node), millis, Double::sum);
                }
            }
        }
        return new FunctionTimes(self, total, guest);
    }

    private static String profileMarkdown(Options options, V8Host.Report report, V8Host.Body body, Path profileFile)
            throws IOException {
        FunctionTimes times = functionTimes(profileFile);
        double sampled =
                times.self().values().stream().mapToDouble(Double::doubleValue).sum();
        double guestSelf = times.guestSelf();
        Comparator<String> bySelfTime = Comparator.comparingDouble(times::self);
        List<String> top = times.guest().stream()
                .sorted(bySelfTime.reversed())
                .limit(PROFILE_TOP)
                .toList();
        V8Host.Cell cell = report.cells().get(0);
        int requests = cell.warmUp() + cell.requests();
        StringBuilder md = new StringBuilder();
        md.append("### Where the guest's time goes: V8 CPU profile, prefix_cache, ")
                .append(PluginCostBench.sizeName(body.bytes()))
                .append(" conversation body\n\n");
        md.append("Commands: build a copy of the plugin with a name section (the shipped build plus `--names true`),"
                + " then profile it:\n\n");
        md.append("```bash\n")
                .append(NAMED_BUILD)
                .append('\n')
                .append(options.commandLine)
                .append(" -Dexec.args=\"--profile ")
                .append(NAMED_WASM)
                .append("\"\n```\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Node %s (V8 %s), `--cpu-prof --cpu-prof-interval=%d` (µs) over the"
                        + " whole process: %d requests (%d warm-up, %d timed; guest median %s with the named module"
                        + " and the profiler on). Of %.0f ms sampled, guest (Wasm) functions ran %.0f ms (%.0f %%),"
                        + " V8's own GC %.0f ms, idle (waiting for Redis) %.0f ms, the rest is host JavaScript and"
                        + " Node. The %d guest functions with the most self time (TeaVM names: `meth_` + abbreviated"
                        + " package + class + method; **total** includes the functions they call; per request = self"
                        + " time / requests):\n\n",
                report.nodeVersion(),
                report.v8Version(),
                PROFILE_INTERVAL_MICROS,
                requests,
                cell.warmUp(),
                cell.requests(),
                Samples.micros(cell.medianNs()),
                sampled,
                guestSelf,
                100 * guestSelf / sampled,
                times.self("(garbage collector)"),
                times.self("(idle)"),
                top.size()));
        md.append("| # | guest function | self time | share of guest self time | total | self per request |\n");
        md.append("|---:|---|---:|---:|---:|---:|\n");
        for (int i = 0; i < top.size(); i++) {
            String name = top.get(i);
            md.append(String.format(
                    Locale.ROOT,
                    "| %d | `%s` | %.0f ms | %.1f %% | %.0f ms | %s |\n",
                    i + 1,
                    name,
                    times.self(name),
                    100 * times.self(name) / guestSelf,
                    times.total().get(name),
                    Samples.micros((long) (times.self(name) * 1e6 / requests))));
        }
        return md.toString();
    }

    // ---- markdown ---------------------------------------------------------------------------------------------------

    static String markdown(Options options, V8Host node, V8Host.Report engine, List<Row> rows, List<PolicyTrap> traps) {
        StringBuilder md = new StringBuilder();
        md.append("## Guest time per request on V8 (Node): whole requests, real Redis, every policy\n\n");
        md.append("Command: `")
                .append(options.commandLine)
                .append("` (V8CostBench; `-Dexec.args=\"--help\"` for" + " options, `--quick` for a short run). ");
        if (engine != null) {
            md.append("Module `")
                    .append(options.wasm.getFileName())
                    .append("` ")
                    .append(Samples.bytes(engine.moduleBytes()))
                    .append(String.format(
                            Locale.ROOT,
                            ", compiled by V8 in %.1f ms; Node %s, V8 %s; %s, %d cores (shared with other work);"
                                    + " embedded redis-server %s.",
                            engine.compileMillis(),
                            engine.nodeVersion(),
                            engine.v8Version(),
                            engine.cpuModel(),
                            engine.cpus(),
                            engine.redisVersion()));
        } else {
            md.append("Node ").append(node.version()).append('.');
        }
        md.append("\n\n");
        md.append("Method:\n\n");
        md.append("- **Host**: `simulator/src/main/resources/io/ailb/sim/bench/v8-host.js`, a proxy-wasm host in"
                + " plain Node that loads the module as Envoy does (WASI as proxy-wasm-cpp-host offers it; `_start`,"
                + " root context, `proxy_on_vm_start`, `proxy_on_configure` with the plugin configuration) and"
                + " implements the imports the plugin uses: logs, properties (`route_name`, `cluster_name`, the"
                + " `ai_log` write), header maps, the request body, Higress's upstream host list with host info"
                + " (3 vLLM hosts, metrics in the info, as in the plugin-cost section) and"
                + " `proxy_set_upstream_override_host`, metrics, shared data, ticks, and Higress's Redis extension:"
                + " the guest's RESP command bytes go as they are to a real redis-server over a socket, the reply"
                + " bytes come back as they are through `proxy_on_redis_call_response` (buffer 9). Guest log level:"
                + " info (Envoy's default). One node process and one VM per policy; Redis flushed before each"
                + " policy.\n");
        md.append("- **Per request**: context create, request headers (`POST`, `:path /v1/chat/completions`,"
                + " `:authority`, `content-type: application/json`), the whole body in one `proxy_on_request_body`"
                + " (end of stream), the decision's Redis replies (`EVALSHA`; the script is loaded once per Redis),"
                + " then `proxy_on_log`, `proxy_on_done`, `proxy_on_delete` and the release command's reply. The"
                + " same body every request (prefix_cache and cache_aware then find their whole path: the steady"
                + " state of a long conversation). `cache_aware+local+2vms`: two VMs of that configuration sharing"
                + " one shared-data store, as Envoy's workers do, the requests going to them in turn, so each"
                + " decision reads the other VM's counts and each request writes its own as they change (decision,"
                + " first token, end); each VM gets half the warm-up.\n");
        md.append("- **Guest time** = the sum of the time spent inside the host's calls into guest exports during"
                + " the request (`process.hrtime.bigint()` around each outermost call), so it includes the host"
                + " functions the guest calls (copying the body into guest memory, properties, header maps) as it"
                + " would in Envoy, and excludes the Redis waits. It is wall-clock time: on a busy machine it"
                + " includes moments the OS gave the core to another process. **wall** = the whole request"
                + " including the Redis round trips. **process CPU** = the node process's CPU time (user + system,"
                + " all threads, `process.cpuUsage()`) over the whole request: guest, host JavaScript and socket"
                + " work, not the waits, and not inflated by other processes; guest time well above it means the"
                + " machine was contended. p90 = nearest rank.\n");
        md.append(String.format(
                Locale.ROOT,
                "- **Runs**: per cell a warm-up of ≤ %s s / ≤ %d requests (at least"
                        + " %d; V8 tiers the module up from Liftoff to TurboFan meanwhile), then ≤ %s s / ≤ %d timed"
                        + " requests (at least %d). **routed** = timed requests whose override was set before the"
                        + " request headers went on (the others would not be routed by the plugin). A **trap** (an"
                        + " exception out of a guest export) kills the VM as in Envoy: it is reported below, a"
                        + " fresh VM (start untimed) takes the next request.\n",
                trim(options.warmUpSeconds),
                options.warmUpMax,
                options.warmUpMin,
                trim(options.measureSeconds),
                options.maxSamples,
                options.minSamples));
        md.append("- **Bodies**:\n");
        for (Shape shape : options.shapes) {
            md.append("  - *")
                    .append(shape.label)
                    .append("*: ")
                    .append(shape.description)
                    .append(";\n");
        }
        md.append("  all `{\"model\",\"stream\",\"max_tokens\",\"messages\"}` with deterministic text and occasional"
                + " JSON escapes. The JVM-core and Chicory figures for the many-messages shape are in the"
                + " plugin-cost section above.\n\n");
        md.append("| policy | body | shape | messages | **V8 guest median** | V8 guest p90 | wall median"
                + " | process CPU median | samples | routed | Redis calls / request | traps | note |\n");
        md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Row row : rows) {
            V8Host.Cell cell = row.cell();
            md.append("| ")
                    .append(row.policy())
                    .append(" | ")
                    .append(PluginCostBench.sizeName(row.body().bytes()))
                    .append(" | ")
                    .append(row.body().shape())
                    .append(" | ")
                    .append(row.body().messages())
                    .append(" | ");
            if (cell == null) {
                md.append("n/a | n/a | n/a | n/a | 0 | — | — | — | ")
                        .append(row.failure())
                        .append(" |\n");
                continue;
            }
            md.append("**")
                    .append(Samples.micros(cell.samples() == 0 ? -1 : cell.medianNs()))
                    .append("** | ")
                    .append(Samples.micros(cell.samples() == 0 ? -1 : cell.p90Ns()))
                    .append(" | ")
                    .append(Samples.micros(cell.samples() == 0 ? -1 : cell.wallMedianNs()))
                    .append(" | ")
                    .append(Samples.micros(cell.samples() == 0 ? -1 : cell.cpuMedianNs()))
                    .append(" | ")
                    .append(cell.samples())
                    .append(" | ")
                    .append(cell.routed())
                    .append(" / ")
                    .append(cell.requests())
                    .append(" | ")
                    .append(
                            cell.requests() == 0
                                    ? "—"
                                    : String.format(Locale.ROOT, "%.1f", (double) cell.redisCalls() / cell.requests()))
                    .append(" | ")
                    .append(cell.traps())
                    .append(" | ")
                    .append(note(cell))
                    .append(" |\n");
        }
        goReference(md, rows);
        md.append("\n### Traps\n\n");
        if (traps.isEmpty()) {
            md.append("None: no guest export threw in any run.\n");
        } else {
            for (PolicyTrap policyTrap : traps) {
                V8Host.Trap trap = policyTrap.trap();
                md.append("- ")
                        .append(policyTrap.policy())
                        .append(", ")
                        .append(trap.shape())
                        .append(' ')
                        .append(PluginCostBench.sizeName(trap.bytes()))
                        .append(": VM died in `")
                        .append(trap.export())
                        .append("` after ")
                        .append(trap.requestsOnVm())
                        .append(" requests: ")
                        .append(shorten(trap.message(), 400))
                        .append('\n');
            }
        }
        return md.toString();
    }

    private static void goReference(StringBuilder md, List<Row> rows) {
        md.append("\n### Against the Go plugin (issue 9's reference)\n\n");
        md.append("Go figures: Higress `ai-load-balancer` 2.0.1 on V8 with a real Redis, conversation bodies, guest"
                + " time per request, as quoted in issue 9 (measured outside this repository on this 2-core machine;"
                + " absolute values drift ~2× between runs). \"2 KB / 32 KB / 256 KB\" are taken as KiB. Goal of"
                + " issue 9: ours ≤ 0.5× Go in every cell.\n\n");
        md.append("| policy | body | Go plugin (issue 9) | ours, V8 guest median (conversation) | **ours / Go** |\n");
        md.append("|---|---|---:|---:|---:|\n");
        for (Map.Entry<String, Map<Integer, Double>> policy :
                new TreeMap<>(GO_REFERENCE_MILLIS).descendingMap().entrySet()) {
            for (Map.Entry<Integer, Double> go : new TreeMap<>(policy.getValue()).entrySet()) {
                V8Host.Cell ours = rows.stream()
                        .filter(r -> r.policy().equals(policy.getKey())
                                && r.body().shape().equals(Shape.CONVERSATION.label)
                                && r.body().bytes() == go.getKey()
                                && r.cell() != null
                                && r.cell().samples() > 0)
                        .map(Row::cell)
                        .findFirst()
                        .orElse(null);
                md.append("| ")
                        .append(policy.getKey())
                        .append(" | ")
                        .append(PluginCostBench.sizeName(go.getKey()))
                        .append(" | ")
                        .append(String.format(Locale.ROOT, "%.1f ms", go.getValue()))
                        .append(" | ")
                        .append(ours == null ? "not measured" : Samples.micros(ours.medianNs()))
                        .append(" | **")
                        .append(
                                ours == null
                                        ? "n/a"
                                        : String.format(Locale.ROOT, "%.2f×", ours.medianNs() / (go.getValue() * 1e6)))
                        .append("** |\n");
            }
        }
    }

    private static String note(V8Host.Cell cell) {
        List<String> notes = new ArrayList<>();
        if (!cell.status().equals("ok")) {
            notes.add(cell.status());
        }
        if (cell.localReplies() > 0) {
            notes.add(cell.localReplies() + " local replies");
        }
        if (cell.stalled() > 0) {
            notes.add(cell.stalled() + " requests never continued");
        }
        if (cell.errorsLogged() > 0) {
            notes.add(cell.errorsLogged() + " guest errors logged, first: " + shorten(cell.firstError(), 120));
        }
        return String.join("; ", notes);
    }

    private static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "…";
    }

    private static String trim(double seconds) {
        return seconds == Math.rint(seconds) ? String.valueOf((long) seconds) : String.valueOf(seconds);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
