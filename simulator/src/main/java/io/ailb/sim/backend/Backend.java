package io.ailb.sim.backend;

import io.ailb.sim.engine.EventScheduler;
import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.SimRequest;

/** One simulated LLM instance as the engine drives it; {@link #create} picks the model the configuration names. */
public interface Backend extends BackendView {
    /** Told about each request's first token and end. */
    interface Listener {
        void onFirstToken(Backend backend, SimRequest request, double nowMs, int cachedTokens);

        void onComplete(Backend backend, SimRequest request, double nowMs);
    }

    /** A fresh instance of {@code config.model()} at {@link #addressOf}{@code (index)}. */
    static Backend create(int index, BackendConfig config, EventScheduler scheduler, Listener listener) {
        return config.model() == BackendConfig.Model.VLLM
                ? new VllmBackend(index, addressOf(index), config, scheduler, listener)
                : new SimBackend(index, addressOf(index), config, scheduler, listener);
    }

    /** {@code 10.0.<i/250>.<i%250+1>:8000}. */
    static String addressOf(int index) {
        return "10.0." + (index / 250) + "." + (index % 250 + 1) + ":8000";
    }

    /** A request arrives now. */
    void submit(SimRequest request);

    void setHealthy(boolean healthy);

    /** Prompt tokens this instance has computed so far (not served from its cache). */
    long prefillTokens();

    /** Prompt tokens served from the cache so far. */
    long cachedTokens();

    /** Prompt tokens of the requests admitted to the batch so far. */
    long inputTokens();

    PrefixCache cache();

    BackendConfig config();
}
