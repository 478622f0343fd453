package io.ailb.sim;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.bounds.HitRateBounds;
import io.ailb.sim.bounds.TtftLowerBound;
import io.ailb.sim.cluster.ServiceLayout;
import io.ailb.sim.cluster.ServiceSweepTable;
import io.ailb.sim.engine.Simulation;
import io.ailb.sim.engine.Simulation.HealthChange;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.report.BenchmarksDoc;
import io.ailb.sim.report.RequestsCsv;
import io.ailb.sim.report.ResultTable;
import io.ailb.sim.report.RunResult;
import io.ailb.sim.report.SweepPlots;
import io.ailb.sim.report.SweepTable;
import io.ailb.sim.report.plot.Plots;
import io.ailb.sim.router.PluginRouter;
import io.ailb.sim.router.Router;
import io.ailb.sim.router.Routers;
import io.ailb.sim.workload.AgentWorkload;
import io.ailb.sim.workload.ChatWorkload;
import io.ailb.sim.workload.IntRange;
import io.ailb.sim.workload.MooncakeTrace;
import io.ailb.sim.workload.RagWorkload;
import io.ailb.sim.workload.ToolFormat;
import io.ailb.sim.workload.UserLog;
import io.ailb.sim.workload.Workload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The routing simulator's command line: replays a workload through each router (the plugin's .wasm on N gateway VMs
 * sharing one Redis, or a baseline) in front of M simulated backends, and prints one comparison table.
 * {@code --help} lists the flags.
 */
public final class Simulate {
    /** The standard comparison: every policy of the plugin next to the baselines and the reference routers. */
    static final String DEFAULT_ROUTERS = "plugin:prefix_cache,plugin:cache_aware,plugin:global_least_request,"
            + "plugin:least_busy,random,round_robin,least_inflight,sglang_cache_aware,sglang_cache_aware_2025,"
            + "smg_cache_aware,llmd,llmd_precise,dynamo,dynamo_kv_events,greedy_ttft,lookahead_ttft";

    /** The standard comparison of lb_type cluster: every cluster policy of the plugin, then the service baselines. */
    static final String DEFAULT_SERVICE_ROUTERS = "plugin:LeastBusy,plugin:LeastFirstTokenLatency,"
            + "plugin:LeastTotalLatency,plugin:AdaptiveScore,plugin:AdaptiveScore+global,plugin:Random,"
            + "plugin:cluster_hash,random,round_robin,weighted,least_outstanding";

    static final String USAGE =
            """
            Usage: Simulate [options]
              --workload trace|chat|agent|rag|log   what to replay (default trace; generators below)
              --trace FILE                  Mooncake trace (default ../shared/traces/mooncake_conversation_trace.jsonl)
              --log FILE                    your own log (JSONL: arrival_ms, body, output_tokens)
              --preset NAME                 a named setting; flags given next to it override its values:
                higress-article             chat: 60 sessions x 5 turns, 200 in / 800 out tokens, concurrency 20,
                                            3 backends (Higress's prefix_cache article)
                chat-groups                 open-loop chat: 8 groups of sessions, each group sharing a 2000-token
                                            system prompt; 3000 sessions x 4 turns, --rate 20, 8 backends
                agent                       --workload agent with its defaults, 8 backends
                rag                         --workload rag with its defaults, 8 backends
              --routers LIST                comma-separated; plugin:POLICY, plugin:@config.json, plugin:{json},
                                            random, round_robin, and the baselines' names
                                            (default: the plugin's prefix_cache, cache_aware,
                                            global_least_request, least_busy, then random,
                                            round_robin, least_inflight, sglang_cache_aware,
                                            sglang_cache_aware_2025, smg_cache_aware, llmd,
                                            llmd_precise, dynamo, dynamo_kv_events, greedy_ttft,
                                            lookahead_ttft)
              --backends M                  simulated instances (default 8; higress-article 3)
              --gateways N                  gateways (one plugin VM each, shared Redis; default 1)
              --vms-per-gateway V           plugin VMs per gateway (Envoy workers), sharing the gateway's
                                            shared data; requests go to them in turn (default 1)
              --requests-per-vm K           replace a gateway's VM after K requests; 0 = never (default)
              --capacity-tokens T           KV cache per backend in tokens (default 1000000)
              --speedup X                   divide arrival times by X (trace, log; default 1)
              --unstreamed-share X          share of requests sent with "stream": false, drawn per request
                                            (default 0): the plugin sees their answer only whole, at the end
              --pacing fixed|answered       open loop: fixed (default) sends each request at its time;
                                            answered sends a request that continues an earlier one (its
                                            session's previous request; without sessions, the latest one
                                            sharing more than its first block) no sooner than that one
                                            completed, as a client that needs the answer to send the next turn
              --limit K                     first K requests (trace, log) or sessions (chat, agent, rag); 0 = all
              --seed S                      seed of workloads and random choices (default 1)
              --json FILE                   write the results as JSON
              --requests FILE               write every finished request as a CSV row (rate, router, request,
                                            session, backend, arrival, TTFT, end-to-end, input/cached/output tokens,
                                            TTFT alone holding what was cached, and its bound: infinite-cache
                                            hit tokens, TTFT alone holding them)
              --plots DIR                   write PNG plots (when the plot package is present)
              --doc FILE --section NAME     write the table and this command line into a section of FILE
              --sweep M1,M2,...             run every router at the arrival rate times each multiplier (trace,
                                            log, agent, rag, or chat with --rate) and report TTFT mean/p99 per
                                            rate (the same sessions at every rate); with
                                            --plots, sweep-ttft-mean.png and sweep-ttft-p99.png
              --progress                    progress bar on stderr even when it is not a terminal
              --wasm FILE                   the plugin (default: the ai-load-balancer.wasm this build made)
              --guest-timeout-ms X          a plugin call running longer (wall time) is stopped, its VM replaced
                                            and the request routed by the default LB (default 20000; 0 = none)
            generated workloads: A-B is a range drawn uniformly (N alone: always N). Open loop: sessions start as
            a Poisson process of --rate sessions/s and a session's next request is sent --think-ms after the
            previous one's answer would end at --itl-ms per output token.
            chat: multi-turn conversations; session s is in group s mod --groups, whose sessions share a system prompt
              --sessions N (60) --turns N (5) --groups N (4) --system-tokens N (1000) --input-tokens N (200)
              --input-stddev X (50) --output-tokens N (300) --output-stddev X (100) (normal, clipped at 1)
              --concurrency N (20: closed loop, next turn --think-ms after the previous completes)
              | --rate X (sessions/s: open loop, needed by --sweep) --think-ms X (0)
              --group-zipf X (0: session s in group s mod --groups; X > 0: group g drawn with weight
              1/(g+1)^X, a few popular system prompts and a long tail)
            agent: tool-calling loops; step k sends [system + tools, task, (tool call, tool result) x k]
              --groups N (4 agent kinds, each with its own system prompt + tool definitions)
              --system-tokens A-B (4000-8000, drawn once per kind) --task-tokens A-B (100-400)
              --steps A-B (4-12 per session) --call-tokens A-B (50-200: each step's output, a tool call)
              --result-tokens A-B (200-2000) --sessions N (600) --rate X (5 sessions/s) --think-ms X (200:
              the tool's running time) --tool-format openai|inline (openai: the definitions in the body's
              tools array and calls as tool_calls, as OpenAI's SDKs send them; inline: both in message text)
            rag: [system, user: top-k documents of a shared corpus in rank order + a question], follow-ups resend it
              --documents N (1000) --doc-tokens A-B (1000-4000) --zipf X (1.0: top document d has weight
              1/(d+1)^X) --top-k N (4) --rank-noise X (0.3: chance each further document is not the top
              document's usual companion but another popularity draw) --system-tokens N (400)
              --question-tokens A-B (20-100) --answer-tokens A-B (100-400) --follow-up-share X (0.3 of the
              sessions ask) --follow-ups A-B (1-3) --sessions N (2000) --rate X (8 sessions/s) --think-ms X (8000)
            backends:
              --backend-model vllm|serial|parallel   vllm (default): scheduler steps, decodes first, then FCFS
                                            prefill chunks up to --step-budget tokens (8192); a step takes
                                            (itl-ms - prefill-us-per-token) + tokens x prefill-us-per-token;
                                            generated blocks cached. serial / parallel: the former models
                                            (--parallel-prefill = --backend-model parallel)
              --prefill-us-per-token X (62.5) --itl-ms X (12) --max-num-seqs N (256)
              --metrics-staleness-ms X (100); serial/parallel only: --overhead-ms X (30) --load-factor X (2.0)
              --fail B@FROM-TO              backend B unhealthy from FROM to TO ms (repeatable; TO may be omitted)
              --sample-ms X                 load sample interval (default: the run's length / 200, at least 100)
            services (lb_type cluster: routers choose a service, its round robin picks the backend):
              --services N                  N services of one model (svc-a, svc-b, ...), each its own pool
              --service-speeds S1,S2,...    speed of each service's backends (default 1 each; 0.5 = prefill and
                                            steps take twice as long)
              --service-backends B1,B2,...  backends per service (default --backends each)
              routers: plugin:MODE (cluster_metrics: LeastBusy, LeastFirstTokenLatency, LeastTotalLatency,
                                            AdaptiveScore, Random), plugin:AdaptiveScore+global (in-flight counts
                                            in Redis), plugin:cluster_hash (weights by capacity, hashed on the
                                            session), plugin:{json}, plugin:@FILE, random, round_robin,
                                            weighted (static split by capacity), least_outstanding (fewest in
                                            flight gateway-wide); default: all of them
            """;

