package io.ailb.sim.backend;

import io.ailb.sim.engine.EventScheduler;
import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.SimRequest;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * One simulated LLM instance, llm-d-inference-sim style.
 *
 * <p>A request waits in a FIFO queue until it may enter the batch: fewer than {@code maxNumSeqs} sequences running,
 * its new blocks fit next to the pinned ones in the KV cache (or the batch is empty), and — with
 * {@code serialPrefill} — no other prefill in progress. Entering the batch it looks up its longest cached prefix
 * (pinning it), and its prefill takes {@code overheadMs + uncachedTokens × prefillUsPerToken}. At the end of the
 * prefill (its new blocks are allocated, counted in the KV usage, but not matchable yet) the first token is out
 * (TTFT = queue wait + that), all of its blocks are cached and pinned, and the decode
 * takes {@code (outputTokens − 1) × itlMs × loadFactor(running)} with the batch size of that moment. At completion its
 * blocks are unpinned (evictable, LRU).
 */
public final class SimBackend implements BackendView {
    /** Told about each request's first token and end. */
    public interface Listener {
        void onFirstToken(SimBackend backend, SimRequest request, double nowMs, int cachedTokens);

        void onComplete(SimBackend backend, SimRequest request, double nowMs);
    }

    private static final class Seq {
        final SimRequest request;
        final double submittedMs;
        int matchedBlocks;
        int cachedTokens;

        Seq(SimRequest request, double submittedMs) {
            this.request = request;
            this.submittedMs = submittedMs;
        }
    }

    private record Snapshot(double timeMs, int running, int waiting, double kvUsage) {
    }

    private final int index;
    private final String address;
    private final BackendConfig config;
    private final EventScheduler scheduler;
    private final Listener listener;
    private final PrefixCache cache;
    private final Deque<Seq> waiting = new ArrayDeque<>();
    private final Deque<Snapshot> published = new ArrayDeque<>();
    private int running;
    /** KV tokens of blocks being prefilled (allocated, not cached yet). */
    private long reservedTokens;
    private boolean prefillBusy;
    private double prefillEndsMs;
    private boolean healthy = true;
    private long prefillTokens;
    private long cachedTokens;
    private long inputTokens;
    private long admitted;
    private int lastBlockTokens = 1;

    public SimBackend(int index, String address, BackendConfig config, EventScheduler scheduler, Listener listener) {
        this.index = index;
        this.address = address;
        this.config = config;
        this.scheduler = scheduler;
        this.listener = listener;
        this.cache = new PrefixCache(config.capacityTokens());
        published.add(new Snapshot(Double.NEGATIVE_INFINITY, 0, 0, 0.0));
    }

    /** {@code 10.0.<i/250>.<i%250+1>:8000}. */
    public static String addressOf(int index) {
        return "10.0." + (index / 250) + "." + (index % 250 + 1) + ":8000";
    }

    /** A request arrives now. */
    public void submit(SimRequest request) {
        admitted++;
        lastBlockTokens = request.blockTokens();
        waiting.add(new Seq(request, scheduler.nowMs()));
        startWhatFits();
        publish();
    }

    public void setHealthy(boolean healthy) {
        this.healthy = healthy;
    }

    private void startWhatFits() {
        while (!waiting.isEmpty() && running < config.maxNumSeqs() && !(config.serialPrefill() && prefillBusy)) {
            Seq head = waiting.peek();
            List<Long> ids = head.request.blockIds();
            int matched = cache.match(ids);
            long needed = (long) (ids.size() - matched) * head.request.blockTokens();
            if (running > 0 && cache.pinnedTokens() + reservedTokens + needed > cache.capacityTokens()) {
                return;
            }
            waiting.poll();
            startPrefill(head, matched);
        }
    }

    private void startPrefill(Seq seq, int matched) {
        SimRequest r = seq.request;
        List<Long> ids = r.blockIds();
        seq.matchedBlocks = matched;
        seq.cachedTokens = tokensOfLeadingBlocks(r, matched);
        cache.pin(ids.subList(0, matched), r.blockTokens());
        reservedTokens += (long) (ids.size() - matched) * r.blockTokens();
        running++;
        int uncached = r.inputTokens() - seq.cachedTokens;
        double duration = config.overheadMs() + uncached * config.prefillUsPerToken() / 1000.0;
        prefillTokens += uncached;
        cachedTokens += seq.cachedTokens;
        inputTokens += r.inputTokens();
        double end = scheduler.nowMs() + duration;
        if (config.serialPrefill()) {
            prefillBusy = true;
            prefillEndsMs = end;
        }
        scheduler.at(end, () -> prefillDone(seq));
    }

