package io.ailb.sim.backend;

import io.ailb.sim.engine.EventScheduler;
import io.ailb.sim.model.SimRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One simulated LLM instance as vLLM V1's scheduler runs it (the {@link BackendConfig.Model#VLLM} model).
 *
 * <p>The engine works in steps. Each step first schedules the running sequences in admission order: one token for a
 * sequence that decodes, the rest of its prompt (up to the budget left) for one still prefilling. Then, while budget
 * and batch slots ({@code maxNumSeqs}) remain, it admits waiting requests first come first served: a request looks up
 * its longest cached prefix (at most {@code input − 1} tokens: the last token is always computed), needs room for the
 * rest of its prompt next to the pinned blocks (else it and everyone behind it wait; an empty batch always admits) and
 * is given a chunk of its prompt up to the budget left. A step lasts {@code stepFixedMs + tokens × prefillUsPerToken}
 * and the next starts when it ends, as long as there is work; an idle instance starts one at the instant a request
 * arrives (after every arrival of that instant).
 *
 * <p>Prefix cache (vLLM automatic prefix caching): a prompt block becomes matchable — cached and pinned — when the
 * chunk that completes it is scheduled, so a request admitted later, even in the same step, reuses it. The step that
 * completes a prompt yields the first token (TTFT = arrival to the end of that step); every later step that schedules
 * the sequence yields one more token. Generated tokens fill blocks too: each time the sequence completes a block of
 * prompt + output, the request's next {@link SimRequest#outputBlockIds() output block} is cached and pinned, so a
 * follow-up turn that sends the answer back finds it. At completion every block is unpinned (evictable, LRU, tail
 * first). Not modelled: preemption (generated blocks may push the pinned total past the capacity), CPU offload,
 * speculative decoding.
 */
public final class VllmBackend extends QueuedBackend {
    private static final class Seq {
        final SimRequest request;
        final double submittedMs;
        /** Prompt tokens computed or found cached so far. */
        int computed;

        int cachedTokens;
        /** Leading prompt blocks pinned (matchable). */
        int pinnedPromptBlocks;

        int pinnedOutputBlocks;
        /** Prompt tokens scheduled in the step under way; 0 when none. */
        int chunk;

        boolean decodeScheduled;
        int generated;

        Seq(SimRequest request, double submittedMs) {
            this.request = request;
            this.submittedMs = submittedMs;
        }

        boolean prefilling() {
            return computed < request.inputTokens();
        }
    }

    private final Deque<Seq> waiting = new ArrayDeque<>();
    private final List<Seq> running = new ArrayList<>();
    /** Admitted prompt blocks not scheduled yet (their KV tokens are the reserved ones). */
    private long reservedBlocks;

    private boolean stepUnderWay;
    /** A step starts at the end of the current instant, so requests arriving together share it. */
    private boolean startPending;

    private double stepEndsMs;

    public VllmBackend(int index, String address, BackendConfig config, EventScheduler scheduler, Listener listener) {
        super(index, address, config, scheduler, listener);
    }

    @Override
    public void submit(SimRequest request) {
        waiting.add(new Seq(request, scheduler.nowMs()));
        if (!stepUnderWay && !startPending) {
            startPending = true;
            scheduler.at(scheduler.nowMs(), () -> {
                startPending = false;
                startStep();
                publish();
            });
        }
        publish();
    }

    private void startStep() {
        int budget = config.stepBudgetTokens();
        long tokens = 0;
        for (Seq seq : running) {
            if (budget == 0) {
                break;
            }
            int take;
            if (seq.prefilling()) {
                take = Math.min(seq.request.inputTokens() - seq.computed, budget);
                schedulePrefill(seq, take);
            } else {
                take = 1;
                seq.decodeScheduled = true;
            }
            budget -= take;
            tokens += take;
        }
        while (budget > 0 && !waiting.isEmpty() && running.size() < config.maxNumSeqs()) {
            Seq head = waiting.peek();
            if (!admit(head)) {
                break;
            }
            waiting.poll();
            int take = Math.max(1, Math.min(head.request.inputTokens() - head.computed, budget));
            schedulePrefill(head, take);
            budget -= take;
            tokens += take;
        }
        stepUnderWay = tokens > 0;
        if (stepUnderWay) {
            stepEndsMs = scheduler.nowMs() + config.stepMs(tokens);
            scheduler.at(stepEndsMs, this::finishStep);
        }
    }

    /** Looks up the prefix and reserves room for the rest of the prompt; false when it does not fit. */
    private boolean admit(Seq seq) {
        SimRequest r = seq.request;
        List<Long> ids = r.blockIds();
        int matched = cache.match(ids);
        long needed = (long) (ids.size() - matched) * r.blockTokens();
        if (!fits(needed)) {
            return false;
        }
        cache.pin(ids.subList(0, matched), r.blockTokens());
        seq.pinnedPromptBlocks = matched;
        reservedBlocks += ids.size() - matched;
        reservedTokens += needed;
        seq.cachedTokens = Math.max(0, Math.min(tokensOfLeadingBlocks(r, matched), r.inputTokens() - 1));
        seq.computed = seq.cachedTokens;
        countAdmitted(r.inputTokens(), seq.cachedTokens);
        running.add(seq);
        return true;
    }

