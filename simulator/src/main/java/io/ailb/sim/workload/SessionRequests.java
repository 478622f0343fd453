package io.ailb.sim.workload;

import io.ailb.sim.model.SimRequest;
import io.ailb.sim.workload.TextBlocks.Segment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects the requests of open-loop sessions and turns them into a {@link Workload} whose bodies are rendered from
 * the transcripts when sent (an agent session's history would otherwise be held as text once per step).
 */
final class SessionRequests {
    private record Sent(Transcript transcript, int messages, int maxTokens) {}

    private final int blockTokens;
    private final List<SimRequest> requests = new ArrayList<>();
    private final Map<Long, Sent> sent = new HashMap<>();

    SessionRequests(int blockTokens) {
        this.blockTokens = blockTokens;
    }

    /**
     * A request sending the first {@code messages} messages of {@code transcript} at {@code arrivalMs}; message
     * {@code messages} is its answer, whose full blocks become the request's output block ids.
     */
    SimRequest add(Transcript transcript, String sessionId, int messages, double arrivalMs, int maxTokens) {
        List<Segment> prompt = transcript.segments(messages);
        int input = transcript.tokens(messages);
        int output = transcript.message(messages).tokens();
        List<Segment> withAnswer = new ArrayList<>(prompt);
        withAnswer.addAll(transcript.message(messages).segments());
        List<Long> answer = TextBlocks.chainIds(withAnswer, blockTokens)
                .subList(input / blockTokens, (input + output) / blockTokens);
        long id = requests.size();
        SimRequest request = new SimRequest(
                id,
                Math.round(arrivalMs),
                sessionId,
                input,
                output,
                blockTokens,
                TextBlocks.chainIds(prompt, blockTokens),
                "",
                answer);
        requests.add(request);
        sent.put(id, new Sent(transcript, messages, maxTokens));
        return request;
    }

    /** Every request in arrival order (ties by id). */
    Workload workload(String name) {
        List<SimRequest> ordered = new ArrayList<>(requests);
        ordered.sort((a, b) -> a.arrivalMs() != b.arrivalMs()
                ? Long.compare(a.arrivalMs(), b.arrivalMs())
                : Long.compare(a.id(), b.id()));
        return Workload.openLoop(name, ordered, r -> {
            Sent s = sent.get(r.id());
            return s.transcript().body(s.messages(), s.maxTokens());
        });
    }
}
