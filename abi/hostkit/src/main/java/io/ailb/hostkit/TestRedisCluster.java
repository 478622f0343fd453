package io.ailb.hostkit;

import io.ailb.codec.resp.RespEncoder;
import io.ailb.codec.resp.RespValue;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import redis.embedded.core.ExecutableProvider;

/**
 * A real Redis Cluster for tests: the {@code redis-server} bundled with embedded-redis, started once per node in
 * cluster mode on free local ports (each node in a temporary directory of its own, with its config file and its
 * cluster state file {@code nodes.conf}), joined with {@code CLUSTER MEET}, the 16384 slots split in equal ranges in
 * node order (with three nodes 0–5460, 5461–10921, 10922–16383, as {@code redis-cli --cluster create} splits them),
 * no replicas. Nothing is kept on disk but the cluster state, so a node {@link #kill killed} and {@link #restart
 * restarted} comes back with its identity and its slots, and empty.
 *
 * <p>{@code cluster-require-full-coverage no}: the nodes that are up keep serving their own slots while another one is
 * down, as a cluster of masters without replicas must be configured to do. The node timeout is 3 s: long enough for the
 * handshakes on a loaded machine, short enough that a failure is detected, and healed, within a test.
 *
 * <p>{@link #send} routes a command the way a cluster client does: to the node owning the slot of its routing key, and
 * once more to the node a {@code MOVED} reply names.
 */
public final class TestRedisCluster implements AutoCloseable {
    /** The number of hash slots of every Redis Cluster. */
    public static final int SLOTS = 16384;

    private static final String HOST = "127.0.0.1";
    private static final int NODE_TIMEOUT_MILLIS = 3000;
    private static final long READY_TIMEOUT_MILLIS = 60_000;
    private static final long POLL_MILLIS = 50;
    /** Redis listens for its cluster bus on the client port + 10000. */
    private static final int BUS_PORT_OFFSET = 10_000;
    /** Slots per ADDSLOTS command (Redis 6.2 has no ADDSLOTSRANGE). */
    private static final int ADDSLOTS_CHUNK = 1024;

    private final File executable;
    private final Path root;
    private final List<Node> nodes;
    /** Kills the nodes if the JVM exits before {@link #close}, so no redis-server outlives the tests. */
    private final Thread killOnExit = new Thread(this::killAll);

    private static final class Node {
        final int port;
        final Path dir;
        final int firstSlot;
        final int lastSlot;
        final RespConnection connection;
        Process process;

        Node(int port, Path dir, int firstSlot, int lastSlot) {
            this.port = port;
            this.dir = dir;
            this.firstSlot = firstSlot;
            this.lastSlot = lastSlot;
            this.connection = new RespConnection(HOST, port);
        }

        Path config() {
            return dir.resolve("redis.conf");
        }

        Path log() {
            return dir.resolve("redis.log");
        }
    }

    private TestRedisCluster(File executable, Path root, List<Node> nodes) {
        this.executable = executable;
        this.root = root;
        this.nodes = nodes;
    }

    /** A started cluster of three masters with every slot assigned and {@code cluster_state:ok} on each. */
    public static TestRedisCluster start() {
        return start(3);
    }

