package io.ailb.teavm;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes the module's bytes a function of its classes alone. TeaVM 0.13.1's dependency analysis iterates
 * {@code HashSet}s and hppc maps keyed by its own graph nodes ({@code TypeSet.domain},
 * {@code DependencyNode.transitions}), which hash by identity. The order in which methods become reachable, and so
 * the order of the module's functions, their indices and the LEB128 sizes of every call, then follow the JVM's
 * identity-hash sequence, which moves with the GC, the number of cores and whether the classes come from jars or
 * directories: the same classes gave modules of different bytes and sizes.
 *
 * <p>HotSpot's {@code -XX:hashCode=2} gives every object the same identity hash, so those collections iterate in
 * insertion order, which the analysis makes deterministic. A build with it is ~15% slower.
 */
final class ConstantIdentityHashes {
    static final List<String> JVM_OPTIONS = List.of("-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2");

    /** Set in the JVM {@link #command} starts, so that a JVM ignoring the option does not start another one. */
    static final String CHILD_PROPERTY = "ailb.teavm.constantIdentityHashes";

    private ConstantIdentityHashes() {}

    /** @return whether this JVM runs with {@link #JVM_OPTIONS} (false on a JVM without that option) */
    static boolean inThisJvm() {
        HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        if (hotSpot == null) {
            return false;
        }
        try {
            VMOption option = hotSpot.getVMOption("hashCode");
            return "2".equals(option.getValue());
        } catch (IllegalArgumentException e) {
            // The option is experimental: it is listed only once unlocked.
            return false;
        }
    }

    /**
     * The command that runs {@code mainClass} with {@code args} in a JVM with the options of the current one
     * ({@code jvmArguments}: heap, GC, …) followed by {@link #JVM_OPTIONS}, which win over any earlier hash mode.
     * Agents (a debugger, a coverage tool) stay with the JVM they were given to: a second debugger would find its
     * port taken.
     */
    static List<String> command(
            String javaHome, List<String> jvmArguments, String classPath, String mainClass, String[] args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(javaHome, "bin", "java").toString());
        for (String argument : jvmArguments) {
            if (!isAgent(argument)) {
                command.add(argument);
            }
        }
        command.addAll(JVM_OPTIONS);
        command.add("-D" + CHILD_PROPERTY + "=true");
        command.add("-classpath");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(List.of(args));
        return command;
    }

    private static boolean isAgent(String jvmArgument) {
        return jvmArgument.startsWith("-agentlib:")
                || jvmArgument.startsWith("-agentpath:")
                || jvmArgument.startsWith("-javaagent:")
                || jvmArgument.startsWith("-Xrunjdwp");
    }
}
