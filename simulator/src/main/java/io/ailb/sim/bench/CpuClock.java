package io.ailb.sim.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU time of the calling thread. The emulator makes each Redis round trip synchronously on the calling thread and
 * blocks in a socket read while redis-server (another process) works, so the thread's CPU time counts the guest's
 * code, the emulator's host functions and the socket syscalls, but not Redis's work nor the wait.
 */
final class CpuClock {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private CpuClock() {}

    static void check() {
        if (!THREADS.isCurrentThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM cannot measure thread CPU time");
        }
        if (!THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
    }

    static long now() {
        return THREADS.getCurrentThreadCpuTime();
    }
}
