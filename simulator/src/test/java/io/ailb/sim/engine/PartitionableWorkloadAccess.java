package io.ailb.sim.engine;

import io.ailb.sim.workload.Workload;

/** {@link PartitionableWorkload} for tests in other packages. */
public final class PartitionableWorkloadAccess {
    public static final long CAPACITY = PartitionableWorkload.CAPACITY_TOKENS;

    private PartitionableWorkloadAccess() {}

    public static Workload create(int requests, long seed) {
        return PartitionableWorkload.create(requests, seed);
    }
}