    /** A started cluster of {@code nodeCount} masters with every slot assigned and {@code cluster_state:ok} on each. */
    public static TestRedisCluster start(int nodeCount) {
        if (nodeCount < 1) {
            throw new IllegalArgumentException("a cluster needs a node, got " + nodeCount);
        }
        TestRedisCluster cluster = null;
        try {
            Path root = Files.createTempDirectory("ailb-redis-cluster");
            List<Node> nodes = new ArrayList<>(nodeCount);
            cluster = new TestRedisCluster(
                    ExecutableProvider.newJarResourceProvider().get(), root, nodes);
            Runtime.getRuntime().addShutdownHook(cluster.killOnExit);
            List<Integer> taken = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) {
                int port = freePortPair(taken);
                taken.add(port);
                Path dir = Files.createDirectory(root.resolve("node-" + i));
                Node node = new Node(port, dir, i * SLOTS / nodeCount, (i + 1) * SLOTS / nodeCount - 1);
                Files.writeString(node.config(), config(node), StandardCharsets.UTF_8);
                nodes.add(node);
                cluster.launch(node);
            }
            cluster.join();
            return cluster;
        } catch (IOException | RuntimeException e) {
            if (cluster != null) {
                cluster.close();
            }
            throw e instanceof IOException ? new UncheckedIOException((IOException) e) : (RuntimeException) e;
        }
    }

    private static String config(Node node) {
        return String.join(
                "\n",
                "port " + node.port,
                "bind " + HOST,
                "dir " + node.dir.toAbsolutePath(),
                "cluster-enabled yes",
                "cluster-config-file nodes.conf",
                "cluster-node-timeout " + NODE_TIMEOUT_MILLIS,
                "cluster-require-full-coverage no",
                "save \"\"",
                "appendonly no",
                "");
    }

    /** A free port whose cluster bus port (+10000) is free too. */
    private static int freePortPair(List<Integer> taken) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            if (port + BUS_PORT_OFFSET > 65535 || taken.contains(port) || taken.contains(port + BUS_PORT_OFFSET)) {
                continue;
            }
            try (ServerSocket bus = new ServerSocket()) {
                bus.bind(new InetSocketAddress(HOST, port + BUS_PORT_OFFSET));
                return port;
            } catch (IOException busPortInUse) {
                // Try another pair.
            }
        }
        throw new IOException("no free port pair (port, port + 10000) after 100 attempts");
    }

    private void launch(Node node) throws IOException {
        node.process = new ProcessBuilder(
                        executable.getAbsolutePath(), node.config().toString())
                .directory(node.dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(node.log().toFile()))
                .start();
        long deadline = System.currentTimeMillis() + READY_TIMEOUT_MILLIS;
        while (true) {
            if (!node.process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + node.port + " exited: " + logOf(node));
            }
            try {
                if ("PONG"
                        .equals(node.connection
                                .send(RespEncoder.command("PING"))
                                .asString())) {
                    return;
                }
            } catch (UncheckedIOException notListeningYet) {
                // Still starting.
            }
            awaitNextPoll(deadline, "redis-server on port " + node.port + " to answer PING: " + logOf(node));
        }
    }

    private void join() {
        meetUntilKnown();
        for (Node node : nodes) {
            for (int start = node.firstSlot; start <= node.lastSlot; start += ADDSLOTS_CHUNK) {
                int end = Math.min(node.lastSlot, start + ADDSLOTS_CHUNK - 1);
                List<String> command = new ArrayList<>(2 + end - start + 1);
                command.add("CLUSTER");
                command.add("ADDSLOTS");
                for (int slot = start; slot <= end; slot++) {
                    command.add(Integer.toString(slot));
                }
                expectOk(node.connection.send(RespEncoder.command(command.toArray(new String[0]))));
            }
        }
        awaitClusterOk();
    }

    /**
     * Introduces every node to the first one. A handshake not done within the node timeout is dropped (a loaded
     * machine can be that slow), so a node the first one does not know yet is introduced again.
     */
    private void meetUntilKnown() {
        Node first = nodes.get(0);
        long deadline = System.currentTimeMillis() + READY_TIMEOUT_MILLIS;
        long nextMeet = 0;
        while (true) {
            String known = first.connection
                    .send(RespEncoder.command("CLUSTER", "NODES"))
                    .asString();
            List<Node> strangers = new ArrayList<>();
            boolean handshaking = false;
            for (Node node : nodes.subList(1, nodes.size())) {
                String line = lineWith(known, " " + HOST + ":" + node.port + "@");
                if (line == null) {
                    strangers.add(node);
                } else if (line.contains("handshake")) {
                    handshaking = true;
                }
            }
            if (strangers.isEmpty() && !handshaking) {
                return;
            }
            if (!strangers.isEmpty() && System.currentTimeMillis() >= nextMeet) {
                for (Node node : strangers) {
                    expectOk(first.connection.send(
                            RespEncoder.command("CLUSTER", "MEET", HOST, Integer.toString(node.port))));
                }
                nextMeet = System.currentTimeMillis() + 2L * NODE_TIMEOUT_MILLIS;
            }
            awaitNextPoll(deadline, "the first node to know every other one: " + known);
        }
    }

    private static String lineWith(String text, String part) {
        for (String line : text.split("\n")) {
            if (line.contains(part)) {
                return line;
            }
        }
        return null;
    }

    private static void expectOk(RespValue reply) {
        if (!"OK".equals(reply.isError() ? null : reply.asString())) {
            throw new IllegalStateException("cluster setup: " + reply);
        }
    }

    /**
     * Waits until every running node reports {@code cluster_state:ok}, knows every node and sees all 16384 slots
     * served (none of them on a node it flags as failing).
     */
    public void awaitClusterOk() {
        long deadline = System.currentTimeMillis() + READY_TIMEOUT_MILLIS;
        String expectedNodes = "cluster_known_nodes:" + nodes.size();
        String allSlotsServed = "cluster_slots_ok:" + SLOTS;
        for (Node node : nodes) {
            if (node.process == null) {
                continue;
            }
            String info = "";
            while (true) {
                try {
                    info = node.connection
                            .send(RespEncoder.command("CLUSTER", "INFO"))
                            .asString();
                } catch (UncheckedIOException e) {
                    info = e.getMessage();
                }
                if (info.contains("cluster_state:ok")
                        && info.contains(expectedNodes + "\r\n")
                        && info.contains(allSlotsServed + "\r\n")) {
                    break;
                }
                awaitNextPoll(deadline, "the node on port " + node.port + " to see the cluster ok: " + info);
            }
        }
    }

    private static void awaitNextPoll(long deadline, String waitingFor) {
        if (System.currentTimeMillis() > deadline) {
            throw new IllegalStateException("timed out waiting for " + waitingFor);
        }
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + waitingFor, e);
        }
    }

    private static String logOf(Node node) {
        try {
            return Files.exists(node.log()) ? Files.readString(node.log(), StandardCharsets.UTF_8) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** The number of nodes. */
    public int nodeCount() {
        return nodes.size();
    }

    /** The client port of {@code node} (0-based, in slot order). */
    public int port(int node) {
        return nodes.get(node).port;
    }

    /** The node (0-based) that owns {@code slot}. */
    public int nodeOfSlot(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot out of range: " + slot);
        }
        for (int i = 0; i < nodes.size(); i++) {
            if (slot <= nodes.get(i).lastSlot) {
                return i;
            }
        }
        throw new IllegalStateException("unreachable: the ranges cover every slot");
    }

    /** The node (0-based) that owns the slot of {@code key}. */
    public int nodeOf(String key) {
        return nodeOfSlot(slot(key));
    }

    /**
     * The Redis Cluster slot of {@code key}: CRC16 (XMODEM) of its hash tag, or of the whole key when it has none,
     * modulo 16384. The tag is what lies between the first {@code {} and the first {@code }} after it, when that is
     * not empty.
     */
    public static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                start = open + 1;
                end = close;
            }
        }
        return crc16(bytes, start, end) % SLOTS;
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    /** CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection, as Redis computes key slots. */
    static int crc16(byte[] bytes, int start, int end) {
        int crc = 0;
        for (int i = start; i < end; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xFFFF;
        }
        return crc;
    }

    /**
     * Sends {@code request} (RESP bytes) to the node owning the slot of {@code routingKey} and returns its reply; a
     * {@code MOVED} reply is followed once. A node that is down gives an {@link UncheckedIOException}.
     */
    public RespValue send(String routingKey, byte[] request) {
        RespValue reply = nodes.get(nodeOf(routingKey)).connection.send(request);
        if (!reply.isError() || !reply.errorCode().equals("MOVED")) {
            return reply;
        }
        return nodes.get(nodeAt(movedAddress(reply))).connection.send(request);
    }

    /** A plain command ({@code HGET key field}) routed by its first key, {@code args[1]}. */
    public RespValue call(String... args) {
        if (args.length < 2) {
            throw new IllegalArgumentException("a routed command names a key: " + String.join(" ", args));
        }
        return send(args[1], RespEncoder.command(args));
    }

    /** A command sent to one node, whatever its keys (e.g. {@code KEYS *}, {@code CLUSTER INFO}). */
    public RespValue callOn(int node, String... args) {
        return nodes.get(node).connection.send(RespEncoder.command(args));
    }

    /** {@code MOVED <slot> <host>:<port>} → {@code <host>:<port>}. */
    private static String movedAddress(RespValue moved) {
        String[] words = moved.asString().split(" ");
        if (words.length != 3) {
            throw new IllegalStateException("unexpected MOVED reply: " + moved);
        }
        return words[2];
    }

    private int nodeAt(String address) {
        for (int i = 0; i < nodes.size(); i++) {
            if (address.equals(HOST + ":" + nodes.get(i).port)) {
                return i;
            }
        }
        throw new IllegalStateException("MOVED to a node not in this cluster: " + address);
    }

    /** Empties every running node. */
    public void flushAll() {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).process != null) {
                expectOk(callOn(i, "FLUSHALL"));
            }
        }
    }

    /** Kills {@code node} at once (SIGKILL), as a crashed server: no shutdown, its data gone. */
    public void kill(int node) {
        Node killed = nodes.get(node);
        killed.connection.close();
        if (killed.process != null) {
            killed.process.destroyForcibly();
            awaitExit(killed.process);
            killed.process = null;
        }
    }

    /**
     * Starts a {@link #kill killed} node again on its port with its config and cluster state files, and waits until
     * the whole cluster is ok again.
     */
    public void restart(int node) {
        Node restarted = nodes.get(node);
        if (restarted.process != null) {
            throw new IllegalStateException("node " + node + " is running");
        }
        try {
            launch(restarted);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        awaitClusterOk();
    }

    private static void awaitExit(Process process) {
        try {
            if (!process.waitFor(READY_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("redis-server did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for redis-server to exit", e);
        }
    }

    private void killAll() {
        for (Node node : nodes) {
            if (node.process != null) {
                node.process.destroyForcibly();
            }
        }
    }

    /** Stops every node and deletes their directories. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException exiting) {
            // The JVM is exiting: the hook kills the nodes.
        }
        for (Node node : nodes) {
            node.connection.close();
            if (node.process != null) {
                node.process.destroy();
                try {
                    if (!node.process.waitFor(10, TimeUnit.SECONDS)) {
                        node.process.destroyForcibly();
                        awaitExit(node.process);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    node.process.destroyForcibly();
                }
                node.process = null;
            }
        }
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }
}