    private Simulate() {}

    public static void main(String[] args) throws Exception {
        int code = run(args, System.out, System.err);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Runs the CLI; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        Map<String, String> opts = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                out.print(USAGE);
                return 0;
            }
            if (!a.startsWith("--")) {
                err.println("unexpected argument: " + a + "\n" + USAGE);
                return 2;
            }
            String key = a.substring(2);
            String value;
            int eq = key.indexOf('=');
            if (eq >= 0) {
                value = key.substring(eq + 1);
                key = key.substring(0, eq);
            } else if (key.equals("progress") || key.equals("parallel-prefill")) {
                value = "true";
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                err.println("missing value for --" + key);
                return 2;
            }
            if (key.equals("fail")) {
                failures.add(value);
            } else {
                opts.put(key, value);
            }
        }
        try {
            return execute(opts, failures, String.join(" ", quoteAll(args)), out, err);
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
    }

    private static List<String> quoteAll(String[] args) {
        List<String> quoted = new ArrayList<>();
        for (String a : args) {
            quoted.add(a.matches("[A-Za-z0-9_@%+=:,./-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return quoted;
    }

    private static final List<String> KNOWN = List.of(
            "workload",
            "trace",
            "log",
            "preset",
            "routers",
            "backends",
            "gateways",
            "vms-per-gateway",
            "requests-per-vm",
            "capacity-tokens",
            "speedup",
            "unstreamed-share",
            "pacing",
            "limit",
            "seed",
            "json",
            "plots",
            "doc",
            "section",
            "requests",
            "progress",
            "wasm",
            "sessions",
            "turns",
            "groups",
            "group-zipf",
            "system-tokens",
            "input-tokens",
            "input-stddev",
            "output-tokens",
            "output-stddev",
            "concurrency",
            "rate",
            "think-ms",
            "overhead-ms",
            "prefill-us-per-token",
            "itl-ms",
            "load-factor",
            "max-num-seqs",
            "metrics-staleness-ms",
            "parallel-prefill",
            "backend-model",
            "step-budget",
            "task-tokens",
            "steps",
            "call-tokens",
            "result-tokens",
            "tool-format",
            "documents",
            "doc-tokens",
            "zipf",
            "top-k",
            "rank-noise",
            "question-tokens",
            "answer-tokens",
            "follow-up-share",
            "follow-ups",
            "sweep",
            "sample-ms",
            "guest-timeout-ms",
            "services",
            "service-speeds",
            "service-backends");

    /** What the bounds say about one workload under one backend configuration. */
    private record Limits(HitRateBounds.Result hits, TtftLowerBound.Result ttft) {
        static Limits of(Workload w, int backends, BackendConfig backend, TtftLowerBound.PerRequest ttft) {
            return new Limits(
                    HitRateBounds.compute(w.requests(), backends, backend.capacityTokens(), backend.cachesOutput()),
                    ttft.summary());
        }

        Map<String, Double> hitRates() {
            Map<String, Double> bounds = new LinkedHashMap<>();
            bounds.put("infinite cache", hits.infiniteHitRate());
            bounds.put("pooled LRU", hits.pooledLruHitRate());
            return bounds;
        }

        String line() {
            return String.format(
                    Locale.ROOT,
                    "hit-rate bounds: infinite cache %.1f%%, pooled LRU %.1f%%; TTFT lower "
                            + "bound (alone on an idle instance holding the infinite-cache hit): mean %s, p50 %s, p99 %s ms",
                    100 * hits.infiniteHitRate(),
                    100 * hits.pooledLruHitRate(),
                    ResultTable.ms(ttft.meanMs()),
                    ResultTable.ms(ttft.p50Ms()),
                    ResultTable.ms(ttft.p99Ms()));
        }

        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>(hitRates());
            map.put(
                    "ttft_lower_bound_ms",
                    Map.of("mean", ttft.meanMs(), "p50", ttft.p50Ms(), "p90", ttft.p90Ms(), "p99", ttft.p99Ms()));
            return map;
        }
    }

    private static int execute(
            Map<String, String> given, List<String> failures, String commandLine, PrintStream out, PrintStream err)
            throws IOException {
        for (String key : given.keySet()) {
            if (!KNOWN.contains(key)) {
                throw new IllegalArgumentException("unknown option --" + key);
            }
        }
        Map<String, String> o = withPreset(given);
        checkWorkloadFlags(given, o.getOrDefault("workload", "trace"));
        if (o.containsKey("services")) {
            return executeServices(o, failures, commandLine, out, err);
        }
        for (String key : List.of("service-speeds", "service-backends")) {
            if (o.containsKey(key)) {
                throw new IllegalArgumentException("--" + key + " needs --services");
            }
        }
        long seed = longInteger(o, "seed", 1);
        int backends = integer(o, "backends", 8);
        BackendConfig backend = backendConfig(o);
        List<HealthChange> health = new ArrayList<>();
        for (String f : failures) {
            health.addAll(parseFailure(f));
        }
        int gateways = integer(o, "gateways", 1);
        int perVm = integer(o, "requests-per-vm", 0);
        int vms = integer(o, "vms-per-gateway", 1);
        Path wasm = o.containsKey("wasm") ? Path.of(o.get("wasm")) : null;
        String routerList = o.getOrDefault("routers", DEFAULT_ROUTERS);
        boolean progressBar = o.containsKey("progress") || System.console() != null;
        long guestTimeout = longInteger(o, "guest-timeout-ms", PluginRouter.DEFAULT_GUEST_TIMEOUT_MS);
        List<Double> multipliers = o.containsKey("sweep") ? parseSweep(o.get("sweep")) : List.of(1.0);

        List<SweepTable.Point> points = new ArrayList<>();
        List<Workload> workloads = new ArrayList<>();
        List<Simulation.Settings> settingsPerPoint = new ArrayList<>();
        try (Routers.PluginEnvironment env = new Routers.PluginEnvironment(wasm, gateways, vms, perVm, guestTimeout)) {
            List<Supplier<Router>> routers = new ArrayList<>();
            for (String spec : Routers.split(routerList)) {
                routers.add(Routers.resolve(spec, seed, env));
            }
            for (double m : multipliers) {
                Workload workload = workload(o, seed, m, o.containsKey("sweep"), backend.itlMs());
                Simulation.Settings settings = new Simulation.Settings(
                                backends, backend, seed, sampleMs(o, workload), health)
                        .withLookaheadRegret(o.containsKey("requests"));
                out.println(describe(workload, settings, gateways, vms, perVm));
                List<RunResult> results = runEach(routers, workload, settings, progressBar, err);
                points.add(new SweepTable.Point("x" + trim(m), offeredRate(workload), results));
                workloads.add(workload);
                settingsPerPoint.add(settings);
            }
        }
        // The tables report the first workload's bounds; the request rows need every workload's.
        List<Workload> bounded = o.containsKey("requests") ? workloads : workloads.subList(0, 1);
        List<TtftLowerBound.PerRequest> lowerBounds = new ArrayList<>();
        for (Workload w : bounded) {
            lowerBounds.add(TtftLowerBound.of(w.requests(), backend));
        }
        Limits limits = Limits.of(workloads.get(0), backends, backend, lowerBounds.get(0));
        if (o.containsKey("requests")) {
            List<Map<Long, TtftLowerBound.Bound>> bounds = new ArrayList<>();
            for (TtftLowerBound.PerRequest b : lowerBounds) {
                bounds.add(b.byId());
            }
            RequestsCsv.write(
                    Path.of(o.get("requests")),
                    points,
                    new RequestsCsv.Bounds(bounds, backend),
                    workloads.stream().map(Workload::previousTurns).toList());
            out.println("per-request records: " + o.get("requests"));
        }
        if (o.containsKey("sweep")) {
            reportSweep(o, commandLine, points, workloads, settingsPerPoint, limits, gateways, vms, perVm, out, err);
        } else {
            report(
                    o,
                    commandLine,
                    points.get(0).results(),
                    workloads.get(0),
                    settingsPerPoint.get(0),
                    limits,
                    gateways,
                    vms,
                    perVm,
                    out,
                    err);
        }
        return 0;
    }

    /**
     * {@code --services}: every router chooses a service for each request at each rate; one table with TTFT, total
     * latency and each service's share of the requests.
     */
    private static int executeServices(
            Map<String, String> o, List<String> failures, String commandLine, PrintStream out, PrintStream err)
            throws IOException {
        long seed = longInteger(o, "seed", 1);
        ServiceLayout layout = serviceLayout(o);
        BackendConfig backend = backendConfig(o);
        List<HealthChange> health = new ArrayList<>();
        for (String f : failures) {
            health.addAll(parseFailure(f));
        }
        int gateways = integer(o, "gateways", 1);
        int perVm = integer(o, "requests-per-vm", 0);
        int vms = integer(o, "vms-per-gateway", 1);
        Path wasm = o.containsKey("wasm") ? Path.of(o.get("wasm")) : null;
        boolean progressBar = o.containsKey("progress") || System.console() != null;
        long guestTimeout = longInteger(o, "guest-timeout-ms", PluginRouter.DEFAULT_GUEST_TIMEOUT_MS);
        boolean sweep = o.containsKey("sweep");
        List<Double> multipliers = sweep ? parseSweep(o.get("sweep")) : List.of(1.0);

        List<SweepTable.Point> points = new ArrayList<>();
        List<Map<Long, Long>> continues = new ArrayList<>();
        String description = null;
        String workloadName = null;
        try (Routers.PluginEnvironment env = new Routers.PluginEnvironment(wasm, gateways, vms, perVm, guestTimeout)) {
            List<Supplier<Router>> routers = new ArrayList<>();
            for (String spec : Routers.split(o.getOrDefault("routers", DEFAULT_SERVICE_ROUTERS))) {
                routers.add(Routers.resolveForServices(spec, seed, env, layout));
            }
            for (double m : multipliers) {
                Workload workload = workload(o, seed, m, sweep, backend.itlMs());
                Simulation.Settings settings = new Simulation.Settings(
                                layout.totalBackends(), backend, seed, sampleMs(o, workload), health)
                        .withPerBackend(layout.backendConfigs(backend));
                String line = describeServices(workload, settings, layout, gateways, vms, perVm);
                out.println(line);
                if (description == null) {
                    description = line;
                    workloadName = workload.name().replaceAll(" x[0-9.]+$", "");
                }
                List<RunResult> results = runEach(routers, workload, settings, progressBar, err);
                points.add(new SweepTable.Point("x" + trim(m), offeredRate(workload), results));
                continues.add(workload.previousTurns());
            }
        }
        if (o.containsKey("requests")) {
            RequestsCsv.write(Path.of(o.get("requests")), points, RequestsCsv.Bounds.NONE, continues);
            out.println("per-request records: " + o.get("requests"));
        }
        String rates = rateLine(points);
        String table = ServiceSweepTable.markdown(points, layout);
        List<String> winners = ServiceSweepTable.winners(points);
        out.println(rates);
        out.print(table);
        winners.forEach(out::println);
        for (SweepTable.Point p : points) {
            warnings(p.results(), out);
        }
        if (o.containsKey("doc")) {
            StringBuilder md = new StringBuilder();
            md.append("### Routing simulator, services of different speed: ")
                    .append(workloadName)
                    .append("\n\n");
            md.append("`mvn -q -pl simulator exec:java -Dexec.args=\"")
                    .append(commandLine)
                    .append("\"`\n\n");
            md.append(description).append("\n\n");
            md.append(rates).append("\n\n");
            md.append(table).append('\n');
            winners.forEach(w -> md.append("- ").append(w).append('\n'));
            md.append("\nTimes in simulated ms, on ").append(machine()).append(".\n");
            BenchmarksDoc.replaceSection(
                    Path.of(o.get("doc")), o.getOrDefault("section", "simulator-clusters"), md.toString());
        }
        return 0;
    }

    static ServiceLayout serviceLayout(Map<String, String> o) {
        int count = integer(o, "services", 0);
        if (count < 1) {
            throw new IllegalArgumentException("--services wants at least 1 service, got " + count);
        }
        List<Double> speeds = new ArrayList<>();
        List<Integer> backends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            speeds.add(1.0);
            backends.add(integer(o, "backends", 2));
        }
        if (o.containsKey("service-speeds")) {
            speeds = listOf(o, "service-speeds", count, Double::parseDouble);
        }
        if (o.containsKey("service-backends")) {
            backends = listOf(o, "service-backends", count, Integer::parseInt);
        }
        return ServiceLayout.of(backends, speeds);
    }

    private static <T> List<T> listOf(Map<String, String> o, String key, int count, Function<String, T> parse) {
        String[] parts = o.get(key).split(",");
        if (parts.length != count) {
            throw new IllegalArgumentException(
                    "--" + key + " wants " + count + " values (one per service), got " + o.get(key));
        }
        List<T> values = new ArrayList<>();
        for (String part : parts) {
            try {
                values.add(parse.apply(part.strip()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + key + " wants numbers, got " + o.get(key), e);
            }
        }
        return values;
    }

    static String describeServices(
            Workload w, Simulation.Settings s, ServiceLayout layout, int gateways, int vms, int perVm) {
        return String.format(
                Locale.ROOT,
                "%s: %d requests%s; %d services, backends × speed: %s (speed divides prefill and step time; base: %s);"
                        + " round robin inside a service; plugin on %d gateway(s)%s%s; seed %d",
                w.name(),
                w.requests().size(),
                w.closedLoop() ? " in " + w.sessions().size() + " sessions" : "",
                layout.size(),
                layout.describe(),
                backendText(s.backend()),
                gateways,
                vmsText(vms),
                perVm > 0 ? ", fresh VM every " + perVm + " requests" : "",
                s.seed());
    }

    private static BackendConfig backendConfig(Map<String, String> o) {
        BackendConfig d = BackendConfig.DEFAULT;
        BackendConfig.Model model = o.containsKey("backend-model")
                ? BackendConfig.Model.fromCli(o.get("backend-model"))
                : o.containsKey("parallel-prefill") ? BackendConfig.Model.PARALLEL : d.model();
        if (o.containsKey("parallel-prefill") && model != BackendConfig.Model.PARALLEL) {
            throw new IllegalArgumentException(
                    "--parallel-prefill is --backend-model parallel, not " + model.cliName());
        }
        return new BackendConfig(
                longInteger(o, "capacity-tokens", d.capacityTokens()),
                number(o, "overhead-ms", d.overheadMs()),
                number(o, "prefill-us-per-token", d.prefillUsPerToken()),
                number(o, "itl-ms", d.itlMs()),
                number(o, "load-factor", d.timeFactorUnderLoad()),
                integer(o, "max-num-seqs", d.maxNumSeqs()),
                number(o, "metrics-staleness-ms", d.metricsStalenessMs()),
                model,
                integer(o, "step-budget", d.stepBudgetTokens()));
    }

    /** Named settings: flag values, overridden by the flags given next to {@code --preset}. */
    static final Map<String, Map<String, String>> PRESETS = presets();

    private static Map<String, Map<String, String>> presets() {
        Map<String, Map<String, String>> p = new LinkedHashMap<>();
        p.put(
                "higress-article",
                flags("workload chat backends 3 groups 1 sessions 60 turns 5 system-tokens 0 input-tokens 200"
                        + " input-stddev 0 output-tokens 800 output-stddev 0 concurrency 20 think-ms 0"));
        p.put(
                "chat-groups",
                flags("workload chat backends 8 groups 8 system-tokens 2000 sessions 3000 turns 4 input-tokens 200"
                        + " input-stddev 50 output-tokens 300 output-stddev 100 rate 20 think-ms 3000"));
        p.put("agent", flags("workload agent backends 8"));
        p.put("rag", flags("workload rag backends 8"));
        return p;
    }

    private static Map<String, String> flags(String pairs) {
        String[] words = pairs.split(" ");
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i + 1 < words.length; i += 2) {
            map.put(words[i], words[i + 1]);
        }
        return map;
    }

    /** The given flags on top of their preset's; a --rate given without --concurrency makes a preset open loop. */
    static Map<String, String> withPreset(Map<String, String> given) {
        String name = given.get("preset");
        if (name == null) {
            return given;
        }
        Map<String, String> preset = PRESETS.get(name);
        if (preset == null) {
            throw new IllegalArgumentException(
                    "unknown preset " + name + " (known: " + String.join(", ", PRESETS.keySet()) + ")");
        }
        Map<String, String> merged = new LinkedHashMap<>(preset);
        if (given.containsKey("rate") && !given.containsKey("concurrency")) {
            merged.remove("concurrency");
        }
        merged.putAll(given);
        return merged;
    }

    /** The generators' flags and the workloads each belongs to; given to another workload they are a mistake. */
    private static final Map<String, List<String>> WORKLOAD_FLAGS = workloadFlags();

    private static Map<String, List<String>> workloadFlags() {
        Map<String, List<String>> f = new LinkedHashMap<>();
        for (String key : List.of("sessions", "system-tokens", "rate", "think-ms")) {
            f.put(key, List.of("chat", "agent", "rag"));
        }
        f.put("groups", List.of("chat", "agent"));
        for (String key : List.of(
                "turns",
                "group-zipf",
                "input-tokens",
                "input-stddev",
                "output-tokens",
                "output-stddev",
                "concurrency")) {
            f.put(key, List.of("chat"));
        }
        for (String key : List.of("task-tokens", "steps", "call-tokens", "result-tokens", "tool-format")) {
            f.put(key, List.of("agent"));
        }
        for (String key : List.of(
                "documents",
                "doc-tokens",
                "zipf",
                "top-k",
                "rank-noise",
                "question-tokens",
                "answer-tokens",
                "follow-up-share",
                "follow-ups")) {
            f.put(key, List.of("rag"));
        }
        return f;
    }

    private static void checkWorkloadFlags(Map<String, String> given, String workload) {
        for (String key : given.keySet()) {
            List<String> workloads = WORKLOAD_FLAGS.get(key);
            if (workloads != null && !workloads.contains(workload)) {
                throw new IllegalArgumentException(
                        "--" + key + " belongs to --workload " + String.join("|", workloads) + ", not " + workload);
            }
        }
    }

    /** The workload with its arrival rate times {@code multiplier}; a sweep needs arrivals it can speed up. */
    private static Workload workload(
            Map<String, String> o, long seed, double multiplier, boolean sweep, double decodeMsPerToken)
            throws IOException {
        String kind = o.getOrDefault("workload", "trace");
        int limit = integer(o, "limit", 0);
        if (limit < 0) {
            throw new IllegalArgumentException("--limit must be 0 (all) or positive, got " + limit);
        }
        double speedup = number(o, "speedup", 1) * multiplier;
        double unstreamed = number(o, "unstreamed-share", 0);
        if (!(unstreamed >= 0 && unstreamed <= 1)) {
            throw new IllegalArgumentException("--unstreamed-share must be in [0, 1], got " + unstreamed);
        }
        String pacing = o.getOrDefault("pacing", "fixed");
        if (!pacing.equals("fixed") && !pacing.equals("answered")) {
            throw new IllegalArgumentException("--pacing must be fixed or answered, got " + pacing);
        }
        return generated(o, kind, seed, multiplier, sweep, decodeMsPerToken, speedup, limit)
                .withUnstreamedShare(unstreamed, seed)
                .withAnsweredTurns(pacing.equals("answered"));
    }

    private static Workload generated(
            Map<String, String> o,
            String kind,
            long seed,
            double multiplier,
            boolean sweep,
            double decodeMsPerToken,
            double speedup,
            int limit)
            throws IOException {
        return switch (kind) {
            case "trace" -> MooncakeTrace.load(
                    o.containsKey("trace") ? Path.of(o.get("trace")) : MooncakeTrace.defaultTrace(), speedup, limit);
            case "log" -> {
                if (!o.containsKey("log")) {
                    throw new IllegalArgumentException("--workload log needs --log FILE");
                }
                yield UserLog.load(Path.of(o.get("log")), speedup, limit);
            }
            case "chat" -> {
                ChatWorkload.Spec spec = chatSpec(o, decodeMsPerToken);
                if (sweep && spec.concurrency() > 0) {
                    throw new IllegalArgumentException("--sweep scales arrival rates: give the chat workload --rate"
                            + " (sessions/s, open loop) instead of a concurrency");
                }
                yield ChatWorkload.generate(
                        spec.withSessions(limited(spec.sessions(), limit))
                                .withSessionsPerSecond(spec.sessionsPerSecond() * multiplier),
                        seed);
            }
            case "agent" -> {
                AgentWorkload.Spec spec = agentSpec(o, decodeMsPerToken);
                yield AgentWorkload.generate(
                        spec.withSessions(limited(spec.sessions(), limit))
                                .withSessionsPerSecond(spec.sessionsPerSecond() * multiplier),
                        seed);
            }
            case "rag" -> {
                RagWorkload.Spec spec = ragSpec(o, decodeMsPerToken);
                yield RagWorkload.generate(
                        spec.withSessions(limited(spec.sessions(), limit))
                                .withSessionsPerSecond(spec.sessionsPerSecond() * multiplier),
                        seed);
            }
            default -> throw new IllegalArgumentException(
                    "unknown workload " + kind + " (trace, chat, agent, rag or log)");
        };
    }

    private static int limited(int sessions, int limit) {
        return limit > 0 ? Math.min(limit, sessions) : sessions;
    }

    static List<Double> parseSweep(String list) {
        List<Double> multipliers = new ArrayList<>();
        for (String part : list.split(",")) {
            double m = Double.parseDouble(part.strip());
            if (!(m > 0)) {
                throw new IllegalArgumentException("--sweep multipliers must be positive: " + list);
            }
            multipliers.add(m);
        }
        if (multipliers.isEmpty()) {
            throw new IllegalArgumentException("--sweep needs at least one multiplier");
        }
        return multipliers;
    }

    private static double sampleMs(Map<String, String> o, Workload workload) {
        double span = workload.closedLoop()
                ? 0
                : workload.requests().isEmpty()
                        ? 0
                        : workload.requests()
                                .get(workload.requests().size() - 1)
                                .arrivalMs();
        return o.containsKey("sample-ms") ? number(o, "sample-ms", 0) : Math.max(100, span / 200);
    }

    /** Requests per second over the arrival span (0 for a closed loop, whose rate follows the backends). */
    static double offeredRate(Workload w) {
        List<SimRequest> r = w.requests();
        if (w.closedLoop() || r.size() < 2) {
            return 0;
        }
        double span = r.get(r.size() - 1).arrivalMs() - r.get(0).arrivalMs();
        return span <= 0 ? 0 : (r.size() - 1) * 1000.0 / span;
    }

    private static void report(
            Map<String, String> o,
            String commandLine,
            List<RunResult> results,
            Workload workload,
            Simulation.Settings settings,
            Limits limits,
            int gateways,
            int vms,
            int perVm,
            PrintStream out,
            PrintStream err)
            throws IOException {
        double lowerBound = limits.ttft().meanMs();
        out.print(ResultTable.text(results, lowerBound));
        out.println(limits.line());
        warnings(results, out);
        if (o.containsKey("json")) {
            Map<String, Object> doc = jsonHeader(commandLine, workload, settings, gateways);
            doc.put("bounds", limits.toMap());
            List<Object> list = new ArrayList<>();
            results.forEach(r -> list.add(r.toMap()));
            doc.put("results", list);
            writeJson(Path.of(o.get("json")), doc);
        }
        if (o.containsKey("plots")) {
            Path dir = Path.of(o.get("plots"));
            Files.createDirectories(dir);
            for (Path png : Plots.writeAll(dir, results, limits.hitRates())) {
                err.println("plot: " + png);
            }
        }
        if (o.containsKey("doc")) {
            String section = o.getOrDefault("section", "simulator");
            StringBuilder md = new StringBuilder();
            md.append("### Routing simulator: ").append(workload.name()).append("\n\n");
            md.append("`mvn -q -pl simulator exec:java -Dexec.args=\"")
                    .append(commandLine)
                    .append("\"`\n\n");
            md.append(describe(workload, settings, gateways, vms, perVm)).append("\n\n");
            md.append(ResultTable.markdown(results, lowerBound));
            md.append('\n').append(capitalized(limits.line())).append(". ×LB = TTFT mean / lower-bound mean.\n");
            md.append("\nTimes in simulated ms; decision µs is wall time of the guest calls on ")
                    .append(machine())
                    .append(" (including the synchronous Redis round trips).\n");
            BenchmarksDoc.replaceSection(Path.of(o.get("doc")), section, md.toString());
        }
    }

    private static void reportSweep(
            Map<String, String> o,
            String commandLine,
            List<SweepTable.Point> points,
            List<Workload> workloads,
            List<Simulation.Settings> settings,
            Limits limits,
            int gateways,
            int vms,
            int perVm,
            PrintStream out,
            PrintStream err)
            throws IOException {
        SweepTable.Bounds bounds = new SweepTable.Bounds(
                limits.hits().infiniteHitRate(),
                limits.hits().pooledLruHitRate(),
                limits.ttft().meanMs(),
                limits.ttft().p99Ms());
        String rates = rateLine(points);
        out.println(rates);
        out.print(SweepTable.markdown(points, bounds));
        out.println(limits.line());
        List<String> comparisons = SweepTable.comparisons(points);
        comparisons.forEach(out::println);
        for (SweepTable.Point p : points) {
            warnings(p.results(), out);
        }
        if (o.containsKey("json")) {
            Map<String, Object> doc = jsonHeader(commandLine, workloads.get(0), settings.get(0), gateways);
            doc.put("bounds", limits.toMap());
            List<Object> list = new ArrayList<>();
            for (int i = 0; i < points.size(); i++) {
                Map<String, Object> point = new LinkedHashMap<>();
                point.put("rate", points.get(i).label());
                point.put("workload", workloads.get(i).name());
                point.put("requests_per_second", points.get(i).requestsPerSecond());
                List<Object> results = new ArrayList<>();
                points.get(i).results().forEach(r -> results.add(r.toMap()));
                point.put("results", results);
                list.add(point);
            }
            doc.put("sweep", list);
            writeJson(Path.of(o.get("json")), doc);
        }
        List<String> pngs = new ArrayList<>();
        if (o.containsKey("plots")) {
            Path dir = Path.of(o.get("plots"));
            Files.createDirectories(dir);
            double[] rate = points.stream()
                    .mapToDouble(SweepTable.Point::requestsPerSecond)
                    .toArray();
            String name = workloads.get(0).name().replaceAll(" x[0-9.]+$", "");
            for (boolean p99 : new boolean[] {false, true}) {
                Path png = dir.resolve("sweep-ttft-" + (p99 ? "p99" : "mean") + ".png");
                SweepPlots.draw(
                        png,
                        name,
                        p99,
                        rate,
                        SweepTable.series(points, p99),
                        p99 ? limits.ttft().p99Ms() : limits.ttft().meanMs());
                err.println("plot: " + png);
                pngs.add(png.toString());
            }
        }
        if (o.containsKey("doc")) {
            String section = o.getOrDefault("section", "simulator-sweep");
            StringBuilder md = new StringBuilder();
            md.append(SweepPlots.TITLE_PREFIX)
                    .append(workloads.get(0).name().replaceAll(" x[0-9.]+$", ""))
                    .append("\n\n");
            md.append("`mvn -q -pl simulator exec:java -Dexec.args=\"")
                    .append(commandLine)
                    .append("\"`\n\n");
            md.append(describe(workloads.get(0), settings.get(0), gateways, vms, perVm))
                    .append("\n\n");
            md.append(rates).append("\n\n");
            md.append(SweepTable.markdown(points, bounds));
            md.append('\n').append(capitalized(limits.line())).append(" (the *bound* row).\n");
            if (!comparisons.isEmpty()) {
                md.append("\nBest plugin policy vs best anchor (SGLang, SMG, llm-d, Dynamo) per rate:\n\n");
                comparisons.forEach(c -> md.append("- ").append(c).append('\n'));
            }
            if (!pngs.isEmpty()) {
                md.append("\nPlots: ");
                for (int i = 0; i < pngs.size(); i++) {
                    md.append(i == 0 ? "" : ", ")
                            .append('`')
                            .append(pngs.get(i))
                            .append('`');
                }
                md.append(".\n");
            }
            md.append("\nTimes in simulated ms, on ").append(machine()).append(".\n");
            BenchmarksDoc.replaceSection(Path.of(o.get("doc")), section, md.toString());
        }
    }

    private static String rateLine(List<SweepTable.Point> points) {
        StringBuilder s = new StringBuilder("Rates: ");
        for (int i = 0; i < points.size(); i++) {
            s.append(i == 0 ? "" : ", ")
                    .append(points.get(i).label())
                    .append(" = ")
                    .append(String.format(Locale.ROOT, "%.2f", points.get(i).requestsPerSecond()))
                    .append(" req/s");
        }
        return s.toString();
    }

    private static void warnings(List<RunResult> results, PrintStream out) {
        for (RunResult r : results) {
            if (r.plugin() != null && (r.plugin().vmTraps() > 0 || r.plugin().rejects() > 0)) {
                out.println(r.router() + ": " + r.plugin().vmTraps() + " VM traps/timeouts, "
                        + r.plugin().rejects() + " local replies (routed by the default LB)");
            }
            if (r.completed() < r.requests()) {
                out.println(r.router() + ": only " + r.completed() + " of " + r.requests() + " requests finished");
            }
        }
    }

    private static Map<String, Object> jsonHeader(
            String commandLine, Workload workload, Simulation.Settings s, int gateways) {
        BackendConfig backend = s.backend();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("command", commandLine);
        doc.put("workload", workload.name());
        doc.put("requests", workload.requests().size());
        doc.put("backends", s.backends());
        doc.put("gateways", gateways);
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("model", backend.model().cliName());
        b.put("capacity_tokens", backend.capacityTokens());
        b.put("overhead_ms", backend.overheadMs());
        b.put("prefill_us_per_token", backend.prefillUsPerToken());
        b.put("itl_ms", backend.itlMs());
        b.put("step_budget_tokens", backend.stepBudgetTokens());
        b.put("step_fixed_ms", backend.stepFixedMs());
        b.put("time_factor_under_load", backend.timeFactorUnderLoad());
        b.put("max_num_seqs", backend.maxNumSeqs());
        b.put("metrics_staleness_ms", backend.metricsStalenessMs());
        doc.put("backend", b);
        return doc;
    }

    private static void writeJson(Path json, Map<String, Object> doc) throws IOException {
        if (json.toAbsolutePath().getParent() != null) {
            Files.createDirectories(json.toAbsolutePath().getParent());
        }
        Files.writeString(
                json, JSON.std.with(JSON.Feature.PRETTY_PRINT_OUTPUT).asString(doc) + "\n", StandardCharsets.UTF_8);
    }

    /** Runs the workload once per router, each with a fresh instance, showing progress on {@code err} if asked. */
    private static List<RunResult> runEach(
            List<Supplier<Router>> routers,
            Workload workload,
            Simulation.Settings settings,
            boolean progressBar,
            PrintStream err) {
        Simulation.Progress progress = progressBar ? new ProgressBar(err) : null;
        List<RunResult> results = new ArrayList<>();
        for (Supplier<Router> factory : routers) {
            results.add(Simulation.run(workload, factory.get(), settings, progress));
            if (progressBar) {
                err.print("\r\033[K");
                err.flush();
            }
        }
        return results;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static String machine() {
        return System.getProperty("os.name") + "/" + System.getProperty("os.arch") + ", "
                + Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version");
    }

    /** ", 2 VMs each sharing data" for several worker VMs per gateway; "" for one. */
    private static String vmsText(int vms) {
        return vms > 1 ? ", " + vms + " VMs each sharing data" : "";
    }

    static String describe(Workload w, Simulation.Settings s, int gateways, int vms, int perVm) {
        return String.format(
                Locale.ROOT,
                "%s: %d requests%s%s%s; %d backends (%s); plugin on %d " + "gateway(s)%s%s; seed %d",
                w.name(),
                w.requests().size(),
                w.closedLoop() ? " in " + w.sessions().size() + " sessions" : "",
                w.answeredTurns() && !w.closedLoop() ? ", each sent once what it continues is answered" : "",
                w.unstreamedShare() > 0
                        ? String.format(Locale.ROOT, " (%.0f%% unstreamed)", 100 * w.unstreamedShare())
                        : "",
                s.backends(),
                backendText(s.backend()),
                gateways,
                vmsText(vms),
                perVm > 0 ? ", fresh VM every " + perVm + " requests" : "",
                s.seed());
    }

    /** E.g. {@code KV 1,000,000 tokens each, vLLM steps: …}. */
    private static String backendText(BackendConfig b) {
        String model =
                switch (b.model()) {
                    case VLLM -> String.format(
                            Locale.ROOT,
                            "vLLM steps: budget %,d tokens, %.2f ms + %.2f µs/token per step, "
                                    + "%d seqs, output blocks cached",
                            b.stepBudgetTokens(),
                            b.stepFixedMs(),
                            b.prefillUsPerToken(),
                            b.maxNumSeqs());
                    case SERIAL, PARALLEL -> String.format(
                            Locale.ROOT,
                            "%s prefill: overhead %.1f ms, %.2f µs/token, ITL " + "%.1f ms ×%.1f at %d seqs",
                            b.model().cliName(),
                            b.overheadMs(),
                            b.prefillUsPerToken(),
                            b.itlMs(),
                            b.timeFactorUnderLoad(),
                            b.maxNumSeqs());
                };
        return String.format(Locale.ROOT, "KV %,d tokens each, %s", b.capacityTokens(), model);
    }

    private static int integer(Map<String, String> o, String key, int fallback) {
        long value = longInteger(o, key, fallback);
        if (value != (int) value) {
            throw new IllegalArgumentException("--" + key + " is out of range: " + o.get(key));
        }
        return (int) value;
    }

    private static long longInteger(Map<String, String> o, String key, long fallback) {
        String value = o.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + key + " wants an integer, got '" + value + "'", e);
        }
    }

    private static double number(Map<String, String> o, String key, double fallback) {
        String value = o.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + key + " wants a number, got '" + value + "'", e);
        }
    }

    private static IntRange range(Map<String, String> o, String key, IntRange fallback) {
        return o.containsKey(key) ? IntRange.parse("--" + key, o.get(key)) : fallback;
    }

    /** The chat generator's defaults without a preset. */
    static final ChatWorkload.Spec CHAT_DEFAULTS = new ChatWorkload.Spec(
            4, 60, 5, 1000, 200, 50, 300, 100, 20, 0, 0, BackendConfig.DEFAULT.itlMs(), ChatWorkload.BLOCK_TOKENS, 0);

    static ChatWorkload.Spec chatSpec(Map<String, String> o, double decodeMsPerToken) {
        ChatWorkload.Spec base = CHAT_DEFAULTS;
        int concurrency = integer(o, "concurrency", base.concurrency());
        if (o.containsKey("rate") && !o.containsKey("concurrency")) {
            concurrency = 0;
        }
        return new ChatWorkload.Spec(
                integer(o, "groups", base.groups()),
                integer(o, "sessions", base.sessions()),
                integer(o, "turns", base.turns()),
                integer(o, "system-tokens", base.systemTokens()),
                number(o, "input-tokens", base.inputMean()),
                number(o, "input-stddev", base.inputStddev()),
                number(o, "output-tokens", base.outputMean()),
                number(o, "output-stddev", base.outputStddev()),
                concurrency,
                number(o, "rate", base.sessionsPerSecond()),
                number(o, "think-ms", base.thinkMs()),
                decodeMsPerToken,
                base.blockTokens(),
                number(o, "group-zipf", base.groupZipf()));
    }

    static AgentWorkload.Spec agentSpec(Map<String, String> o, double decodeMsPerToken) {
        AgentWorkload.Spec d = AgentWorkload.DEFAULT;
        return new AgentWorkload.Spec(
                integer(o, "groups", d.kinds()),
                integer(o, "sessions", d.sessions()),
                number(o, "rate", d.sessionsPerSecond()),
                range(o, "system-tokens", d.systemTokens()),
                range(o, "task-tokens", d.taskTokens()),
                range(o, "steps", d.steps()),
                range(o, "call-tokens", d.callTokens()),
                range(o, "result-tokens", d.resultTokens()),
                number(o, "think-ms", d.thinkMs()),
                decodeMsPerToken,
                d.blockTokens(),
                o.containsKey("tool-format") ? ToolFormat.fromCli(o.get("tool-format")) : d.toolFormat());
    }

    static RagWorkload.Spec ragSpec(Map<String, String> o, double decodeMsPerToken) {
        RagWorkload.Spec d = RagWorkload.DEFAULT;
        return new RagWorkload.Spec(
                integer(o, "documents", d.documents()),
                range(o, "doc-tokens", d.documentTokens()),
                number(o, "zipf", d.zipfExponent()),
                integer(o, "top-k", d.topK()),
                number(o, "rank-noise", d.rankNoise()),
                integer(o, "system-tokens", d.systemTokens()),
                range(o, "question-tokens", d.questionTokens()),
                range(o, "answer-tokens", d.answerTokens()),
                number(o, "follow-up-share", d.followUpShare()),
                range(o, "follow-ups", d.followUps()),
                integer(o, "sessions", d.sessions()),
                number(o, "rate", d.sessionsPerSecond()),
                number(o, "think-ms", d.thinkMs()),
                decodeMsPerToken,
                d.blockTokens());
    }

    /** {@code B@FROM-TO} or {@code B@FROM}: backend B is unhealthy from FROM ms (to TO ms). */
    static List<HealthChange> parseFailure(String spec) {
        int at = spec.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("--fail wants BACKEND@FROM-TO (ms), got " + spec);
        }
        int backend = Integer.parseInt(spec.substring(0, at));
        String range = spec.substring(at + 1);
        int dash = range.indexOf('-');
        List<HealthChange> changes = new ArrayList<>();
        double from = Double.parseDouble(dash < 0 ? range : range.substring(0, dash));
        changes.add(new HealthChange(from, backend, false));
        if (dash >= 0 && dash + 1 < range.length()) {
            changes.add(new HealthChange(Double.parseDouble(range.substring(dash + 1)), backend, true));
        }
        return changes;
    }

    /** {@code router [#####.....] 1234/5678} on one line of stderr. */
    static final class ProgressBar implements Simulation.Progress {
        private final PrintStream err;
        private long lastPrinted = -1;

        ProgressBar(PrintStream err) {
            this.err = err;
        }

        @Override
        public void update(String router, long done, long total) {
            long permille = total == 0 ? 1000 : done * 1000 / total;
            if (permille == lastPrinted) {
                return;
            }
            lastPrinted = permille;
            int filled = (int) (permille * 30 / 1000);
            err.print("\r" + router + " [" + "#".repeat(filled) + ".".repeat(30 - filled) + "] " + done + "/" + total);
            err.flush();
        }
    }
}