    /** Schedules {@code take} prompt tokens; the blocks they complete become matchable now. */
    private void schedulePrefill(Seq seq, int take) {
        SimRequest r = seq.request;
        seq.chunk = take;
        int after = seq.computed + take;
        int covered = after >= r.inputTokens()
                ? r.blockIds().size()
                : Math.min(r.blockIds().size(), after / r.blockTokens());
        if (covered > seq.pinnedPromptBlocks) {
            cache.pin(r.blockIds().subList(seq.pinnedPromptBlocks, covered), r.blockTokens());
            reservedBlocks -= covered - seq.pinnedPromptBlocks;
            reservedTokens -= (long) (covered - seq.pinnedPromptBlocks) * r.blockTokens();
            seq.pinnedPromptBlocks = covered;
        }
    }

    private void finishStep() {
        double now = scheduler.nowMs();
        List<Seq> finished = new ArrayList<>();
        for (Seq seq : running) {
            if (seq.chunk > 0) {
                seq.computed += seq.chunk;
                seq.chunk = 0;
                if (!seq.prefilling()) {
                    seq.generated = 1;
                    countFirstToken(now - seq.submittedMs);
                    listener.onFirstToken(this, seq.request, now, seq.cachedTokens);
                    generatedToken(seq, finished);
                }
            } else if (seq.decodeScheduled) {
                seq.decodeScheduled = false;
                seq.generated++;
                generatedToken(seq, finished);
            }
        }
        for (Seq seq : finished) {
            running.remove(seq);
            SimRequest r = seq.request;
            List<Long> held = new ArrayList<>(r.blockIds());
            held.addAll(r.outputBlockIds().subList(0, seq.pinnedOutputBlocks));
            cache.release(held);
            listener.onComplete(this, r, now);
        }
        startStep();
        publish();
    }

    /** Caches the output blocks the sequence has completed; marks it finished after its last token. */
    private void generatedToken(Seq seq, List<Seq> finished) {
        SimRequest r = seq.request;
        int promptFull = r.inputTokens() / r.blockTokens();
        int full = (r.inputTokens() + seq.generated) / r.blockTokens() - promptFull;
        int available = Math.min(full, r.outputBlockIds().size());
        if (available > seq.pinnedOutputBlocks) {
            cache.pin(r.outputBlockIds().subList(seq.pinnedOutputBlocks, available), r.blockTokens());
            seq.pinnedOutputBlocks = available;
        }
        if (seq.generated >= r.outputTokens()) {
            finished.add(seq);
        }
    }

    @Override
    public int waiting() {
        return waiting.size();
    }

    @Override
    public int running() {
        return running.size();
    }

    @Override
    public long activeBlocks() {
        return cache.pinnedBlocks() + reservedBlocks;
    }

    /**
     * The rest of the step under way, then enough full steps for the prompt tokens still to compute ahead of this
     * request and its own: each step gives the budget minus one token per decoding sequence to prefills and costs
     * the fixed step time plus all its tokens. Batch slots, KV room and sequences finishing meanwhile are ignored.
     * With {@code lookahead} a queued request's blocks count as cached for the requests behind it.
     */
    @Override
    double estimate(SimRequest request, boolean lookahead) {
        Set<Long> ahead = new HashSet<>();
        long work = 0;
        int decoding = 0;
        for (Seq seq : running) {
            if (seq.prefilling()) {
                work += seq.request.inputTokens() - seq.computed - seq.chunk;
                if (lookahead) {
                    ahead.addAll(seq.request.blockIds());
                }
            } else {
                decoding++;
            }
        }
        for (Seq seq : waiting) {
            work += tokensToCompute(seq.request, ahead);
            if (lookahead) {
                ahead.addAll(seq.request.blockIds());
            }
        }
        work += tokensToCompute(request, ahead);
        long perStep = Math.max(1, config.stepBudgetTokens() - decoding);
        long steps = (work + perStep - 1) / perStep;
        double rest = stepUnderWay ? Math.max(0, stepEndsMs - scheduler.nowMs()) : 0;
        return rest + steps * config.stepFixedMs() + (work + steps * decoding) * config.prefillUsPerToken() / 1000.0;
    }

    private long tokensToCompute(SimRequest r, Set<Long> ahead) {
        int cached = tokensOfLeadingBlocks(r, cache.match(r.blockIds(), ahead));
        return Math.max(1, r.inputTokens() - cached);
    }
}
