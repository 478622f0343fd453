package io.ailb.lb.policy.endpointmetrics;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/** The last N chosen hosts of one VM, with per-host counts, for the {@code rate_limit} share check. */
final class ChoiceWindow {
    private final int capacity;
    private final ArrayDeque<String> order = new ArrayDeque<>();
    private final Map<String, Integer> counts = new HashMap<>();

    ChoiceWindow(int capacity) {
        this.capacity = capacity;
    }

    /** The host's share of the window, 0 when the window is empty. */
    double share(String host) {
        if (order.isEmpty()) {
            return 0;
        }
        Integer count = counts.get(host);
        return count == null ? 0 : (double) count / order.size();
    }

    void add(String host) {
        if (order.size() == capacity) {
            String oldest = order.removeFirst();
            int left = counts.get(oldest) - 1;
            if (left == 0) {
                counts.remove(oldest);
            } else {
                counts.put(oldest, left);
            }
        }
        order.addLast(host);
        counts.merge(host, 1, Integer::sum);
    }
}
