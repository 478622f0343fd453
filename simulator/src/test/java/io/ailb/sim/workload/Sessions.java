package io.ailb.sim.workload;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.sim.model.SimRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test helpers over generated workloads: requests per session, rendered messages. */
final class Sessions {
    private Sessions() {}

    /** Each session's requests in the order they are sent. */
    static Map<String, List<SimRequest>> of(Workload w) {
        Map<String, List<SimRequest>> sessions = new LinkedHashMap<>();
        for (SimRequest r : w.requests()) {
            sessions.computeIfAbsent(r.sessionId(), k -> new ArrayList<>()).add(r);
        }
        return sessions;
    }

    /** The body the request is sent with, parsed. */
    static Map<String, Object> materialized(Workload w, SimRequest r) throws IOException {
        return JSON.std.mapFrom(w.materialize(r, r.arrivalMs()).body());
    }

    static List<Map<String, Object>> messages(Workload w, SimRequest r) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object m : (List<?>) materialized(w, r).get("messages")) {
            Map<String, Object> message = new LinkedHashMap<>();
            ((Map<?, ?>) m).forEach((k, v) -> message.put(k.toString(), v));
            out.add(message);
        }
        return out;
    }

    /** How many leading ids the two lists have in common. */
    static int sharedPrefix(List<Long> a, List<Long> b) {
        int n = 0;
        while (n < a.size() && n < b.size() && a.get(n).equals(b.get(n))) {
            n++;
        }
        return n;
    }

    /** Arrival, sizes, blocks and body of every request: equal fingerprints mean equal workloads. */
    static List<String> fingerprint(Workload w) {
        List<String> out = new ArrayList<>();
        for (SimRequest r : w.requests()) {
            out.add(r.id() + "@" + r.arrivalMs() + " " + r.sessionId() + " " + r.inputTokens() + "/"
                    + r.outputTokens() + " " + r.blockIds() + " " + r.outputBlockIds() + " "
                    + w.materialize(r, r.arrivalMs()).body().hashCode());
        }
        return out;
    }
}
