package io.ailb.sim.backend;

import io.ailb.sim.engine.EventScheduler;
import io.ailb.sim.model.SimRequest;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One simulated LLM instance, llm-d-inference-sim style: the {@link BackendConfig.Model#SERIAL} and
 * {@link BackendConfig.Model#PARALLEL} models.
 *
 * <p>A request waits in a FIFO queue until it may enter the batch: fewer than {@code maxNumSeqs} sequences running,
 * its new blocks fit next to the pinned ones in the KV cache (or the batch is empty), and — with
 * {@code serialPrefill} — no other prefill in progress. Entering the batch it looks up its longest cached prefix
 * (pinning it), and its prefill takes {@code overheadMs + uncachedTokens × prefillUsPerToken}. At the end of the
 * prefill (its new blocks are allocated, counted in the KV usage, but not matchable yet) the first token is out
 * (TTFT = queue wait + that), all of its blocks are cached and pinned, and the decode
 * takes {@code (outputTokens − 1) × itlMs × loadFactor(running)} with the batch size of that moment. At completion its
 * blocks are unpinned (evictable, LRU). Generated tokens are not cached.
 */
public final class SimBackend extends QueuedBackend {

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

    private final Deque<Seq> waiting = new ArrayDeque<>();
    private int running;
    /** Serial model: the sequence whose prefill runs, null when none does. */
    private Seq prefilling;

    private double prefillEndsMs;
    private int lastBlockTokens = 1;

    public SimBackend(int index, String address, BackendConfig config, EventScheduler scheduler, Listener listener) {
        super(index, address, config, scheduler, listener);
    }

    @Override
    public void submit(SimRequest request) {
        lastBlockTokens = request.blockTokens();
        waiting.add(new Seq(request, scheduler.nowMs()));
        startWhatFits();
        publish();
    }

    private void startWhatFits() {
        while (!waiting.isEmpty() && running < config.maxNumSeqs() && !(config.serialPrefill() && prefilling != null)) {
            Seq head = waiting.peek();
            List<Long> ids = head.request.blockIds();
            int matched = cache.match(ids);
            long needed = (long) (ids.size() - matched) * head.request.blockTokens();
            if (!fits(needed)) {
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
        countAdmitted(r.inputTokens(), seq.cachedTokens);
        double end = scheduler.nowMs() + duration;
        if (config.serialPrefill()) {
            prefilling = seq;
            prefillEndsMs = end;
        }
        scheduler.at(end, () -> prefillDone(seq));
    }

    private void prefillDone(Seq seq) {
        SimRequest r = seq.request;
        List<Long> ids = r.blockIds();
        reservedTokens -= (long) (ids.size() - seq.matchedBlocks) * r.blockTokens();
        cache.pin(ids.subList(seq.matchedBlocks, ids.size()), r.blockTokens());
        if (prefilling == seq) {
            prefilling = null;
        }
        double now = scheduler.nowMs();
        countFirstToken(now - seq.submittedMs);
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

    @Override
    public int waiting() {
        return waiting.size();
    }

    @Override
    public int running() {
        return running;
    }

    @Override
    public long activeBlocks() {
        long blockTokens = Math.max(1, lastBlockTokens);
        return cache.pinnedBlocks() + reservedTokens / blockTokens;
    }

    /**
     * Serial model: the rest of the running prefill, then each queued one, then this one. With {@code lookahead} the
     * blocks of the running and queued prefills count as cached for the prefills after them (they will be by then);
     * without, every prefill is judged against the cache as it is now. Parallel model: this prefill alone (queued
     * prefills start at once, and in-flight ones are not matchable before they end).
     */
    @Override
    double estimate(SimRequest request, boolean lookahead) {
        double now = scheduler.nowMs();
        double wait = 0;
        Set<Long> ahead = new HashSet<>();
        if (config.serialPrefill()) {
            if (prefilling != null) {
                wait = Math.max(0, prefillEndsMs - now);
                if (lookahead) {
                    ahead.addAll(prefilling.request.blockIds());
                }
            }
            for (Seq queued : waiting) {
                wait += prefillMs(queued.request, ahead);
                if (lookahead) {
                    ahead.addAll(queued.request.blockIds());
                }
            }
        }
        return wait + prefillMs(request, ahead);
    }

    private double prefillMs(SimRequest r, Set<Long> ahead) {
        int cached = tokensOfLeadingBlocks(r, cache.match(r.blockIds(), ahead));
        return config.overheadMs() + (r.inputTokens() - cached) * config.prefillUsPerToken() / 1000.0;
    }
}