    /** Tokens covered by the first {@code blocks} blocks: full blocks, the last block holds the rest of the prompt. */
    static int tokensOfLeadingBlocks(SimRequest r, int blocks) {
        long tokens = 0;
        int n = r.blockIds().size();
        for (int i = 0; i < blocks; i++) {
            long left = r.inputTokens() - tokens;
            long block = i < n - 1 ? Math.min(r.blockTokens(), left) : left;
            tokens += Math.max(0, block);
        }
        return (int) Math.min(tokens, r.inputTokens());
    }

    private void prefillDone(Seq seq) {
        SimRequest r = seq.request;
        List<Long> ids = r.blockIds();
        reservedTokens -= (long) (ids.size() - seq.matchedBlocks) * r.blockTokens();
        cache.pin(ids.subList(seq.matchedBlocks, ids.size()), r.blockTokens());
        prefillBusy = false;
        double now = scheduler.nowMs();
        listener.onFirstToken(this, r, now, seq.cachedTokens);
        double decode = Math.max(0, r.outputTokens() - 1) * config.itlMs() * config.loadFactor(running);
        scheduler.at(now + decode, () -> complete(seq));
        startWhatFits();
        publish();
    }

    private void complete(Seq seq) {
        cache.release(seq.request.blockIds());
        running--;
        listener.onComplete(this, seq.request, scheduler.nowMs());
        startWhatFits();
        publish();
    }

    private void publish() {
        double now = scheduler.nowMs();
        Snapshot last = published.peekLast();
        Snapshot next = new Snapshot(now, running, waiting.size(), kvUsage());
        if (last != null && last.timeMs() == now) {
            published.pollLast();
        }
        published.add(next);
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public boolean healthy() {
        return healthy;
    }

    @Override
    public int inFlight() {
        return running + waiting.size();
    }

    @Override
    public int waiting() {
        return waiting.size();
    }

    @Override
    public int running() {
        return running;
    }

    @Override
    public double kvUsage() {
        long capacity = cache.capacityTokens();
        long used = cache.pinnedTokens() + reservedTokens;
        return capacity == 0 ? (used > 0 ? 1.0 : 0.0) : Math.min(1.0, used / (double) capacity);
    }

    @Override
    public long activeBlocks() {
        long blockTokens = Math.max(1, lastBlockTokens);
        return cache.pinnedBlocks() + reservedTokens / blockTokens;
    }

    @Override
    public String metricsText() {
        double visible = scheduler.nowMs() - config.metricsStalenessMs();
        while (published.size() > 1) {
            Snapshot second = secondOf(published);
            if (second.timeMs() <= visible) {
                published.pollFirst();
            } else {
                break;
            }
        }
        Snapshot s = published.peekFirst();
        String label = "{model_name=\"sim\"}";
        return "# TYPE vllm:num_requests_running gauge\n"
                + "vllm:num_requests_running" + label + " " + s.running() + "\n"
                + "# TYPE vllm:num_requests_waiting gauge\n"
                + "vllm:num_requests_waiting" + label + " " + s.waiting() + "\n"
                + "# TYPE vllm:gpu_cache_usage_perc gauge\n"
                + "vllm:gpu_cache_usage_perc" + label + " " + format(s.kvUsage()) + "\n"
                + "# TYPE vllm:kv_cache_usage_perc gauge\n"
                + "vllm:kv_cache_usage_perc" + label + " " + format(s.kvUsage()) + "\n";
    }

    private static Snapshot secondOf(Deque<Snapshot> deque) {
        var it = deque.iterator();
        it.next();
        return it.next();
    }

    private static String format(double v) {
        return String.format(Locale.ROOT, "%.4f", v);
    }

    @Override
    public int cachedPrefixBlocks(SimRequest request) {
        return cache.match(request.blockIds());
    }

    @Override
    public double estimatedTtftMs(SimRequest request) {
        double now = scheduler.nowMs();
        double wait = 0;
        if (config.serialPrefill()) {
            wait = prefillBusy ? Math.max(0, prefillEndsMs - now) : 0;
            for (Seq queued : waiting) {
                int cached = tokensOfLeadingBlocks(queued.request, cache.match(queued.request.blockIds()));
                wait += config.overheadMs()
                        + (queued.request.inputTokens() - cached) * config.prefillUsPerToken() / 1000.0;
            }
        }
        int cached = tokensOfLeadingBlocks(request, cache.match(request.blockIds()));
        return wait + config.overheadMs() + (request.inputTokens() - cached) * config.prefillUsPerToken() / 1000.0;
    }

    /** Uncached prompt tokens this instance has prefilled so far. */
    public long prefillTokens() {
        return prefillTokens;
    }

    public long cachedTokens() {
        return cachedTokens;
    }

    public long inputTokens() {
        return inputTokens;
    }

    public long admitted() {
        return admitted;
    }

    public PrefixCache cache() {
        return cache;
    }

    public BackendConfig config() {
        return config;
    }
}
