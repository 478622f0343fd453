package io.ailb.lb.policy.ratelimit;

import io.ailb.lb.config.NumberField;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The last {@value #CAPACITY} choices of one policy in one VM, with a count per choice (an instance for
 * endpoint_metrics, a service for cluster_metrics), for the {@code rate_limit} share check.
 */
public final class ChoiceWindow {
    public static final int CAPACITY = 100;

    /**
     * A share below one choice of the window cannot be met by anyone, so every choice would yield to a random other
     * (0 inverted the routing). Above 1 it would never limit, like 1, so 1 is the top; the Go plugin accepted both, the
     * message states the range. The Go plugin's cluster_metrics counts shares over the VM's lifetime, so a service that
     * was favoured for an hour could not be chosen for the next; the window forgets after 100 choices.
     */
    public static final NumberField RATE_LIMIT = NumberField.optional(
            "rate_limit",
            1.0,
            1.0 / CAPACITY,
            1.0,
            "the largest share of the last 100 choices one instance (cluster_metrics: one service) may take; "
                    + "1 = no limit");

    private final ArrayDeque<String> order = new ArrayDeque<>();
    private final Map<String, Integer> counts = new HashMap<>();

    /** The choice's share of the window, 0 when the window is empty. */
    public double share(String choice) {
        if (order.isEmpty()) {
            return 0;
        }
        Integer count = counts.get(choice);
        return count == null ? 0 : (double) count / order.size();
    }

    public void add(String choice) {
        if (order.size() == CAPACITY) {
            String oldest = order.removeFirst();
            int left = counts.get(oldest) - 1;
            if (left == 0) {
                counts.remove(oldest);
            } else {
                counts.put(oldest, left);
            }
        }
        order.addLast(choice);
        counts.merge(choice, 1, Integer::sum);
    }
}
