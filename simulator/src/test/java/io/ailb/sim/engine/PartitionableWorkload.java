package io.ailb.sim.engine;

import io.ailb.sim.model.SimRequest;
import io.ailb.sim.workload.MooncakeTrace;
import io.ailb.sim.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Groups with distinct 4-block (2,048-token) prefixes and one unique block per request, Mooncake-style (one user
 * message per block). The first request of every group arrives at once, then one request every 250 ms of a random
 * group. Each backend's cache holds three groups' prefixes: routing groups to backends keeps every prefix cached,
 * spreading them thrashes the caches.
 */
final class PartitionableWorkload {
    static final int GROUPS = 9;
    static final int PREFIX_BLOCKS = 4;
    static final long CAPACITY_TOKENS = (3 * PREFIX_BLOCKS + 3) * 512L;

    private PartitionableWorkload() {}

    static Workload create(int requests, long seed) {
        Random random = new Random(seed);
        List<SimRequest> list = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            int group = i < GROUPS ? i : random.nextInt(GROUPS);
            long arrival = i < GROUPS ? i : GROUPS + 250L * (i - GROUPS + 1);
            List<Long> ids = new ArrayList<>();
            for (int b = 0; b < PREFIX_BLOCKS; b++) {
                ids.add(1000L * (group + 1) + b);
            }
            ids.add(1_000_000L + i);
            list.add(new SimRequest(i, arrival, null, (PREFIX_BLOCKS + 1) * 512, 10, 512, ids, ""));
        }
        return Workload.openLoop("partitionable", list, MooncakeTrace::body);
    }
}
