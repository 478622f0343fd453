package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.RedisEndpoint;
import io.ailb.lb.shell.ShellFixture;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * In-flight counts are held by per-request leases: a count whose decision reply was lost, or whose gateway died
 * before releasing it, does not stay forever.
 */
@Timeout(120)
class LeaseScenarioTest {
    private static String config(String extra) {
        return "{\"lb_policy\":\"global_least_request\",\"lb_config\":{" + ShellFixture.redisConfig(extra) + "}}";
    }

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    @Test
    void aDecisionWhoseReplyIsLostAfterRedisCountedItIsStillReleased() throws IOException {
        try (ReplyDroppingProxy proxy =
                new ReplyDroppingProxy(PluginFixture.redis().endpoint())) {
            PluginVm vm = Gateway.builder(PluginFixture.plugin())
                    .withPluginConfig(config(""))
                    .withRedisCluster(ShellFixture.REDIS_CLUSTER, proxy.endpoint())
                    .withUpstreamHosts(ShellFixture.CLUSTER, List.of(ClusterHost.healthy(A)))
                    .build()
                    .startVm();
            // Warm up: the scripts are loaded and the path works.
            PluginFixture.send(vm, ShellFixture.chat("s", "warm up")).complete();
            assertEquals(0L, PluginFixture.totalInflight());

            proxy.dropNextArrayReply.set(true);
            HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", "lost reply"));

            assertFalse(proxy.dropNextArrayReply.get(), "the select reply was dropped");
            assertTrue(stream.requestHeadersForwarded(), "the request went on");
            assertFalse(stream.upstreamOverride().isPresent(), "the cluster's load balancer decided");
            assertEquals(Map.of(A, 1L), PluginFixture.inflight(), "yet Redis counted it");

            stream.complete();

            assertEquals(0L, PluginFixture.totalInflight(), "the lease release gave the count back");
            assertEquals(
                    0L, PluginFixture.redis().command("EXISTS", leasesKey()).asLong());
        }
    }

    @Test
    void countsOfAGatewayThatDiedAreGivenBackOnceTheirLeasesExpire() throws InterruptedException {
        PluginVm doomed = PluginFixture.gateway(config("\"leaseTTL\":1"))
                .withRandomSeed(1)
                .build()
                .startVm();
        List<HttpStream> open = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            open.add(PluginFixture.send(doomed, ShellFixture.chat("s", "doomed " + i)));
        }
        assertEquals(3L, PluginFixture.totalInflight());
        doomed.close(); // The VM is gone: its streams never end, their releases never come.

        PluginVm survivor = PluginFixture.gateway(config("\"leaseTTL\":1"))
                .withRandomSeed(2)
                .build()
                .startVm();
        HttpStream early = PluginFixture.send(survivor, ShellFixture.chat("s", "early"));
        assertEquals(4L, PluginFixture.totalInflight(), "leases younger than their TTL keep their counts");

        Thread.sleep(2_200);
        HttpStream late = PluginFixture.send(survivor, ShellFixture.chat("s", "late"));

        assertEquals(1L, PluginFixture.totalInflight(), "every expired lease was healed; only the new one counts");
        assertTrue(late.upstreamOverride().isPresent());
        early.complete();
        late.complete();
        assertEquals(0L, PluginFixture.totalInflight(), PluginFixture.inflight().toString());
    }

    private static String leasesKey() {
        List<String> keys = PluginFixture.keys("*:leases");
        return keys.isEmpty() ? "llb:none:leases" : keys.get(0);
    }

    /**
     * A TCP proxy in front of Redis that, when armed, lets one script reply ({@code *} array: the script ran) be lost:
     * it closes the client's connection instead of passing the reply on, as a timeout or reset after execution would.
     */
    private static final class ReplyDroppingProxy implements AutoCloseable {
        final AtomicBoolean dropNextArrayReply = new AtomicBoolean();
        private final ServerSocket server;
        private final RedisEndpoint target;
        private final List<Socket> sockets = new ArrayList<>();
        private final Thread acceptor;

        ReplyDroppingProxy(RedisEndpoint target) throws IOException {
            this.target = target;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.acceptor = new Thread(this::acceptLoop, "reply-dropping-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        RedisEndpoint endpoint() {
            return new RedisEndpoint("127.0.0.1", server.getLocalPort(), target.username(), target.password());
        }

        private void acceptLoop() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Socket upstream = new Socket(target.host(), target.port());
                    synchronized (sockets) {
                        sockets.add(client);
                        sockets.add(upstream);
                    }
                    pump(client, upstream, false);
                    pump(upstream, client, true);
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void pump(Socket from, Socket to, boolean replies) {
            Thread thread = new Thread(
                    () -> {
                        byte[] buffer = new byte[65536];
                        try {
                            InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream();
                            int n;
                            while ((n = in.read(buffer)) > 0) {
                                if (replies && buffer[0] == '*' && dropNextArrayReply.compareAndSet(true, false)) {
                                    from.close();
                                    to.close();
                                    return;
                                }
                                out.write(buffer, 0, n);
                                out.flush();
                            }
                        } catch (IOException e) {
                            // One side closed: the connection is over.
                        } finally {
                            closeQuietly(from);
                            closeQuietly(to);
                        }
                    },
                    "proxy-pump");
            thread.setDaemon(true);
            thread.start();
        }

        private static void closeQuietly(Socket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // Already closed.
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (sockets) {
                sockets.forEach(ReplyDroppingProxy::closeQuietly);
            }
        }
    }
}
